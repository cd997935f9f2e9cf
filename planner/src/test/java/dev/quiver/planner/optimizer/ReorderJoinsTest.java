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

  @Test
  void aFilteredArmIsJoinedToItsOneNeighbourFirst() {
    // bools, filtered, is tied to t2 only: t2 and bools are joined first, then t probes them
    RuleTester.Applied applied = tester.apply(new ReorderJoins(), tester.analyzed(
        "SELECT t.i32 FROM t JOIN t t2 ON t.i64 = t2.i64 JOIN (SELECT * FROM bools WHERE y) f ON f.x = t2.b")).fires();
    java.util.List<String> lines = applied.explain().lines().toList();
    String arm = lines.stream().filter(l -> l.contains("Join") && l.contains("x =")).findFirst().orElseThrow();
    String top = lines.stream().filter(l -> l.contains("Join")).findFirst().orElseThrow();
    assertThat(top).as(applied.explain()).contains("i64");
    assertThat(indent(arm)).as(applied.explain()).isGreaterThan(indent(top));
    assertThat(applied.plan().schema()).isEqualTo(applied.before().schema());
    tester.apply(new ReorderJoins(), applied.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void anUnfilteredLeafTiedToOneOtherIsNoArm() {
    RuleTester.Applied applied = tester.apply(new ReorderJoins(), tester.analyzed(
        "SELECT t.i32 FROM t JOIN t t2 ON t.i64 = t2.i64 JOIN bools ON bools.x = t2.b"));
    java.util.List<String> lines = applied.explain().lines().toList();
    String top = lines.stream().filter(l -> l.contains("Join")).findFirst().orElseThrow();
    // bools is the smallest input and connected: the chain grows t, t2, then bools on top
    assertThat(top).as(applied.explain()).contains("x =");
  }

  @Test
  void aFilteredLeafLargerThanItsOneNeighbourIsNoArm() {
    // f (t filtered: about 14 rows) is tied to b2 only, but larger than it (bools: 9): it probes, as TPC-H q03's
    // filtered lineitem probes orders, rather than being built on as an arm of b2
    RuleTester.Applied applied = tester.apply(new ReorderJoins(), tester.analyzed(
        "SELECT f.i32 FROM bools b1 JOIN bools b2 ON b1.x = b2.x JOIN (SELECT * FROM t WHERE i32 > 0) f ON f.b = b2.x"));
    // the join's left (probe) input is printed first
    assertThat(applied.explain().lines().map(String::trim).toList()).as(applied.explain())
        .containsSubsequence("INNER Join: b = b2.x", "Filter: i32 > 0", "TableScan: bools projection=[x AS b2.x, y AS b2.y]");
  }

  private static int indent(String line) {
    return line.length() - line.stripLeading().length();
  }
}
