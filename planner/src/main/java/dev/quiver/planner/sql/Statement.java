package dev.quiver.planner.sql;

/**
 * What kind of statement a text is, as {@link StatementClassifier} tells from its tokens (quoted strings,
 * quoted names and comments skipped): a query, an EXPLAIN of one, a SET or a SHOW. Nothing else looks at
 * the text to tell them apart.
 */
public sealed interface Statement {
  /** A query (or any other statement: the parser and analyzer say what is wrong with it). */
  record Query(String sql) implements Statement {}

  /**
   * {@code EXPLAIN [ANALYZE] [VERBOSE] query}; {@code query} is the user's text with the prefix blanked
   * (newlines kept), so that line:column positions in errors match the user's text.
   */
  record Explain(boolean analyze, boolean verbose, String query) implements Statement {}

  /**
   * {@code SET [SESSION] name {= | TO} value} or {@code SET TIME ZONE value}: the name in lower case
   * ({@code timezone} for TIME ZONE) and the value's text, without the quotes around it; not yet validated.
   */
  record Set(String name, String value) implements Statement {}

  /** {@code SHOW name}, {@code SHOW ALL} or {@code SHOW TIME ZONE}: the name in lower case ("all", "timezone"). */
  record Show(String name) implements Statement {}

  /**
   * A look at the catalog, as DuckDB, PostgreSQL and Trino users type it: {@code SHOW TABLES}, {@code SHOW SCHEMAS},
   * {@code SHOW COLUMNS FROM t} and {@code DESCRIBE t} (table {@code table}, as written, quotes included; null for
   * the first two). Planned as a query over the snapshot's names and types.
   */
  record Catalog(What what, String table, int tableAt) implements Statement {
    public enum What { TABLES, SCHEMAS, COLUMNS }
  }
}
