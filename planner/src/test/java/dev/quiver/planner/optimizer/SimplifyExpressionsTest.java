package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SimplifyExpressionsTest extends RuleTest {
  @Test
  void foldsTheExpressionsOfEveryNode() {
    var applied = tester.apply(new SimplifyExpressions(), tester.analyzed("SELECT 1 + 2 AS x, i32 FROM t WHERE i32 > 1 + 1"))
        .becomes(
            "Projection: 3 AS x, i32",
            "  Filter: i32 > 2",
            "    " + SCAN_T);
    assertThat(applied.result().steps().get(0).rule()).isEqualTo("SimplifyExpressions [FoldConstants]");
  }

  @Test
  void leavesSimpleExpressionsAlone() {
    tester.apply(new SimplifyExpressions(), tester.analyzed("SELECT i32 + 1 AS x FROM t WHERE i32 > 2 ORDER BY s")).doesNotFire();
  }
}
