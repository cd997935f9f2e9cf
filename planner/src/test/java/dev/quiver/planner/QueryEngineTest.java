package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.plan.LogicalPlan;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Planning and execution over small Parquet tables; expected values by brute force over the rows. SQL in, rows,
 * plans or errors out lives in {@code src/test/resources/slt} ({@code SltFilesTest}).
 */
class QueryEngineTest extends EngineTest {

  private List<List<Object>> run(String sql) {
    return TestTables.run(engine, allocator, sql);
  }

  private long count(String where) {
    return (Long) run("SELECT count(*) FROM t WHERE " + where).get(0).get(0);
  }

  private static long expected(Predicate<Object[]> p) {
    return TestTables.rows().stream().filter(p).count();
  }

  private LogicalPlan.TableScan scan(String sql) {
    LogicalPlan p = engine.prepare(sql, allocator).plan();
    while (!(p instanceof LogicalPlan.TableScan s)) p = p.children().get(0);
    return s;
  }

  @Test
  void comparisonsMatchBruteForceWithNullsNanAndSignedZero() {
    assertThat(count("i32 < 5")).isEqualTo(expected(r -> r[1] != null && (Integer) r[1] < 5));
    assertThat(count("i32 <> 0")).isEqualTo(expected(r -> r[1] != null && (Integer) r[1] != 0));
    assertThat(count("f64 = 0.0")).isEqualTo(expected(r -> r[3] != null && (Double) r[3] == 0.0)); // -0.0 = 0.0
    assertThat(count("f64 = CAST('NaN' AS DOUBLE)")).isEqualTo(expected(r -> r[3] != null && ((Double) r[3]).isNaN()));
    assertThat(count("f64 > 1e308")).isEqualTo(expected(r -> r[3] != null
        && (((Double) r[3]).isNaN() || (Double) r[3] > 1e308))); // NaN is above +Infinity
    assertThat(count("NOT (i32 IN (1, 5, NULL))")).isEqualTo(0);
    assertThat(count("i32 NOT IN (1, 5)")).isEqualTo(expected(r -> r[1] != null && (Integer) r[1] != 1 && (Integer) r[1] != 5));
    assertThat(count("s IS NULL OR i8 BETWEEN -50 AND 50"))
        .isEqualTo(expected(r -> r[5] == null || (r[0] != null && Math.abs((Integer) r[0]) <= 50)));
    assertThat(count("b")).isEqualTo(expected(r -> Objects.equals(r[7], true)));
    assertThat(count("d >= '1970-01-01'")).isEqualTo(expected(r -> r[6] != null));
  }

  @Test
  void aggregatesIgnoreNulls() {
    List<Object> r = run("SELECT count(*), count(i32), sum(i64), min(i32), max(s), avg(i8) FROM t").get(0);
    List<Object[]> rows = TestTables.rows();
    assertThat(r.get(0)).isEqualTo((long) rows.size());
    assertThat(r.get(1)).isEqualTo(rows.stream().filter(x -> x[1] != null).count());
    assertThat(r.get(2)).isEqualTo(rows.stream().filter(x -> x[2] != null).mapToLong(x -> (Long) x[2]).sum());
    assertThat(r.get(3)).isEqualTo(Integer.MIN_VALUE);
    assertThat(r.get(4).toString()).isEqualTo(rows.stream().filter(x -> x[5] != null).map(x -> (String) x[5]).max(String::compareTo).get());
    assertThat((Double) r.get(5)).isCloseTo(rows.stream().filter(x -> x[0] != null).mapToInt(x -> (Integer) x[0]).average().getAsDouble(),
        org.assertj.core.data.Offset.offset(1e-12));
    assertThat(run("SELECT sum(i32), min(s), count(s) FROM t WHERE i32 > 2147483647").get(0)).containsExactly(null, null, 0L);
  }

  @Test
  void coercionInsertsCastsAndFoldingMakesThemLiterals() {
    PreparedQuery q = engine.prepare("SELECT i32 FROM t WHERE i32 = 5000000000 AND i64 = 5 AND dec < 1.5", allocator);
    String analyzed = String.join("\n", QueryEngine.render(q.analyzed()));
    assertThat(analyzed).contains("CAST(i32 AS BIGINT) = 5000000000", "i64 = CAST(5 AS BIGINT)",
        "dec < CAST(1.5 AS DECIMAL(10,2))");
    LogicalPlan.TableScan scan = scan("SELECT i32 FROM t WHERE i64 = 5 AND dec < 1.5 AND d < '2020-01-01'");
    assertThat(scan.predicate().toString()).isEqualTo("i64 = 5 AND dec < 1.50 AND d < DATE '2020-01-01'");
    assertThat(scan.residual()).isNull();
  }

