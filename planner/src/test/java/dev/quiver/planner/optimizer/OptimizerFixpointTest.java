package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.SqlFuzzer;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.plan.LogicalPlan;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The standard rules through the driver, over queries that exercise every part of the SQL: every recorded
 * step really changed the plan (a rule that rebuilds an equal plan would show EXPLAIN VERBOSE a step that
 * does nothing, and cost a pass), and the optimized plan is a fixpoint: optimizing it again changes nothing.
 */
class OptimizerFixpointTest extends RuleTest {
  static Stream<String> queries() {
    return SqlFuzzer.SIMPLE.stream().filter(q -> !q.startsWith("EXPLAIN") && !q.contains("?") && !q.contains("lineitem"));
  }

  @ParameterizedTest
  @MethodSource("queries")
  void everyStepChangesThePlanAndTheResultIsAFixpoint(String sql) {
    LogicalPlan analyzed = tester.analyzed(sql);
    for (boolean simplify : new boolean[] {true, false}) {
      try (RootAllocator a = new RootAllocator()) {
        OptimizerContext context = new OptimizerContext(a, EvalContext.utcNow());
        Optimizer.Result r = Optimizer.standard(simplify).optimize(analyzed, context);
        LogicalPlan before = analyzed;
        for (Optimizer.Step s : r.steps()) {
          assertThat(s.plan()).as("step " + s.rule() + " of " + sql + " changed nothing").isNotEqualTo(before);
          before = s.plan();
        }
        assertThat(r.steps().size()).as("steps of " + sql).isLessThan(Optimizer.MAX_PASSES * 2);
        Optimizer.Result again = Optimizer.standard(simplify).optimize(r.plan(), context);
        assertThat(again.steps()).extracting(Optimizer.Step::rule).as("re-optimizing " + sql).isEqualTo(List.of());
        assertThat(again.plan()).isSameAs(r.plan());
      }
    }
  }
}
