package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The shape checks of subquery binding read the parsed and bound trees, not the SQL text: a correlated EXISTS is
 * refused only when its own select list aggregates, and a correlated scalar subquery only when its own aggregation
 * counts rows inside an expression. Strings, aliases and nested subqueries that merely spell an aggregate's name
 * do not trip them.
 */
class SubqueryShapeTest extends EngineTest {
  static final List<Object[]> ROWS = TestTables.rows();

  private List<List<Object>> run(String sql) {
    return TestTables.run(engine, allocator, sql);
  }

  /** SQL order of doubles: -0.0 equals 0.0, NaN equals NaN and is above every number. */
  private static int compare(double x, double y) {
    return x == y ? 0 : Double.compare(x, y);
  }

  /** Rows of t whose correlated EXISTS (b.i64 = a.i64 AND b.f64 > a.f64) holds, computed from the rows. */
  private static long existsCount() {
    return ROWS.stream().filter(a -> ROWS.stream().anyMatch(b -> a[2] != null && a[2].equals(b[2])
        && a[3] != null && b[3] != null && compare((Double) b[3], (Double) a[3]) > 0)).count();
  }

  @Test
  void correlatedExistsWhoseSelectListOnlySpellsAnAggregateIsAccepted() {
    long expected = existsCount();
    assertThat(expected).isPositive();
    for (String item : List.of("'count('", "1 AS \"sum(x)\"", "CAST(b.s AS VARCHAR(10))", "(SELECT max(c.i32) FROM t c)",
        "b.i32 AS max_value")) {
      String sql = "SELECT count(*) FROM t a WHERE EXISTS (SELECT " + item + " FROM t b WHERE b.i64 = a.i64 AND b.f64 > a.f64)";
      assertThat(run(sql)).as(sql).containsExactly(List.of(expected));
    }
  }

  @Test
  void correlatedExistsWithAnAggregateHasARowForEveryOuterRow() {
    // an aggregate without GROUP BY has one row whatever its WHERE admits: EXISTS holds for every row of t
    for (String item : List.of("max(b.i32)", "1 + SUM (b.i32)", "COUNT(*)", "coalesce(min(b.i8), 0)", "Var_Pop(b.f64)")) {
      String sql = "SELECT count(*) FROM t a WHERE EXISTS (SELECT " + item + " FROM t b WHERE b.i64 = a.i64 AND b.f64 > a.f64)";
      assertThat(run(sql)).as(sql).containsExactly(List.of((long) ROWS.size()));
    }
    // with a HAVING it does not always have one: still refused
    String having = "SELECT count(*) FROM t a WHERE EXISTS (SELECT max(b.i32) FROM t b WHERE b.i64 = a.i64 HAVING count(*) > 1)";
    assertThatThrownBy(() -> run(having)).isInstanceOf(QuiverException.class)
        .hasMessageContaining("EXISTS over a correlated aggregate with HAVING and no GROUP BY");
  }

  @Test
  void correlatedScalarSubqueryWhoseTextMentionsCountIsAccepted() {
    List<List<Object>> expected = new ArrayList<>();
    for (Object[] a : ROWS) {
      Integer max = null;
      for (Object[] b : ROWS) {
        if (a[5] != null && Objects.equals(a[5], b[5]) && b[1] != null && (max == null || (Integer) b[1] > max)) {
          max = (Integer) b[1];
        }
      }
      List<Object> row = new ArrayList<>();
      row.add(a[1]);
      row.add(max);
      expected.add(row);
    }
    // a string literal and a column alias spelling COUNT, and a count inside an uncorrelated subquery
    for (String sub : List.of("SELECT max(b.i32) FROM t b WHERE b.s = a.s AND b.s <> 'COUNT'",
        "SELECT max(b.i32) AS \"COUNT\" FROM t b WHERE b.s = a.s",
        "SELECT max(b.i32) FROM t b WHERE b.s = a.s AND (SELECT count(*) FROM t c) > 0")) {
      String sql = "SELECT a.i32, (" + sub + ") FROM t a";
      List<List<Object>> got = new ArrayList<>();
      for (List<Object> r : run(sql)) got.add(r);
      assertThat(got).as(sql).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  /** The rows b of t with b.s equal to {@code key} (none for NULL: equality never holds). */
  private static List<Object[]> group(Object key) {
    return ROWS.stream().filter(b -> key != null && key.equals(b[5])).toList();
  }

  private static Long maxI32(List<Object[]> g) {
    return g.stream().filter(b -> b[1] != null).map(b -> (long) (Integer) b[1]).max(Long::compare).orElse(null);
  }

  private static Long asLong(Object o) {
    return o == null ? null : ((Number) o).longValue();
  }

  /**
   * A correlated scalar subquery's value for an outer row without inner rows is its value over no rows — counts 0,
   * other aggregates NULL, then its HAVING and SELECT expression — not NULL: each value checked against a
   * brute-force evaluation over the rows (these were refused, or answered NULL, before).
   */
  @Test
  void correlatedScalarSubqueryOverNoRowsHasItsValueOverNothing() {
    record Case(String sub, java.util.function.Function<Object[], Long> expected) {}
    List<Case> cases = List.of(
        new Case("SELECT count(*) + 1 FROM t b WHERE b.s = a.s", a -> group(a[5]).size() + 1L),
        new Case("SELECT max(b.i32) FROM t b WHERE b.s = a.s HAVING count(b.i8) > 1", a -> {
          List<Object[]> g = group(a[5]);
          return g.stream().filter(b -> b[0] != null).count() > 1 ? maxI32(g) : null;
        }),
        new Case("SELECT coalesce(max(b.i32), count(*)) FROM t b WHERE b.s = a.s", a -> {
          Long m = maxI32(group(a[5]));
          return m != null ? m : (long) group(a[5]).size();
        }),
        new Case("SELECT coalesce(max(b.i32), -7) FROM t b WHERE b.s = a.s || 'zz'", a -> {
          Long m = maxI32(group(a[5] == null ? null : a[5] + "zz"));
          return m != null ? m : -7L;
        }),
        new Case("SELECT coalesce(max(b.i32), -1) FROM t b WHERE b.s = a.s HAVING count(*) = 0",
            a -> group(a[5]).isEmpty() ? -1L : null));
    for (Case c : cases) {
      String sql = "SELECT a.i32, (" + c.sub() + ") FROM t a";
      List<List<Object>> expected = new ArrayList<>();
      for (Object[] a : ROWS) expected.add(java.util.Arrays.asList(asLong(a[1]), c.expected().apply(a)));
      List<List<Object>> got = new ArrayList<>();
      for (List<Object> r : run(sql)) got.add(java.util.Arrays.asList(asLong(r.get(0)), asLong(r.get(1))));
      assertThat(got).as(sql).containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThat(ROWS).as("some outer rows find no inner rows").anyMatch(a -> group(a[5]).isEmpty());
  }
}
