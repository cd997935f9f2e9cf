package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PushSemiJoinDownTest extends RuleTest {
  /** The plan's lines, each trimmed to the node's kind and condition. */
  private static List<String> lines(RuleTester.Applied applied) {
    return applied.explain().lines().map(String::strip).toList();
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith(prefix)) return i;
    throw new AssertionError("no " + prefix + " in " + lines);
  }

  private static int depth(RuleTester.Applied applied, String prefix) {
    String line = applied.explain().lines().filter(l -> l.strip().startsWith(prefix)).findFirst().orElseThrow();
    return line.length() - line.stripLeading().length();
  }

  @Test
  void anInSubqueryOnOneSideOfAnInnerJoinFiltersThatSide() {
    RuleTester.Applied once = tester.apply(new PushSemiJoinDown(), tester.analyzed(
        "SELECT t.i32 FROM t JOIN bools ON bools.x = t.b WHERE t.i64 IN (SELECT i64 FROM t t2 WHERE t2.i32 > 5)")).fires();
    // the semi join now sits under the inner join, over t's scan
    assertThat(depth(once, "SEMI Join")).isGreaterThan(depth(once, "INNER Join"));
    List<String> lines = lines(once);
    assertThat(lines.get(indexOf(lines, "SEMI Join") + 1)).startsWith("TableScan: t ");
    tester.apply(new PushSemiJoinDown(), once.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void notExistsOnTheRightOfAnInnerJoinGoesRight() {
    RuleTester.Applied once = tester.apply(new PushSemiJoinDown(), tester.analyzed(
        "SELECT t.i32 FROM t JOIN bools ON bools.x = t.b WHERE NOT EXISTS (SELECT 1 FROM t t2 WHERE t2.b = bools.y)"))
        .fires();
    assertThat(depth(once, "ANTI Join")).isGreaterThan(depth(once, "INNER Join"));
    List<String> lines = lines(once);
    assertThat(lines.get(indexOf(lines, "ANTI Join") + 1)).startsWith("TableScan: bools");
  }

  @Test
  void neverIntoASideWhoseRowsAreKeptUnmatched() {
    // bools is the NULL-padded side of the LEFT join: filtering it first would pad rows the subquery drops
    tester.apply(new PushSemiJoinDown(), tester.analyzed(
        "SELECT t.i32 FROM t LEFT JOIN bools ON bools.x = t.b WHERE bools.y IN (SELECT b FROM t t2)")).doesNotFire();
    tester.apply(new PushSemiJoinDown(), tester.analyzed(
        "SELECT t.i32 FROM t FULL JOIN bools ON bools.x = t.b WHERE t.b IN (SELECT b FROM t t2)")).doesNotFire();
  }

  @Test
  void aConditionReadingBothSidesStays() {
    tester.apply(new PushSemiJoinDown(), tester.analyzed(
        "SELECT t.i32 FROM t JOIN bools ON bools.x = t.b WHERE EXISTS (SELECT 1 FROM t t2 WHERE t2.b = bools.y AND t2.i32 = t.i32)"))
        .doesNotFire();
  }
}
