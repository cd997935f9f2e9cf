package dev.quiver.planner.exec;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.plan.LogicalPlan;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The bench module's door to the planner's physical operators, whose constructors are package-private
 * (queries reach them through {@link PhysicalPlanner}, which only feeds them from Parquet scans). The
 * kernel benchmarks feed them batches from memory instead, so the operator alone is measured. Lives in
 * the planner's package on the class path only; nothing in the planner depends on it.
 */
public final class BenchOperators {
  private BenchOperators() {}

  /** {@link AggregateExec} over {@code input}; the plan's own input is ignored (only its schema is used). */
  public static Operator aggregate(Operator input, LogicalPlan.Aggregate plan, BufferAllocator allocator,
      EvalContext ctx, int batchRows) {
    return PhysicalPlanner.aggregate(input, plan, allocator, ctx, batchRows);
  }

  /** {@link FilterExec}: keeps the rows of {@code input} where {@code condition} is TRUE. */
  public static Operator filter(Operator input, Expr condition, BufferAllocator allocator, EvalContext ctx) {
    return new FilterExec(input, condition, allocator, ctx);
  }
}
