package dev.quiver.planner;

import dev.quiver.planner.optimizer.Optimizer;
import dev.quiver.planner.plan.LogicalPlan;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A planned statement: the optimized plan, the rule steps that produced it, and the schema of what
 * executing it returns (the plan's output, or the single {@code plan} column of an EXPLAIN). {@code plansBuilt}
 * and {@code planningNanos} are what producing it cost (parse, analyze, optimize): one plan when the engine
 * builds it; {@code EXPLAIN ANALYZE} shows both.
 */
public record PreparedQuery(String sql, ExplainMode explain, LogicalPlan analyzed, Optimizer.Result optimized,
    Schema schema, dev.quiver.planner.kernel.EvalContext eval, List<org.apache.arrow.vector.types.pojo.ArrowType> parameterTypes,
    int batchRows, boolean pruning, int plansBuilt, long planningNanos, boolean parallelPipelines) {

  public enum ExplainMode { NONE, EXPLAIN, VERBOSE, ANALYZE, ANALYZE_VERBOSE }

  public LogicalPlan plan() {
    return optimized.plan();
  }

  public List<Optimizer.Step> steps() {
    return optimized.steps();
  }
}
