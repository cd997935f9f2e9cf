package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Standard SQL that sqllogictest-style queries use: runs of unary signs, untyped NULLs typed by their
 * context, the ALL set quantifier, one statement per request, LIKE … ESCAPE; and messages that name
 * columns as the user does. Expected values are computed here from {@link TestTables#rows()} or by hand.
 */
class StandardSqlTest extends EngineTest {

  private List<List<Object>> run(String sql) {
    List<List<Object>> rows = TestTables.run(engine, allocator, sql);
    List<List<Object>> out = new ArrayList<>();
    for (List<Object> r : rows) out.add(r.stream().map(v -> v instanceof org.apache.arrow.vector.util.Text t ? (Object) t.toString() : v).toList());
    return out;
  }

  private Object one(String sql) {
    List<List<Object>> rows = run(sql);
    assertThat(rows).as(sql).hasSize(1);
    assertThat(rows.get(0)).as(sql).hasSize(1);
    return rows.get(0).get(0);
  }

  private QuiverException error(String sql) {
    QuiverException x = catchThrowableOfType(QuiverException.class, () -> run(sql));
    assertThat(x).as(sql).isNotNull();
    return x;
  }

  private static long count(java.util.function.Predicate<Object[]> p) {
    return TestTables.rows().stream().filter(p).count();
  }

  @Test
  void runsOfUnarySigns() {
    assertThat(one("SELECT - - 4")).isEqualTo(4);
    assertThat(one("SELECT + - 4")).isEqualTo(-4);
    assertThat(one("SELECT - + - - 4")).isEqualTo(-4);
    assertThat(one("SELECT 60 + + - 4")).isEqualTo(56);
    assertThat(one("SELECT 1 - - - 4")).isEqualTo(-3); // 1 - (-(-4))
    assertThat(one("SELECT 2 * - - 3")).isEqualTo(6);
    assertThat(one("SELECT - /* a comment */ - 4")).isEqualTo(4);
    assertThat(one("SELECT 2 - -- a comment, not a sign\n - 3")).isEqualTo(5);
    assertThat(one("SELECT '- - 4'")).isEqualTo("- - 4");
    assertThat(one("SELECT - - 1.5")).isEqualTo(new BigDecimal("1.5"));
    assertThat(one("SELECT - - 1e-5")).isEqualTo(1e-5);
    assertThat(one("SELECT MIN ( + - 65 ) FROM t")).isEqualTo(-65);
    assertThat(one("SELECT count(*) FROM t WHERE NOT i32 < + - i8"))
        .isEqualTo(count(r -> r[0] != null && (Integer) r[1] >= -(Integer) r[0]));
    assertThat(one("SELECT count(*) FROM t WHERE i32 = - - i32")).isEqualTo(count(r -> r[1] != null));
    assertThat(one("SELECT - - i32 FROM t WHERE i32 = 7 LIMIT 1")).isEqualTo(7);
    assertThat(one("SELECT - - - i32 FROM t WHERE i32 = 7 LIMIT 1")).isEqualTo(-7);
    // an error after a run of signs is where the user sees it
    QuiverException e = error("SELECT - - 4 x y");
    assertThat(e.code()).isEqualTo(ErrorCode.SYNTAX_ERROR);
    assertThat(e.getMessage()).isEqualTo("syntax error at 1:16: unexpected 'y'");
    assertThat(error("SELECT - - 'a'").getMessage()).contains("is not defined for VARCHAR");
  }

  @Test
  void untypedNullTakesItsTypeFromTheContext() {
    assertThat(run("SELECT 1 FROM t WHERE NULL IN (NULL, 1)")).isEmpty();
    assertThat(one("SELECT NULL NOT IN (NULL, 'b')")).isNull();
    assertThat(one("SELECT NULL IN (1, 2)")).isNull();
    assertThat(one("SELECT COALESCE(NULL, 1) = NULL")).isNull();
    assertThat(one("SELECT COALESCE(NULL, NULL, 2)")).isEqualTo(2);
    assertThat(one("SELECT CASE 60 WHEN -94 THEN NULL WHEN CAST(NULL AS INTEGER) THEN 1 END")).isNull();
    assertThat(one("SELECT CASE 60 WHEN 60 THEN NULL ELSE 'x' END")).isNull();
    assertThat(one("SELECT CASE WHEN true THEN NULL WHEN false THEN NULL ELSE 5 END")).isNull();
    assertThat(one("SELECT CASE WHEN false THEN NULL ELSE 5 END + 1")).isEqualTo(6);
  }

  @Test
  void allIsTheDefaultSetQuantifier() {
    List<Integer> i32 = TestTables.rows().stream().map(r -> (Integer) r[1]).filter(Objects::nonNull).toList();
    long sum = i32.stream().mapToLong(Integer::longValue).sum();
    int min = i32.stream().mapToInt(Integer::intValue).min().orElseThrow();
    assertThat(run("SELECT MIN(ALL i32), SUM(ALL i32), COUNT(ALL i32), MAX(ALL i32) FROM t"))
        .containsExactly(Arrays.asList(min, sum, (long) i32.size(), Integer.MAX_VALUE));
    assertThat(one("SELECT COUNT(ALL s) FROM t")).isEqualTo(count(r -> r[5] != null));
  }

  @Test
  void oneStatementAtATime() {
    QuiverException e = error("SELECT 1; DELETE FROM nation");
    assertThat(e.code()).isEqualTo(ErrorCode.SYNTAX_ERROR);
    assertThat(e.getMessage()).isEqualTo(
        "syntax error at 1:11: only one statement is allowed, but more text follows the ';' at 1:9");
    assertThat(error("SELECT 1;\n  garbage").getMessage()).startsWith("syntax error at 2:3: only one statement");
    assertThat(error("SELECT 1; SELECT 2;").code()).isEqualTo(ErrorCode.SYNTAX_ERROR);
    // a trailing ';' (or several), blanks and comments are fine; a ';' in a string or comment is no end
    assertThat(one("SELECT 1;")).isEqualTo(1);
    assertThat(one("SELECT 1 ;; -- the end\n /* done */ ; ")).isEqualTo(1);
    assertThat(one("SELECT ';' -- ; DELETE\n")).isEqualTo(";");
    assertThat(one("SELECT 1 AS \";x\"")).isEqualTo(1);
    assertThat(error(";").getMessage()).isEqualTo("syntax error at 1:1: empty statement");
  }

  @Test
  void likeEscape() {
    assertThat(one("SELECT 'a%c' LIKE 'a!%c' ESCAPE '!'")).isEqualTo(true);
    assertThat(one("SELECT 'abc' LIKE 'a!%c' ESCAPE '!'")).isEqualTo(false);
    assertThat(one("SELECT 'a_c' LIKE 'a#_c' ESCAPE '#'")).isEqualTo(true);
    assertThat(one("SELECT 'abc' LIKE 'a#_c' ESCAPE '#'")).isEqualTo(false);
    assertThat(one("SELECT 'a!c' LIKE 'a!!c' ESCAPE '!'")).isEqualTo(true);
    assertThat(one("SELECT 'abc' LIKE '!a%' ESCAPE '!'")).isEqualTo(true); // an escaped ordinary character is itself
    assertThat(one("SELECT 'a\\c' LIKE 'a\\c' ESCAPE '!'")).isEqualTo(true); // backslash is no escape then
    assertThat(one("SELECT 'a\\c' LIKE 'a\\c' ESCAPE ''")).isEqualTo(true); // no escape at all
    assertThat(one("SELECT 'a%' LIKE 'a\\%' ESCAPE ''")).isEqualTo(false);
    assertThat(one("SELECT 'a%x' LIKE 'a\\%%' ESCAPE '\\'")).isEqualTo(true);
    assertThat(one("SELECT 'abc' NOT LIKE 'a!%c' ESCAPE '!'")).isEqualTo(true);
    assertThat(one("SELECT 'A%C' ILIKE 'a!%c' ESCAPE '!'")).isEqualTo(true);
    assertThat(one("SELECT 'a' LIKE 'a' ESCAPE NULL")).isNull();
    // on a column, with a constant pattern (pushed down as a prefix) and a pattern from a column
    assertThat(one("SELECT count(*) FROM t WHERE s LIKE 's!%' ESCAPE '!'")).isEqualTo(0L);
    assertThat(one("SELECT count(*) FROM t WHERE s LIKE 's1%' ESCAPE '!'"))
        .isEqualTo(count(r -> r[5] != null && ((String) r[5]).startsWith("s1")));
    assertThat(one("SELECT count(*) FROM t WHERE s LIKE s ESCAPE '!'")).isEqualTo(count(r -> r[5] != null));
    assertThat(one("SELECT count(*) FROM t WHERE s LIKE 's!_' ESCAPE '!'")).isEqualTo(0L);
    // a bad escape
    QuiverException e = error("SELECT 'a' LIKE 'a' ESCAPE 'ab'");
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(e.getMessage()).isEqualTo("invalid escape string 'ab': the escape of LIKE must be empty or one character at 1:21");
    e = error("SELECT count(*) FROM t WHERE s LIKE 'a!' ESCAPE '!'");
    assertThat(e.code()).isEqualTo(ErrorCode.DATA_ERROR);
    assertThat(e.getMessage()).isEqualTo("LIKE pattern must not end with the escape character: 'a!' ESCAPE '!'");
    assertThat(error("SELECT 'a' LIKE 'a' ESCAPE 1").getMessage()).startsWith("the ESCAPE of LIKE must be a string, not INTEGER");
  }

  @Test
  void messagesNameColumnsAsTheUserDoes() {
    // the subquery's x.i32 is internally x.i32#2 (the outer query has an x.i32 too)
    QuiverException e = error("SELECT (SELECT max(x.i32) FROM t x WHERE x.i32 > t.i32) FROM t, t x");
    assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED);
    assertThat(e.getMessage()).isEqualTo(
        "the correlated predicate x.i32 > t.i32 in a scalar subquery (only equalities are) is not supported");
    e = error("SELECT z.i32 FROM t, t x, (SELECT x.i32 FROM t x) z GROUP BY t.i32");
    assertThat(e.getMessage()).isEqualTo("column z.i32 must appear in the GROUP BY clause or be used in an aggregate "
        + "function at 1:8");
    e = error("SELECT sum(z.i64 * 1000000000) FROM t, t x, (SELECT x.i64 FROM t x) z WHERE z.i64 > 6000000000");
    assertThat(e.code()).isEqualTo(ErrorCode.DATA_ERROR);
    assertThat(e.getMessage()).isEqualTo("sum(x.i64 * 1000000000) overflows BIGINT");
  }
}
