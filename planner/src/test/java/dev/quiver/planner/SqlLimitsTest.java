package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quiver.planner.sql.SqlLimits;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits of {@link SqlLimits}: each one holds at its value, fails one past it with INVALID_QUERY and a
 * message naming the limit (with {@code line:column} where there is one), and long AND / OR chains, which
 * are bound without recursion, are not limited by the nesting depth.
 */
class SqlLimitsTest {
  @TempDir
  static Path dir;
  static Catalog catalog;
  static QueryEngine engine;
  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void setUp() throws Exception {
    catalog = TestTables.create(dir);
    engine = new QueryEngine(catalog);
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private QuiverException error(QueryEngine e, String sql) {
    QuiverException x = catchThrowableOfType(QuiverException.class, () -> TestTables.run(e, allocator, sql));
    assertThat(x).as(sql.length() > 200 ? sql.substring(0, 200) : sql).isNotNull();
    return x;
  }

  private long count(QueryEngine e, String sql) {
    return (Long) TestTables.run(e, allocator, sql).get(0).get(0);
  }

  @Test
  void statementSizeInUtf8Bytes() {
    QueryEngine small = new QueryEngine(catalog, QuerySettings.DEFAULT, SqlLimits.DEFAULT.withMaxStatementBytes(100));
    String prefix = "SELECT count(*) FROM t WHERE s <> '";
    String fits = prefix + "x".repeat(100 - prefix.length() - 1) + "'";
    assertThat(fits.length()).isEqualTo(100);
    assertThat(count(small, fits)).isPositive();
    assertThat(count(small, prefix + "é".repeat(32) + "'")).isPositive(); // 35 + 64 + 1 = 100 bytes
    QuiverException e = error(small, prefix + "é".repeat(33) + "'"); // 102 bytes
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).isEqualTo("the statement is 102 bytes, over the limit of 100 bytes per statement");
    // the default, 1 MiB: refused before any parsing, however large
    long start = System.nanoTime();
    e = error(engine, "SELECT '" + "x".repeat(8 << 20) + "'");
    assertThat(e.getMessage()).contains("over the limit of 1048576 bytes per statement");
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000);
  }

  /** n SELECTs nested as derived tables in FROM (these cost nothing to parse). */
  private static String nestedSelects(int n) {
    String sql = "SELECT i32 FROM t";
    for (int i = 1; i < n; i++) sql = "SELECT i32 FROM (" + sql + ") d" + i;
    return "SELECT count(*) FROM (" + sql + ") top";
  }

  @Test
  void subqueryDepthIsASqlLimit() {
    assertThat(SqlLimits.DEFAULT.maxSubqueryDepth()).isEqualTo(64);
    QueryEngine shallow = new QueryEngine(catalog, QuerySettings.DEFAULT, SqlLimits.DEFAULT.withMaxSubqueryDepth(4));
    long all = count(engine, "SELECT count(*) FROM t");
    assertThat(count(shallow, nestedSelects(3))).isEqualTo(all); // 4 SELECTs with the outer one
    QuiverException e = error(shallow, nestedSelects(4));
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).isEqualTo("subqueries are nested more than 4 levels deep");
    assertThat(count(engine, nestedSelects(4))).isEqualTo(all);
  }

  @Test
  void nestingOfParenthesesAndCaseInTheText() {
    QueryEngine shallow = new QueryEngine(catalog, QuerySettings.DEFAULT, SqlLimits.DEFAULT.withMaxNestingDepth(20));
    assertThat(count(shallow, "SELECT count(*) FROM t WHERE " + "(".repeat(20) + "i32 = 1" + ")".repeat(20))).isPositive();
    QuiverException e = error(shallow, "SELECT count(*) FROM t WHERE\n  " + "(".repeat(21) + "i32 = 1" + ")".repeat(21));
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).isEqualTo("expression nested too deeply (limit 20) at 2:23");
    // CASE … END nests like a parenthesis; quotes and comments do not count
    String cases = "CASE WHEN b THEN ".repeat(21) + "1" + " END".repeat(21);
    assertThat(error(shallow, "SELECT " + cases + " FROM t").getMessage()).startsWith("expression nested too deeply (limit 20) at 1:");
    assertThat(count(shallow, "SELECT count(*) AS \"" + "(".repeat(50) + "\" FROM t WHERE s <> '" + "(".repeat(50)
        + "' -- " + "(".repeat(50) + "\n AND s IS NOT NULL /* " + "CASE ".repeat(50) + " */")).isPositive();
  }

  @Test
  void defaultNestingFailsCleanlyWhereTheParserAndTheBinderWouldOverflow() {
    int deep = SqlLimits.DEFAULT_MAX_NESTING_DEPTH + 1;
    for (String sql : List.of(
        "SELECT * FROM t WHERE " + "(".repeat(5_000) + "i32 = 1" + ")".repeat(5_000),
        "SELECT " + "CASE WHEN b THEN ".repeat(deep) + "1" + " END".repeat(deep) + " FROM t",
        "SELECT " + "abs(".repeat(deep) + "i32" + ")".repeat(deep) + " FROM t")) {
      QuiverException e = error(engine, sql);
      assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
      assertThat(e.getMessage()).startsWith("expression nested too deeply (limit 256) at 1:");
    }
  }

  @Test
  void depthOfTheBoundExpression() {
    // a chain of + nests without parentheses: the binder counts it
    String chain = "SELECT count(*) FROM t WHERE i64 < 0" + " + i8".repeat(250);
    assertThat(count(engine, chain)).isGreaterThanOrEqualTo(0);
    QuiverException e = error(engine, "SELECT 1" + " + i8".repeat(3_000) + " FROM t");
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).isEqualTo("expression nested too deeply (limit 256)");
    assertThat(error(engine, "SELECT s" + " || s".repeat(1_000) + " FROM t").getMessage())
        .isEqualTo("expression nested too deeply (limit 256)");
  }

  @Test
  void longAndOrChainsAreNotNesting() {
    String ors = "i32 = 1" + " OR i32 = 5".repeat(10_000);
    assertThat(count(engine, "SELECT count(*) FROM t WHERE " + ors))
        .isEqualTo(TestTables.rows().stream().filter(r -> r[1] != null && ((Integer) r[1] == 1 || (Integer) r[1] == 5)).count());
    String ands = "i32 IS NOT NULL" + " AND i64 IS NOT NULL".repeat(10_000);
    assertThat(count(engine, "SELECT count(*) FROM t WHERE " + ands))
        .isEqualTo(TestTables.rows().stream().filter(r -> r[1] != null).count());
    // in the select list too, where the column is named after the expression
    List<List<Object>> rows = TestTables.run(engine, allocator, "SELECT " + ands + " FROM t WHERE i32 = 5");
    assertThat(rows).isNotEmpty().allSatisfy(r -> assertThat(r.get(0)).isEqualTo(true));
  }

  @Test
  void inListItems() {
    QueryEngine few = new QueryEngine(catalog, QuerySettings.DEFAULT, SqlLimits.DEFAULT.withMaxInListItems(10));
    assertThat(count(few, "SELECT count(*) FROM t WHERE i32 IN (" + "7, ".repeat(9) + "5)")).isPositive();
    QuiverException e = error(few, "SELECT count(*) FROM t WHERE i32 IN (" + "7, ".repeat(10) + "5)");
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).isEqualTo("an IN list of 11 items is over the limit of 10 items at 1:34");
    // the default takes 10,000 items in its stride
    assertThat(count(engine, "SELECT count(*) FROM t WHERE i32 IN (" + "7, ".repeat(9_999) + "5)"))
        .isEqualTo(TestTables.rows().stream().filter(r -> r[1] != null && ((Integer) r[1] == 5 || (Integer) r[1] == 7)).count());
  }

  @Test
  void joinedRelations() {
    String tables = "t t0" + ", t".repeat(SqlLimits.DEFAULT_MAX_RELATIONS - 1);
    assertThat(TestTables.run(engine, allocator, "EXPLAIN SELECT count(*) FROM " + tables)).isNotEmpty();
    QuiverException e = error(engine, "SELECT count(*) FROM " + tables + ", bools");
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).isEqualTo("the statement joins more than 128 tables and subqueries (limit 128)");
  }

  @Test
  void intersectAndExceptNestButUnionChainsDoNot() {
    String excepts = "SELECT s FROM t" + " EXCEPT SELECT 'x'".repeat(SqlLimits.DEFAULT_MAX_NESTING_DEPTH + 1);
    assertThat(error(engine, excepts).getMessage())
        .isEqualTo("more than 256 INTERSECT and EXCEPT operations in one query (limit 256)");
    assertThat(count(engine, "SELECT count(*) FROM (SELECT 1 AS x" + " UNION ALL SELECT 1".repeat(3_000) + ") u"))
        .isEqualTo(3_001);
    assertThat(count(engine, "SELECT count(*) FROM (SELECT 1 AS x" + " UNION SELECT 2 UNION ALL SELECT 1".repeat(1_000)
        + ") u")).isEqualTo(3); // DISTINCT {1, 2} up to the last UNION, then UNION ALL 1
  }

  @Test
  void parseCostIsCountedBeforeParsingNotTimed() {
    // the analysis repeats a correlated subquery once per level it is nested in: 30 levels are refused from the
    // statement's tokens, before parsing, however busy the machine is
    long start = System.nanoTime();
    String deep = "SELECT " + "(SELECT ".repeat(30) + "1" + ")".repeat(30);
    QuiverException e = error(engine, deep);
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).startsWith("the statement is too complex to parse: its subqueries nested in expressions cost ")
        .endsWith("over the limit of 100000 (each level of subquery nesting multiplies the cost by 5; the "
            + "deepest, 30 levels, is at 1:241)");
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000);
    // within the limit: 7 levels plan, however slowly the machine runs; 8 do not
    assertThat(TestTables.run(engine, allocator, "SELECT " + "(SELECT ".repeat(7) + "7" + ")".repeat(7)))
        .containsExactly(List.of(7));
    assertThat(error(engine, "SELECT " + "(SELECT ".repeat(8) + "7" + ")".repeat(8)).getMessage())
        .isEqualTo("the statement is too complex to parse: its subqueries nested in expressions cost 488281 units, over the "
            + "limit of 100000 (each level of subquery nesting multiplies the cost by 5; the deepest, 8 levels, "
            + "is at 1:65)");
    // redundant parentheses cost nothing (JSqlParser 5.3 rescanned a subquery once per parenthesis around it)
    assertThat(TestTables.run(engine, allocator, "SELECT " + "(".repeat(40) + "(SELECT 7)" + ")".repeat(40)))
        .containsExactly(List.of(7));
    // a long UNION ALL is linear work: 3,907 branches were refused under the parenthesis count
    assertThat(count(engine, "SELECT count(*) FROM (SELECT 1 AS x" + " UNION ALL SELECT 1".repeat(5_000) + ") u"))
        .isEqualTo(5_001);
    QueryEngine strict = new QueryEngine(catalog, QuerySettings.DEFAULT, SqlLimits.DEFAULT.withMaxParseCost(5 * 5 * 5));
    assertThat(error(strict, "SELECT " + "(SELECT ".repeat(3) + "7" + ")".repeat(3)).getMessage()).contains("the deepest, 3 levels");
    // derived tables in FROM cost little to parse: 40 levels are fine
    assertThat(count(engine, "SELECT count(*) FROM " + "(SELECT * FROM ".repeat(40) + "t" + ") x".repeat(40)))
        .isEqualTo(TestTables.rows().size());
    // a syntax error deep in subqueries is reported without re-running every lookahead (that took 8 s at 4 levels)
    start = System.nanoTime();
    e = error(engine, "SELECT " + "(SELECT ".repeat(5) + "1 +" + ")".repeat(5));
    assertThat(e.code()).isEqualTo(ErrorCode.SYNTAX_ERROR);
    assertThat(e.getMessage()).startsWith("syntax error at 1:");
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000);
  }

  @Test
  void inListOfTheDocumentedLimitPlansAndRuns() {
    // 100,000 literal items: JSqlParser took 20 s on such a list (and refused it after its 2 s budget)
    StringBuilder sql = new StringBuilder("SELECT count(*) FROM t WHERE i32 IN (");
    for (int i = 0; i < SqlLimits.DEFAULT_MAX_IN_LIST_ITEMS; i++) sql.append(i == 0 ? "" : ", ").append(i * 7 - 350_000);
    sql.append(")");
    long start = System.nanoTime();
    long n = count(engine, sql.toString());
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertThat(n).isEqualTo(TestTables.rows().stream().filter(r -> r[1] != null && (Integer) r[1] % 7 == 0
        && (Integer) r[1] >= -350_000 && (Integer) r[1] < 350_000).count());
    assertThat(ms).as("100,000 IN items plan and run (ms)").isLessThan(30_000);
    // strings, NULL, signs, newlines: the same answers as a short list
    String strings = "SELECT count(*) FROM t WHERE s IN (" + "'x', 'E''x', 'N''y', ".repeat(40) + "'s1', NULL,\n 's2')";
    assertThat(count(engine, strings)).isEqualTo(TestTables.rows().stream()
        .filter(r -> "s1".equals(r[5]) || "s2".equals(r[5])).count());
    assertThat(count(engine, "SELECT count(*) FROM (SELECT 'E''x' AS v) q WHERE v IN (" + "'a', ".repeat(40) + "'E''x')"))
        .isEqualTo(1);
    String signed = "SELECT count(*) FROM t WHERE i32 NOT IN (" + "- - 7, ".repeat(50) + "+ - 1, -2147483648)";
    assertThat(count(engine, signed)).isEqualTo(TestTables.rows().stream()
        .filter(r -> r[1] != null && (Integer) r[1] != 7 && (Integer) r[1] != -1 && (Integer) r[1] != Integer.MIN_VALUE).count());
    String decimals = "SELECT count(*) FROM t WHERE f64 IN (" + "2.25, 1e9, ".repeat(20) + "1.5, - - -1.50)";
    assertThat(count(engine, decimals)).isEqualTo(TestTables.rows().stream()
        .filter(r -> r[3] != null && Math.abs((Double) r[3]) == 1.5).count());
    // a syntax error after a long list is reported where the user wrote it
    String bad = "SELECT count(*) FROM t WHERE i32 IN (" + "1,\n".repeat(60) + "2) AND i32 y";
    QuiverException syntax = error(engine, bad);
    assertThat(syntax.getMessage()).isEqualTo("syntax error at 61:12: unexpected 'y'");
    // one past the limit is refused with its position
    QuiverException e = error(engine, "SELECT count(*) FROM t WHERE i32 IN (" + "7, ".repeat(SqlLimits.DEFAULT_MAX_IN_LIST_ITEMS) + "5)");
    assertThat(e.getMessage()).isEqualTo("an IN list of 100001 items is over the limit of 100000 items at 1:34");
  }

  @Test
  void regularExpressionsThatWouldExhaustTheHeap() {
    QuiverException e = error(engine, "SELECT regexp_like('aaaa', '((a{1000}){1000}){1000}')");
    assertThat(e.code()).isEqualTo(ErrorCode.DATA_ERROR);
    assertThat(e.getMessage()).startsWith("regular expression too large: '((a{1000}){1000}){1000}' repeats to more than 100000");
    assertThat(count(engine, "SELECT count(*) FROM t WHERE regexp_like(s, '^s[0-9]{1,3}(x{2}){0,5}$')")).isPositive();
    // a backtracking pattern is linear for RE2/J
    assertThat(TestTables.run(engine, allocator, "SELECT regexp_like('" + "a".repeat(5_000) + "!', '(a+)+$')"))
        .containsExactly(List.of(false));
  }
}
