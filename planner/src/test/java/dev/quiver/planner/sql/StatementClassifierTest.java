package dev.quiver.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What kind of statement a text is, from its tokens: text in quotes and comments never counts. */
class StatementClassifierTest {
  private static Statement c(String sql) {
    return StatementClassifier.classify(sql);
  }

  @Test
  void setForms() {
    assertThat(c("SET quiver.batch_rows = 5")).isEqualTo(new Statement.Set("quiver.batch_rows", "5"));
    assertThat(c("  set TIME ZONE  'Asia/Singapore' ;  ")).isEqualTo(new Statement.Set("timezone", "Asia/Singapore"));
    assertThat(c("SET timezone TO 'Europe/Berlin'")).isEqualTo(new Statement.Set("timezone", "Europe/Berlin"));
    assertThat(c("SET SESSION Quiver.Scan.Pruning off;")).isEqualTo(new Statement.Set("quiver.scan.pruning", "off"));
    assertThat(c("/* a comment */ SET quiver.statement_timeout_ms TO 5000 -- ms")).isEqualTo(
        new Statement.Set("quiver.statement_timeout_ms", "5000"));
    assertThat(c("SET x = 'a;b'")).isEqualTo(new Statement.Set("x", "a;b"));
    assertThat(c("SET x =")).isInstanceOf(Statement.Query.class); // the parser reports it
  }

  @Test
  void showForms() {
    assertThat(c("SHOW ALL")).isEqualTo(new Statement.Show("all"));
    assertThat(c("show time zone;")).isEqualTo(new Statement.Show("timezone"));
    assertThat(c("SHOW quiver.batch_rows")).isEqualTo(new Statement.Show("quiver.batch_rows"));
    assertThat(c("SHOW x y")).isInstanceOf(Statement.Query.class);
    assertThat(c("SHOW x" + " ".repeat(1_000_000) + "y")).isInstanceOf(Statement.Query.class);
  }

  @Test
  void explainKeepsPositions() {
    String sql = "EXPLAIN ANALYZE\n  VERBOSE SELECT x\nFROM t";
    Statement.Explain e = (Statement.Explain) c(sql);
    assertThat(e.analyze()).isTrue();
    assertThat(e.verbose()).isTrue();
    assertThat(e.query()).hasSameSizeAs(sql).isEqualTo("               \n          SELECT x\nFROM t");
    assertThat(c("explain verbose select 1")).isEqualTo(new Statement.Explain(false, true, "                select 1"));
    assertThat(c("-- plan\nEXPLAIN SELECT 1")).isEqualTo(new Statement.Explain(false, false, "       \n        SELECT 1"));
    assertThat(c("EXPLAIN ANALYZE")).isEqualTo(new Statement.Explain(false, false, "        ANALYZE"));
  }

  @Test
  void queriesAndTextInQuotesOrComments() {
    assertThat(c("SELECT 'EXPLAIN'")).isEqualTo(new Statement.Query("SELECT 'EXPLAIN'"));
    assertThat(c("/* SET x = 1 */ SELECT 1")).isInstanceOf(Statement.Query.class);
    assertThat(c("\"SET\"")).isInstanceOf(Statement.Query.class);
    assertThat(c("")).isInstanceOf(Statement.Query.class);
    assertThat(c(" ; ")).isInstanceOf(Statement.Query.class);
  }
}
