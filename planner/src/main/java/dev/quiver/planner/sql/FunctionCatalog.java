package dev.quiver.planner.sql;

import java.util.List;
import java.util.Locale;

/**
 * The functions a user can call, by the names SQL text uses (aliases included), in the categories JDBC's
 * {@code getNumericFunctions} / {@code getStringFunctions} / {@code getTimeDateFunctions} /
 * {@code getSystemFunctions} report. Each entry names the registered function it binds to and an example
 * call; a test runs every example and checks that every registered function is listed, so the lists
 * clients see cannot drift from what the binder accepts.
 */
public final class FunctionCatalog {
  public enum Category { NUMERIC, STRING, DATETIME, SYSTEM, AGGREGATE }

  /**
   * A callable name; {@code implementation} is the {@code kernel.Functions} definition it binds to (null for
   * aggregates, which the binder maps to its own operators); {@code example} is an expression that calls it.
   */
  public record Entry(String name, Category category, String implementation, String example) {}

  /**
   * Registered functions that SQL reaches only through syntax, not by name: {@code ts + INTERVAL '1' DAY},
   * {@code x LIKE p ESCAPE e}.
   */
  public static final List<String> INTERNAL = List.of("add_interval", "like_escape");

  public static final List<Entry> ENTRIES = List.of(
      new Entry("abs", Category.NUMERIC, "abs", "abs(-2)"),
      new Entry("round", Category.NUMERIC, "round", "round(2.567, 2)"),
      new Entry("pow", Category.NUMERIC, "pow", "pow(2, 10)"),
      new Entry("power", Category.NUMERIC, "pow", "power(2.5, 2)"),
      new Entry("random", Category.NUMERIC, "random", "random()"),
      new Entry("concat", Category.STRING, "concat_op", "concat('a', 'b', 'c')"),
      new Entry("length", Category.STRING, "length", "length('abc')"),
      new Entry("lower", Category.STRING, "lower", "lower('ABC')"),
      new Entry("position", Category.STRING, "strpos", "position('b' IN 'abc')"),
      new Entry("regexp_like", Category.STRING, "regexp_like", "regexp_like('abc', 'b+')"),
      new Entry("regexp_matches", Category.STRING, "regexp_like", "regexp_matches('abc', 'b+')"),
      new Entry("strpos", Category.STRING, "strpos", "strpos('abc', 'b')"),
      new Entry("substr", Category.STRING, "substring", "substr('abc', 2, 1)"),
      new Entry("substring", Category.STRING, "substring", "substring('abc' FROM 2 FOR 1)"),
      new Entry("trim", Category.STRING, "trim", "trim(' abc ')"),
      new Entry("upper", Category.STRING, "upper", "upper('abc')"),
      new Entry("current_date", Category.DATETIME, "current_date", "current_date"),
      new Entry("current_timestamp", Category.DATETIME, "now", "current_timestamp"),
      new Entry("date_part", Category.DATETIME, "date_part", "date_part('year', DATE '2024-03-01')"),
      new Entry("date_trunc", Category.DATETIME, "date_trunc", "date_trunc('month', DATE '2024-03-15')"),
      new Entry("datepart", Category.DATETIME, "date_part", "datepart('month', DATE '2024-03-01')"),
      new Entry("extract", Category.DATETIME, "date_part", "extract(year FROM DATE '2024-03-01')"),
      new Entry("now", Category.DATETIME, "now", "now()"),
      new Entry("coalesce", Category.SYSTEM, "coalesce", "coalesce(CAST(NULL AS INTEGER), 1)"),
      new Entry("nullif", Category.SYSTEM, "nullif", "nullif(1, 2)"),
      new Entry("approx_count_distinct", Category.AGGREGATE, null, "approx_count_distinct(1)"),
      new Entry("approx_percentile", Category.AGGREGATE, null, "approx_percentile(1, 0.5)"),
      new Entry("approx_quantile", Category.AGGREGATE, null, "approx_quantile(1, 0.5)"),
      new Entry("arg_max", Category.AGGREGATE, null, "arg_max('a', 1)"),
      new Entry("arg_min", Category.AGGREGATE, null, "arg_min('a', 1)"),
      new Entry("avg", Category.AGGREGATE, null, "avg(1)"),
      new Entry("bool_and", Category.AGGREGATE, null, "bool_and(true)"),
      new Entry("bool_or", Category.AGGREGATE, null, "bool_or(true)"),
      new Entry("corr", Category.AGGREGATE, null, "corr(1, 2)"),
      new Entry("count", Category.AGGREGATE, null, "count(*)"),
      new Entry("covar_pop", Category.AGGREGATE, null, "covar_pop(1, 2)"),
      new Entry("covar_samp", Category.AGGREGATE, null, "covar_samp(1, 2)"),
      new Entry("every", Category.AGGREGATE, null, "every(true)"),
      new Entry("listagg", Category.AGGREGATE, null, "listagg('a', ',')"),
      new Entry("max", Category.AGGREGATE, null, "max(1)"),
      new Entry("max_by", Category.AGGREGATE, null, "max_by('a', 1)"),
      new Entry("median", Category.AGGREGATE, null, "median(1)"),
      new Entry("min", Category.AGGREGATE, null, "min(1)"),
      new Entry("min_by", Category.AGGREGATE, null, "min_by('a', 1)"),
      new Entry("percentile_cont", Category.AGGREGATE, null, "percentile_cont(0.5) WITHIN GROUP (ORDER BY 1)"),
      new Entry("percentile_disc", Category.AGGREGATE, null, "percentile_disc(0.5) WITHIN GROUP (ORDER BY 1)"),
      new Entry("quantile_cont", Category.AGGREGATE, null, "quantile_cont(1, 0.5)"),
      new Entry("quantile_disc", Category.AGGREGATE, null, "quantile_disc(1, 0.5)"),
      new Entry("regr_avgx", Category.AGGREGATE, null, "regr_avgx(1, 2)"),
      new Entry("regr_avgy", Category.AGGREGATE, null, "regr_avgy(1, 2)"),
      new Entry("regr_count", Category.AGGREGATE, null, "regr_count(1, 2)"),
      new Entry("regr_intercept", Category.AGGREGATE, null, "regr_intercept(1, 2)"),
      new Entry("regr_r2", Category.AGGREGATE, null, "regr_r2(1, 2)"),
      new Entry("regr_slope", Category.AGGREGATE, null, "regr_slope(1, 2)"),
      new Entry("regr_sxx", Category.AGGREGATE, null, "regr_sxx(1, 2)"),
      new Entry("regr_sxy", Category.AGGREGATE, null, "regr_sxy(1, 2)"),
      new Entry("regr_syy", Category.AGGREGATE, null, "regr_syy(1, 2)"),
      new Entry("stddev", Category.AGGREGATE, null, "stddev(1)"),
      new Entry("stddev_pop", Category.AGGREGATE, null, "stddev_pop(1)"),
      new Entry("stddev_samp", Category.AGGREGATE, null, "stddev_samp(1)"),
      new Entry("string_agg", Category.AGGREGATE, null, "string_agg('a', ',')"),
      new Entry("sum", Category.AGGREGATE, null, "sum(1)"),
      new Entry("var_pop", Category.AGGREGATE, null, "var_pop(1)"),
      new Entry("var_samp", Category.AGGREGATE, null, "var_samp(1)"),
      new Entry("variance", Category.AGGREGATE, null, "variance(1)"));

  private FunctionCatalog() {}

  /** The names in {@code category}, upper case as JDBC lists them, in order. */
  public static List<String> names(Category category) {
    return ENTRIES.stream().filter(e -> e.category() == category).map(e -> e.name().toUpperCase(Locale.ROOT))
        .sorted().toList();
  }
}