  @Test
  void pushdownTakesBareColumnConjunctsAndKeepsTheRest() {
    LogicalPlan.TableScan s = scan("SELECT s FROM t WHERE 5 > i32 AND (s = 'a' OR s IS NULL) AND i32 + 1 > 2 AND NOT b");
    assertThat(s.predicate().toString()).isEqualTo("i32 < 5 AND (s = 'a' OR s IS NULL) AND NOT (b = TRUE)");
    assertThat(s.residual().toString()).isEqualTo("(i32 + 1) > 2");
    // the scan evaluates the pushed conjuncts itself (reading b for that only); i32 is output for the residual
    assertThat(s.exact().toString()).isEqualTo("[i32 < 5, s = 'a' OR s IS NULL, NOT b]");
    assertThat(s.columns()).containsExactly("i32", "s");
    // never TRUE: nothing is read at all
    assertThat(QueryEngine.render(engine.prepare("SELECT s FROM t WHERE i32 = NULL", allocator).plan())).contains("  EmptyRelation");
    // NOT IN with a NULL item is never TRUE either; the simplifier leaves it (contract v221), pruning does not
    assertThat(scan("SELECT s FROM t WHERE i32 NOT IN (1, NULL)").predicate().toString()).isEqualTo("FALSE");
    assertThat(count("i32 = NULL")).isZero();
  }

  @Test
  void parametersAreTypedByContextAndPlannedLikeLiterals() {
    String sql = "SELECT i32 FROM t WHERE i64 < ? AND d >= ? AND s = ? AND i8 IN (?, ?) AND f64 > ?";
    PreparedQuery unbound = engine.prepare(sql, allocator);
    assertThat(unbound.parameterTypes()).containsExactly(dev.quiver.planner.types.SqlTypes.BIGINT,
        dev.quiver.planner.types.SqlTypes.DATE, dev.quiver.planner.types.SqlTypes.VARCHAR,
        dev.quiver.planner.types.SqlTypes.BIGINT, dev.quiver.planner.types.SqlTypes.BIGINT,
        dev.quiver.planner.types.SqlTypes.DOUBLE);
    PreparedQuery bound = engine.prepare(sql, allocator, QuerySettings.DEFAULT,
        java.util.Arrays.asList(5L, 18_005L, "s1", 1L, 300L, 0.5));
    LogicalPlan.TableScan literal = scan("SELECT i32 FROM t WHERE i64 < 5 AND d >= DATE '2019-04-19' AND s = 's1' "
        + "AND i8 IN (1, 300) AND f64 > 0.5");
    LogicalPlan p = bound.plan();
    while (!(p instanceof LogicalPlan.TableScan)) p = p.children().get(0);
    assertThat(((LogicalPlan.TableScan) p).predicate()).isEqualTo(literal.predicate());
    assertThat(literal.predicate().toString()).contains("i8 = 1", "i64 < 5"); // 300 is no TINYINT: dropped
    assertThat(TestTables.run(engine, allocator, "SELECT ?, ? + 1").size()).isEqualTo(1);
  }


  @Test
  void explainAnalyzeShowsTheOnePlanBuiltAndItsTime() {
    long before = engine.plansBuilt();
    List<String> lines = run("EXPLAIN ANALYZE SELECT s, count(*) FROM t GROUP BY s").stream().map(r -> r.get(0).toString()).toList();
    assertThat(engine.plansBuilt() - before).isEqualTo(1);
    String last = lines.get(lines.size() - 1);
    assertThat(last).matches("Planning: plans_built=1 planning_ms=\\d+\\.\\d{3}");
    assertThat(Double.parseDouble(last.substring(last.indexOf("planning_ms=") + 12))).isPositive();
    // a plain EXPLAIN runs nothing and reports no metrics
    assertThat(run("EXPLAIN SELECT s FROM t").stream().map(r -> r.get(0).toString())).noneMatch(l -> l.startsWith("Planning:"));
  }
}
