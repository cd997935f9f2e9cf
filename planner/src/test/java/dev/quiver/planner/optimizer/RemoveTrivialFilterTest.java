package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.types.SqlTypes;
import org.junit.jupiter.api.Test;

class RemoveTrivialFilterTest extends RuleTest {
  @Test
  void aTrueFilterGoes() {
    tester.apply(new RemoveTrivialFilter(), tester.analyzed("SELECT i32 FROM t WHERE TRUE")).becomes(
        "Projection: i32",
        "  " + SCAN_T);
  }

  @Test
  void aFalseOrNullFilterLeavesNoRows() {
    tester.apply(new RemoveTrivialFilter(), new LogicalPlan.Filter(tester.scan("t"), Expr.Literal.FALSE)).becomes("EmptyRelation");
    tester.apply(new RemoveTrivialFilter(), new LogicalPlan.Filter(tester.scan("t"), Expr.Literal.nullOf(SqlTypes.BOOLEAN)))
        .becomes("EmptyRelation");
  }

  @Test
  void aConditionThatIsNotALiteralStays() {
    tester.apply(new RemoveTrivialFilter(), tester.analyzed("SELECT i32 FROM t WHERE i32 > 1")).doesNotFire();
    // constant, but not folded yet: that is SimplifyExpressions' job
    tester.apply(new RemoveTrivialFilter(), tester.analyzed("SELECT i32 FROM t WHERE 1 = 1")).doesNotFire();
  }
}
