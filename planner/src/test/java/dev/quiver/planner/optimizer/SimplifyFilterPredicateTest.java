package dev.quiver.planner.optimizer;

import dev.quiver.planner.plan.LogicalPlan;
import org.junit.jupiter.api.Test;

class SimplifyFilterPredicateTest extends RuleTest {
  @Test
  void unknownIsFalseInAWhereCondition() {
    LogicalPlan plan = new LogicalPlan.Filter(tester.scan("t"), tester.predicate("(i32 IS NOT NULL OR NULL) AND s = 's1'"));
    tester.apply(new SimplifyFilterPredicate(), plan).becomes(
        "Filter: i32 IS NOT NULL AND s = 's1'",
        "  " + SCAN_T);
  }

  @Test
  void notInAProjectionNorInAFilterWithNothingToDo() {
    // in a SELECT list UNKNOWN is a value: (c IS NOT NULL OR NULL) is NULL for a NULL c, not FALSE
    tester.apply(new SimplifyFilterPredicate(), tester.analyzed("SELECT (i32 IS NOT NULL OR NULL) AS p FROM t")).doesNotFire();
    tester.apply(new SimplifyFilterPredicate(), tester.analyzed("SELECT i32 FROM t WHERE i32 IS NOT NULL AND s = 's1'"))
        .doesNotFire();
  }
}
