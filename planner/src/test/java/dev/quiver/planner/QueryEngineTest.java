package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Planning and execution over small Parquet tables; expected values by brute force over the rows. */
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
  void threeValuedLogicFollowsTheTruthTables() {
    List<String> got = new ArrayList<>();
    for (List<Object> r : run("SELECT x, y, x AND y, x OR y, NOT x FROM bools")) got.add(r.toString());
    // SQL's Kleene logic, written out
    assertThat(got).containsExactlyInAnyOrder(
        "[true, true, true, true, false]", "[true, false, false, true, false]", "[true, null, null, true, false]",
        "[false, true, false, true, true]", "[false, false, false, false, true]", "[false, null, false, null, true]",
        "[null, true, null, true, null]", "[null, false, false, null, null]", "[null, null, null, null, null]");
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
  void castOfALiteralFailsAtPlanningOtherErrorsWaitForRows() {
    assertThatThrownBy(() -> engine.prepare("SELECT CAST('x1' AS INTEGER) FROM t", allocator))
        .isInstanceOf(QuiverException.class).hasMessageContaining("invalid INTEGER value: 'x1'");
    // 1/0 cannot be folded; with no rows it never runs
    assertThat(run("SELECT i32 / 0 FROM t WHERE i32 > 2147483647")).isEmpty();
    assertThatThrownBy(() -> run("SELECT i32 / 0 FROM t")).isInstanceOf(QuiverException.class)
        .hasMessageContaining("division by zero")
        .satisfies(e -> assertThat(((QuiverException) e).code()).isEqualTo(ErrorCode.DATA_ERROR));
    assertThatThrownBy(() -> run("SELECT i32 + i32 FROM t")).hasMessageContaining("INTEGER out of range");
    assertThat(run("SELECT TRY_CAST(s AS INTEGER) FROM t WHERE s = 's1'")).allMatch(r -> r.get(0) == null);
  }

  @Test
  void foldingUsesTheKernels() {
    PreparedQuery q = engine.prepare("SELECT 1 + 2 * 3 AS x, CAST('2020-02-30' AS VARCHAR) AS y, -(-5) AS z", allocator);
    assertThat(((LogicalPlan.Project) q.plan()).exprs().stream().map(n -> n.expr().toString()))
        .containsExactly("7", "'2020-02-30'", "5");
    assertThat(run("SELECT 1 + 2 * 3, 7 / 2, -7 % 3, 1.50 * 2, 10 / 4.0").get(0).toString())
        .isEqualTo("[7, 3, -1, 3.00, 2.5]");
    // decimals run on unscaled longs while they fit, and fall back to exact BigDecimal when they do not
    assertThat(run("SELECT CAST(99999999.99 AS DECIMAL(10,2)) * CAST(99999999.99 AS DECIMAL(10,2)), "
        + "CAST(0.10 AS DECIMAL(3,2)) + CAST(0.005 AS DECIMAL(4,3)), CAST(1.5 AS DECIMAL(2,1)) < CAST(1.25 AS DECIMAL(3,2))")
        .get(0).toString()).isEqualTo("[9999999998000000.0001, 0.105, false]");
    java.math.BigDecimal big = new java.math.BigDecimal("10000000000000000000");
    assertThat(run("SELECT sum(dec * CAST(10000000000000000000 AS DECIMAL(20,0))) FROM t").get(0).get(0))
        .isEqualTo(TestTables.rows().stream().filter(r -> r[4] != null)
            .map(r -> java.math.BigDecimal.valueOf((Long) r[4], 2).multiply(big)).reduce(java.math.BigDecimal.ZERO,
                java.math.BigDecimal::add));
    assertThat(run("SELECT sum(dec), avg(dec), min(dec) FROM t WHERE dec > CAST(-5 AS DECIMAL(10,2))").get(0).get(0))
        .isEqualTo(TestTables.rows().stream().filter(r -> r[4] != null && (Long) r[4] > -500)
            .map(r -> java.math.BigDecimal.valueOf((Long) r[4], 2)).reduce(java.math.BigDecimal.ZERO, java.math.BigDecimal::add));
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
  void limitAndOffset() {
    int n = TestTables.rows().size();
    assertThat(run("SELECT i32 FROM t LIMIT 3")).hasSize(3);
    assertThat(run("SELECT i32 FROM t LIMIT 100 OFFSET " + (n - 2))).hasSize(2);
    assertThat(run("SELECT i32 FROM t LIMIT 0")).isEmpty();
    assertThat(run("SELECT s FROM t OFFSET 10")).hasSize(n - 10);
  }

  @Test
  void errorsNameTheProblemAndWhere() {
    assertThatThrownBy(() -> engine.prepare("SELECT i32,\n  nope\nFROM t", allocator))
        .hasMessage("column nope does not exist in table t at 2:3");
    assertThatThrownBy(() -> engine.prepare("SELECT i32 FROM t WHERE", allocator))
        .satisfies(e -> assertThat(((QuiverException) e).code()).isEqualTo(ErrorCode.SYNTAX_ERROR))
        .hasMessageStartingWith("syntax error at 1:");
    assertThatThrownBy(() -> engine.prepare("EXPLAIN SELECT nope FROM t", allocator))
        .hasMessageEndingWith("at 1:16"); // positions still count from the start of the user's text
    assertThatThrownBy(() -> engine.prepare("SELECT sum(s) FROM t", allocator))
        .hasMessageContaining("function sum is not defined for VARCHAR");
    assertThatThrownBy(() -> engine.prepare("SELECT count(*) FROM t WHERE count(*) > 1", allocator))
        .hasMessageContaining("aggregate function count is not allowed here");
  }

  @Test
  void explainListsBothPlans() {
    List<String> lines = run("EXPLAIN SELECT i32 FROM t WHERE i32 > 3").stream().map(r -> r.get(0).toString()).toList();
    assertThat(lines).contains("== Optimized Logical Plan ==", "== Physical Plan ==");
    assertThat(lines).anyMatch(l -> l.contains("ParquetScanExec: table=t") && l.contains("predicate=i32 > 3"));
    List<String> analyzed = run("EXPLAIN ANALYZE SELECT i32 FROM t WHERE i32 > 3").stream().map(r -> r.get(0).toString()).toList();
    assertThat(analyzed).anyMatch(l -> l.contains("row_groups_total=7") && l.contains("output_rows="));
    assertThat(Arrays.asList(TestTables.I32)).hasSize(8);
  }
}
