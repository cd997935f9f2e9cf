package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.types.SqlTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

/**
 * How the analytic aggregates bind: their result types and nullability, their arguments (read as DOUBLE where the
 * statistic is computed in DOUBLE), one output per distinct call, and what EXPLAIN shows of them.
 */
class AggregateBinderTest extends EngineTest {
  private List<Field> fields(String sql) {
    return engine.prepare(sql, allocator).schema().getFields();
  }

  private List<LogicalPlan.AggregateCall> calls(String sql) {
    List<LogicalPlan.AggregateCall> out = new ArrayList<>();
    collect(engine.prepare(sql, allocator).analyzed(), out);
    return out;
  }

  private static void collect(LogicalPlan p, List<LogicalPlan.AggregateCall> out) {
    if (p instanceof LogicalPlan.Aggregate a) out.addAll(a.aggregates());
    for (LogicalPlan c : p.children()) collect(c, out);
  }

  @Test
  void resultTypesAndNullability() {
    List<Field> f = fields("SELECT median(i8), percentile_cont(0.5) WITHIN GROUP (ORDER BY dec), "
        + "percentile_disc(0.5) WITHIN GROUP (ORDER BY dec), quantile_disc(d, 0.5), approx_quantile(s, 0.5), "
        + "corr(i32, f64), regr_count(i32, f64), approx_count_distinct(s), arg_min(s, d), max_by(dec, i64), "
        + "pow(min(i32), 2) FROM t");
    assertThat(f).extracting(Field::getType).containsExactly(SqlTypes.DOUBLE, SqlTypes.DOUBLE, SqlTypes.decimal(10, 2),
        SqlTypes.DATE, SqlTypes.VARCHAR, SqlTypes.DOUBLE, SqlTypes.BIGINT, SqlTypes.BIGINT, SqlTypes.VARCHAR,
        SqlTypes.decimal(10, 2), SqlTypes.DOUBLE);
    // regr_count and approx_count_distinct are 0 over no rows, never NULL
    assertThat(f).extracting(Field::isNullable).containsExactly(true, true, true, true, true, true, false, false, true,
        true, true);
  }

  @Test
  void equalCallsShareOneOutputAndDifferentOnesDoNot() {
    List<LogicalPlan.AggregateCall> c = calls("SELECT median(i32), median(i32) + 1, quantile_cont(i32, 0.5), "
        + "percentile_cont(0.5) WITHIN GROUP (ORDER BY i32), percentile_cont(0.5) WITHIN GROUP (ORDER BY i32 DESC), "
        + "corr(i32, i64), corr(i64, i32), corr(i32, i64) FROM t");
    assertThat(c).extracting(LogicalPlan.AggregateCall::toString).containsExactly(
        "median(CAST(i32 AS DOUBLE))",
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(i32 AS DOUBLE))",
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(i32 AS DOUBLE) DESC)",
        "corr(CAST(i32 AS DOUBLE), CAST(i64 AS DOUBLE))",
        "corr(CAST(i64 AS DOUBLE), CAST(i32 AS DOUBLE))");
  }

  @Test
  void theFractionIsKeptExactWhenWrittenExactly() {
    List<LogicalPlan.AggregateCall> c = calls("SELECT quantile_disc(i32, 0.28), quantile_disc(i32, 2.8e-1), "
        + "percentile_disc(1) WITHIN GROUP (ORDER BY s DESC) FROM t");
    assertThat(c.get(0).quantile().fraction()).isEqualTo(new java.math.BigDecimal("0.28"));
    assertThat(c.get(1).quantile().fraction()).isEqualTo(0.28);
    assertThat(c.get(2).quantile()).isEqualTo(new LogicalPlan.Quantile(java.math.BigDecimal.ONE, true));
    assertThat(c.get(2).arg()).hasToString("s");
  }

  @Test
  void aFilterOnATwoArgumentAggregateSkipsItsRowsAndTheSecondArgumentIsKept() {
    List<LogicalPlan.AggregateCall> c = calls("SELECT arg_max(s, i32) FILTER (WHERE b), regr_sxy(f64, i8) FROM t");
    assertThat(c.get(0).arg().toString()).startsWith("CASE WHEN b THEN s");
    assertThat(c.get(0).arg2()).hasToString("i32");
    assertThat(c.get(1).exprs()).extracting(Object::toString).containsExactly("f64", "CAST(i8 AS DOUBLE)");
  }
}
