package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SingleDistinctToGroupByTest extends RuleTest {
  @Test
  void distinctAggregatesOfOneArgumentAggregateTheDistinctPairs() {
    RuleTester.Applied once = tester.apply(new SingleDistinctToGroupBy(), tester.analyzed(
        "SELECT s, count(DISTINCT i32 + 1), sum(DISTINCT i32 + 1), max(DISTINCT i32 + 1) FROM t GROUP BY s")).fires();
    List<String> lines = once.explain().lines().map(String::strip).toList();
    int outer = indexOf(lines, "Aggregate: groupBy=[s]");
    assertThat(lines.get(outer)).as(once.explain()).contains("count(__distinct)").contains("sum(__distinct)")
        .contains("max(__distinct)")
        .doesNotContain("DISTINCT");
    assertThat(lines.get(outer + 1)).as(once.explain()).isEqualTo("Aggregate: groupBy=[s, (i32 + 1) AS __distinct]");
    assertThat(once.plan().schema()).isEqualTo(once.before().schema());
    tester.apply(new SingleDistinctToGroupBy(), once.plan()).doesNotFire(); // a fixpoint
    // without groups: the outer aggregation has none either (one row over an empty input)
    RuleTester.Applied ungrouped = tester.apply(new SingleDistinctToGroupBy(), tester.analyzed(
        "SELECT count(DISTINCT s) FROM t WHERE i32 > 1000")).fires();
    assertThat(ungrouped.explain()).contains("Aggregate: count(__distinct)").contains("Aggregate: groupBy=[s AS __distinct]");
  }

  @Test
  void mixedOrDifferentArgumentsOrGroupingSetsStay() {
    for (String sql : List.of(
        "SELECT count(DISTINCT s), count(*) FROM t",
        "SELECT count(DISTINCT s), count(DISTINCT i32) FROM t",
        "SELECT count(DISTINCT s), sum(i32) FROM t GROUP BY b",
        "SELECT string_agg(DISTINCT s, ',') FROM t",
        "SELECT b, count(DISTINCT s) FROM t GROUP BY ROLLUP (b)",
        "SELECT count(*) FROM t GROUP BY s",
        "SELECT max(s), min(s) FROM t")) {
      tester.apply(new SingleDistinctToGroupBy(), tester.analyzed(sql)).doesNotFire();
    }
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith(prefix)) return i;
    throw new AssertionError("no " + prefix + " in " + lines);
  }
}
