package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** t has 56 rows, bools 9: the larger input is probed (left), the smaller built (right). */
class ReorderJoinsTest extends RuleTest {
  @Test
  void theLargerInputGoesLeftAndTheColumnOrderIsKept() {
    RuleTester.Applied applied = tester.apply(new ReorderJoins(), tester.analyzed("SELECT * FROM bools JOIN t ON bools.x = t.b"))
        .fires();
    String plan = applied.explain();
    assertThat(plan.lines().map(String::trim).toList()).containsSubsequence("INNER Join: x = b", SCAN_T, SCAN_BOOLS);
    assertThat(applied.plan().schema()).isEqualTo(applied.before().schema());
    tester.apply(new ReorderJoins(), applied.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void anOuterJoinIsFlippedToBuildOnItsSmallerSide() {
    RuleTester.Applied applied = tester.apply(new ReorderJoins(), tester.analyzed("SELECT * FROM bools LEFT JOIN t ON bools.x = t.b"))
        .fires();
    assertThat(applied.explain().lines().map(String::trim).toList()).containsSubsequence("RIGHT Join: x = b", SCAN_T, SCAN_BOOLS);
  }

  @Test
  void joinsAlreadyInOrderStay() {
    tester.apply(new ReorderJoins(), tester.analyzed("SELECT * FROM t JOIN bools ON bools.x = t.b")).doesNotFire();
    tester.apply(new ReorderJoins(), tester.analyzed("SELECT * FROM t LEFT JOIN bools ON bools.x = t.b")).doesNotFire();
    tester.apply(new ReorderJoins(), tester.analyzed("SELECT i32 FROM t WHERE i32 > 1")).doesNotFire();
  }
}
