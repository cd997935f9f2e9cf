package dev.quiver.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.common.QuiverException;
import java.util.List;
import net.sf.jsqlparser.JSQLParserException;
import org.junit.jupiter.api.Test;

/** Short statements parse on the caller's thread: with the same outcome as on the parser thread. */
class SqlParserInlineTest {
  static final List<String> STATEMENTS = List.of(
      "SELECT 1",
      "SELECT 1 + 1 AS two, 'a' || 'b' AS ab",
      "SELECT l_orderkey, sum(l_quantity) FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 10",
      "SELECT * FROM t WHERE (a > 1) IS TRUE",
      "SELECT CASE WHEN a = 1 THEN b = 2 END FROM t",
      "SELECT coalesce(a = b, false) FROM t",
      "SELECT x FROM (SELECT 1 AS x) s WHERE x IN (1, 2, 3)",
      "SELEC 1",
      "SELECT FROM",
      "SELECT 'unterminated",
      "SELECT 1 +",
      "SELECT a FROM t WHERE a = ?");

  @Test
  void inlineAndParserThreadAgree() {
    for (String sql : STATEMENTS) {
      for (boolean complex : new boolean[] {false, true}) {
        String inline = outcome(sql, complex, true);
        String pooled = outcome(sql, complex, false);
        assertThat(inline).as(sql + (complex ? " (complex)" : "")).isEqualTo(pooled);
      }
    }
  }

  @Test
  void shortShallowStatementsGoInlineAndTheirErrorsReadAsBefore() {
    // the public entry point: a syntax error still names where the parser stopped
    QuiverException e = org.assertj.core.api.Assertions.catchThrowableOfType(() -> SqlParser.parse("SELEC 1"),
        QuiverException.class);
    assertThat(e.getMessage()).startsWith("syntax error at 1:1");
    assertThat(SqlParser.parse("SELECT 1").toString()).isEqualTo("SELECT 1");
  }

  private static String outcome(String sql, boolean complex, boolean inline) {
    try {
      return "ok: " + SqlParser.parse(sql, complex, inline);
    } catch (JSQLParserException e) {
      Throwable c = e.getCause();
      return "error: " + (c == null ? e.getMessage() : c.getClass().getName() + ": " + c.getMessage());
    }
  }
}
