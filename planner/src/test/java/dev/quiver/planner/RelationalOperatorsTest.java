package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Joins, grouping, sorting and subqueries over {@link TestTables}' {@code t} (NULLs, NaN, -0.0, type
 * extremes; 8-row row groups, so every operator sees many batches), each checked against a brute-force
 * evaluation of SQL's semantics over the same rows.
 */
class RelationalOperatorsTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  BufferAllocator allocator = new RootAllocator();
  static final List<Object[]> ROWS = TestTables.rows();

  @BeforeAll
  static void setUp() throws Exception {
    engine = new QueryEngine(TestTables.create(dir));
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private List<String> run(String sql) {
    List<String> out = new ArrayList<>();
    for (List<Object> r : TestTables.run(engine, allocator, sql)) out.add(r.toString());
    return out;
  }

  private static String row(Object... values) {
    List<Object> l = new ArrayList<>();
    for (Object v : values) l.add(v);
    return l.toString();
  }

  /** SQL equality of two doubles: NULL is unknown, -0.0 = 0.0, NaN = NaN. */
  private static Boolean eq(Object a, Object b) {
    if (a == null || b == null) return null;
    if (a instanceof Double x) return x.equals(b) || x == (double) (Double) b;
    return a.equals(b);
  }

  private static int cmpDouble(double a, double b) {
    return a == b ? 0 : Double.compare(a, b);
  }

  @ParameterizedTest
  @ValueSource(strings = {"INNER", "LEFT", "RIGHT", "FULL"})
  void joinsMatchNestedLoops(String type) {
    // join on i32 with an extra condition on f64; the result lists both sides' (i32, f64)
    List<String> expected = new ArrayList<>();
    boolean[] rightMatched = new boolean[ROWS.size()];
    for (Object[] a : ROWS) {
      boolean matched = false;
      for (int j = 0; j < ROWS.size(); j++) {
        Object[] b = ROWS.get(j);
        boolean on = Boolean.TRUE.equals(eq(a[1], b[1])) && a[3] != null && b[3] != null && cmpDouble((Double) a[3], (Double) b[3]) < 0;
        if (on) {
          matched = true;
          rightMatched[j] = true;
          expected.add(row(a[1], a[3], b[1], b[3]));
        }
      }
      if (!matched && (type.equals("LEFT") || type.equals("FULL"))) expected.add(row(a[1], a[3], null, null));
    }
    if (type.equals("RIGHT") || type.equals("FULL")) {
      for (int j = 0; j < ROWS.size(); j++) if (!rightMatched[j]) expected.add(row(null, null, ROWS.get(j)[1], ROWS.get(j)[3]));
    }
    List<String> got = run("SELECT a.i32, a.f64, b.i32, b.f64 FROM t a " + type + " JOIN t b ON a.i32 = b.i32 AND a.f64 < b.f64");
    assertThat(got).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void semiAntiAndNullAwareAntiJoins() {
    // EXISTS with a correlated inequality, NOT EXISTS, IN and NOT IN (the subquery has a NULL: never TRUE)
    long exists = ROWS.stream().filter(a -> ROWS.stream().anyMatch(b -> Boolean.TRUE.equals(eq(a[2], b[2]))
        && a[0] != null && b[0] != null && (Integer) b[0] > (Integer) a[0])).count();
    assertThat(run("SELECT count(*) FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.i64 = a.i64 AND b.i8 > a.i8)"))
        .containsExactly(row(exists));
    assertThat(run("SELECT count(*) FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.i64 = a.i64 AND b.i8 > a.i8)"))
        .containsExactly(row((long) ROWS.size() - exists));
    Set<Integer> positives = new HashSet<>();
    for (Object[] r : ROWS) if (r[1] != null && (Integer) r[1] > 0) positives.add((Integer) r[1]);
    long in = ROWS.stream().filter(r -> r[1] != null && positives.contains(r[1])).count();
    assertThat(run("SELECT count(*) FROM t WHERE i32 IN (SELECT i32 FROM t WHERE i32 > 0)")).containsExactly(row(in));
    long notIn = ROWS.stream().filter(r -> r[1] != null && !positives.contains(r[1])).count();
    assertThat(run("SELECT count(*) FROM t WHERE i32 NOT IN (SELECT i32 FROM t WHERE i32 > 0)")).containsExactly(row(notIn));
    assertThat(run("SELECT count(*) FROM t WHERE i32 NOT IN (SELECT i32 FROM t)")).containsExactly(row(0L));
    assertThat(run("SELECT count(*) FROM t WHERE i32 NOT IN (SELECT i32 FROM t WHERE false)"))
        .containsExactly(row((long) ROWS.size()));
  }

  @Test
  void groupingMatchesBruteForceWithNullGroupsAndNegativeZero() {
    Map<Object, long[]> counts = new HashMap<>();
    Map<Object, Set<Double>> distinct = new HashMap<>();
    Map<Object, Double> max = new HashMap<>();
    for (Object[] r : ROWS) {
      long[] c = counts.computeIfAbsent(r[5], k -> new long[3]);
      c[0]++;
      if (r[1] != null) c[1]++;
      if (r[2] != null) c[2] += (Long) r[2];
      Set<Double> d = distinct.computeIfAbsent(r[5], k -> new HashSet<>());
      if (r[3] != null) d.add((Double) r[3] == 0.0 ? 0.0 : (Double) r[3]);
      if (r[3] != null && (max.get(r[5]) == null || cmpDouble((Double) r[3], max.get(r[5])) > 0)) max.put(r[5], (Double) r[3]);
    }
    List<String> expected = new ArrayList<>();
    for (Object k : counts.keySet()) {
      long[] c = counts.get(k);
      expected.add(row(k, c[0], c[1], c[2], (long) distinct.get(k).size(), max.get(k)));
    }
    assertThat(run("SELECT s, count(*), count(i32), sum(i64), count(DISTINCT f64), max(f64) FROM t GROUP BY s"))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(run("SELECT s, count(*) FROM t WHERE false GROUP BY s")).isEmpty();
    assertThat(run("SELECT count(*), sum(i64) FROM t WHERE false")).containsExactly(row(0L, null));
  }

  @Test
  void sortOrdersNullsNanAndTiesLikeAComparator() {
    Comparator<Object[]> byF64DescNullsFirst = (x, y) -> {
      if (x[3] == null || y[3] == null) return x[3] == null ? (y[3] == null ? 0 : -1) : 1;
      return -cmpDouble((Double) x[3], (Double) y[3]);
    };
    Comparator<Object[]> order = byF64DescNullsFirst.thenComparing((x, y) -> {
      if (x[2] == null || y[2] == null) return x[2] == null ? (y[2] == null ? 0 : 1) : -1; // ASC NULLS LAST
      return Long.compare((Long) x[2], (Long) y[2]);
    });
    List<Object[]> sorted = new ArrayList<>(ROWS);
    sorted.sort(order);
    List<String> expected = new ArrayList<>();
    for (Object[] r : sorted) expected.add(row(r[3], r[2]));
    assertThat(run("SELECT f64, i64 FROM t ORDER BY f64 DESC NULLS FIRST, i64")).containsExactlyElementsOf(expected);
    assertThat(run("SELECT f64, i64 FROM t ORDER BY f64 DESC NULLS FIRST, i64 LIMIT 5 OFFSET 3"))
        .containsExactlyElementsOf(expected.subList(3, 8));
    assertThat(run("SELECT f64, i64 FROM t ORDER BY 1 DESC NULLS FIRST, 2 LIMIT 0")).isEmpty();
  }

  @Test
  void setOperationsAndDistinct() {
    Set<Object> s = new HashSet<>();
    for (Object[] r : ROWS) s.add(r[5]);
    assertThat(run("SELECT DISTINCT s FROM t")).hasSize(s.size());
    assertThat(run("SELECT s FROM t UNION SELECT s FROM t")).hasSize(s.size());
    assertThat(run("SELECT s FROM t UNION ALL SELECT s FROM t")).hasSize(2 * ROWS.size());
    // EXCEPT / INTERSECT compare NULLs as equal
    assertThat(run("SELECT s FROM t EXCEPT SELECT s FROM t WHERE s IS NOT NULL")).containsExactly(row((Object) null));
    assertThat(run("SELECT s FROM t INTERSECT SELECT s FROM t WHERE s IS NULL")).containsExactly(row((Object) null));
  }

  @Test
  void correlatedScalarSubqueryCountsEmptyGroupsAsZero() {
    List<String> expected = new ArrayList<>();
    for (Object[] a : ROWS) {
      long n = ROWS.stream().filter(b -> Objects.equals(b[5], a[5]) && a[5] != null && b[1] != null && (Integer) b[1] > 5).count();
      expected.add(row(a[1], n));
    }
    assertThat(run("SELECT a.i32, (SELECT count(*) FROM t b WHERE b.s = a.s AND b.i32 > 5) FROM t a"))
        .containsExactlyInAnyOrderElementsOf(expected);
  }
}
