package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReduceAggregateByJoinKeysTest extends RuleTest {
  private static final String GROUPED = "(SELECT b, count(*) AS c FROM t GROUP BY b) g";

  @Test
  void theAggregateKeepsOnlyTheGroupsOfTheFilteredKeys() {
    RuleTester.Applied once = tester.apply(new ReduceAggregateByJoinKeys(), tester.analyzed(
        "SELECT f.x, g.c FROM (SELECT * FROM bools WHERE y) f LEFT JOIN " + GROUPED + " ON g.b = f.x")).fires();
    List<String> lines = once.explain().lines().map(String::strip).toList();
    int aggregate = indexOf(lines, "Aggregate: groupBy=");
    // the aggregate's input is now t semi-joined to the filtered bools' keys (a second copy of that scan)
    assertThat(lines.get(aggregate + 1)).as(once.explain()).startsWith("SEMI Join:");
    assertThat(lines.stream().filter(l -> l.startsWith("TableScan: bools"))).hasSize(2);
    assertThat(once.plan().schema()).isEqualTo(once.before().schema());
    tester.apply(new ReduceAggregateByJoinKeys(), once.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void keysFromAnUnfilteredTableOrAPreservedRightSideStay() {
    tester.apply(new ReduceAggregateByJoinKeys(), tester.analyzed(
        "SELECT bools.x, g.c FROM bools JOIN " + GROUPED + " ON g.b = bools.x")).doesNotFire();
    // a RIGHT join keeps every group, matched or not
    tester.apply(new ReduceAggregateByJoinKeys(), tester.analyzed(
        "SELECT f.x, g.c FROM (SELECT * FROM bools WHERE y) f RIGHT JOIN " + GROUPED + " ON g.b = f.x")).doesNotFire();
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith(prefix)) return i;
    throw new AssertionError("no " + prefix + " in " + lines);
  }
}
