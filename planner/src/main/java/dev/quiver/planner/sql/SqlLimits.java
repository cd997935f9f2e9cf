package dev.quiver.planner.sql;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.nio.charset.StandardCharsets;

/**
 * Limits that keep hostile SQL from exhausting the server, each failing the statement with a clear
 * INVALID_QUERY error: the statement's size in UTF-8 bytes; how deeply expressions nest (parentheses and
 * CASE in the text, checked before parsing because JSqlParser's time and stack grow with the nesting; and
 * the bound expression tree, so that no recursive walk of it overflows the stack); the items of one IN
 * list; the relations (tables, derived tables, CTE references) the FROM clauses of a statement join, since
 * join ordering is superlinear in them; and the parse cost, counted from the statement's tokens before
 * JSqlParser runs (see {@link SqlText#parseCost}): the analysis repeats a correlated subquery once per level
 * it is nested in, so its work multiplies with each level of subqueries nested inside expressions. Every limit counts work, never time, so a statement plans or fails the same way
 * however busy the machine is.
 */
public record SqlLimits(long maxStatementBytes, int maxNestingDepth, int maxInListItems, int maxRelations,
    long maxParseCost, int maxSubqueryDepth, int maxOptimizerPasses, int maxSimplifierPasses) {
  public static final long DEFAULT_MAX_STATEMENT_BYTES = 1L << 20;
  public static final int DEFAULT_MAX_NESTING_DEPTH = 256;
  public static final int DEFAULT_MAX_IN_LIST_ITEMS = 100_000;
  public static final int DEFAULT_MAX_RELATIONS = 128;
  /**
   * 1 + 5 + … + 5^7 = 97,656: a chain of subqueries nested 7 levels deep in expressions, or more shallower ones
   * (a UNION of 50,000 branches, more than a statement of the default size holds).
   */
  public static final long DEFAULT_MAX_PARSE_COST = 100_000;
  /** Queries nested in one another (subqueries, derived tables, CTE bodies), counted by the analyzer. */
  public static final int DEFAULT_MAX_SUBQUERY_DEPTH = 64;
  /**
   * Passes of the optimizer's rules over the plan: it stops when a pass changes nothing, or after this many
   * with the plan it has (still correct, perhaps less optimized).
   */
  public static final int DEFAULT_MAX_OPTIMIZER_PASSES = 8;
  /**
   * Passes of the expression simplifier's rules over one expression, each time a rule simplifies it: it stops when
   * a pass changes nothing, or after this many with the expression it has (still equivalent, perhaps less simple).
   */
  public static final int DEFAULT_MAX_SIMPLIFIER_PASSES = 16;
  public static final SqlLimits DEFAULT = new SqlLimits(DEFAULT_MAX_STATEMENT_BYTES, DEFAULT_MAX_NESTING_DEPTH,
      DEFAULT_MAX_IN_LIST_ITEMS, DEFAULT_MAX_RELATIONS, DEFAULT_MAX_PARSE_COST, DEFAULT_MAX_SUBQUERY_DEPTH,
      DEFAULT_MAX_OPTIMIZER_PASSES, DEFAULT_MAX_SIMPLIFIER_PASSES);

  public SqlLimits {
    if (maxStatementBytes <= 0 || maxNestingDepth <= 0 || maxInListItems <= 0 || maxRelations <= 0 || maxParseCost <= 0
        || maxSubqueryDepth <= 0 || maxOptimizerPasses <= 0 || maxSimplifierPasses <= 0) {
      throw new IllegalArgumentException("SQL limits must be positive");
    }
  }

  public SqlLimits withMaxStatementBytes(long bytes) {
    return new SqlLimits(bytes, maxNestingDepth, maxInListItems, maxRelations, maxParseCost, maxSubqueryDepth,
        maxOptimizerPasses, maxSimplifierPasses);
  }

  public SqlLimits withMaxNestingDepth(int depth) {
    return new SqlLimits(maxStatementBytes, depth, maxInListItems, maxRelations, maxParseCost, maxSubqueryDepth,
        maxOptimizerPasses, maxSimplifierPasses);
  }

  public SqlLimits withMaxInListItems(int items) {
    return new SqlLimits(maxStatementBytes, maxNestingDepth, items, maxRelations, maxParseCost, maxSubqueryDepth,
        maxOptimizerPasses, maxSimplifierPasses);
  }

  public SqlLimits withMaxRelations(int relations) {
    return new SqlLimits(maxStatementBytes, maxNestingDepth, maxInListItems, relations, maxParseCost, maxSubqueryDepth,
        maxOptimizerPasses, maxSimplifierPasses);
  }

  /** The parse cost a statement may have (units: see {@link SqlText#parseCost}). */
  public SqlLimits withMaxParseCost(long units) {
    return new SqlLimits(maxStatementBytes, maxNestingDepth, maxInListItems, maxRelations, units, maxSubqueryDepth,
        maxOptimizerPasses, maxSimplifierPasses);
  }

  /** How deeply queries may nest in one another (subqueries, derived tables, CTE bodies). */
  public SqlLimits withMaxSubqueryDepth(int depth) {
    return new SqlLimits(maxStatementBytes, maxNestingDepth, maxInListItems, maxRelations, maxParseCost, depth,
        maxOptimizerPasses, maxSimplifierPasses);
  }

  /** How many passes of its rules the optimizer makes at most. */
  public SqlLimits withMaxOptimizerPasses(int passes) {
    return new SqlLimits(maxStatementBytes, maxNestingDepth, maxInListItems, maxRelations, maxParseCost,
        maxSubqueryDepth, passes, maxSimplifierPasses);
  }

  /** How many passes of its rules the expression simplifier makes over one expression at most. */
  public SqlLimits withMaxSimplifierPasses(int passes) {
    return new SqlLimits(maxStatementBytes, maxNestingDepth, maxInListItems, maxRelations, maxParseCost,
        maxSubqueryDepth, maxOptimizerPasses, passes);
  }

  /** Fails a statement whose estimated parse cost is over {@link #maxParseCost}. */
  void checkParseCost(String sql, SqlText.Cost cost) {
    if (cost.units() <= maxParseCost) return;
    throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement is too complex to parse: its subqueries nested in "
        + "expressions cost " + cost.units() + " units, over the limit of " + maxParseCost + " (each level of "
        + "subquery nesting multiplies the cost by 5; the deepest, " + cost.deepestSubquery() + " levels, is at "
        + cost.deepestAt() + ")");
  }

  /** Fails a statement longer than {@link #maxStatementBytes} UTF-8 bytes. */
  public void checkLength(String sql) {
    // a UTF-8 character is at most 3 bytes per char (a surrogate pair: 4 bytes for 2 chars)
    if ((long) sql.length() * 3 <= maxStatementBytes) return;
    long bytes = sql.length() <= maxStatementBytes ? sql.getBytes(StandardCharsets.UTF_8).length : sql.length();
    if (bytes > maxStatementBytes) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement is " + (sql.length() > maxStatementBytes
          ? "longer than " + maxStatementBytes : String.valueOf(bytes)) + " bytes, over the limit of " + maxStatementBytes
          + " bytes per statement");
    }
  }

  /**
   * Fails a statement whose parentheses and CASE … END nest deeper than {@link #maxNestingDepth}, naming where
   * it goes too deep. Quoted strings and names and comments are skipped; unbalanced text is left to the parser.
   */
  public void checkNesting(String sql) {
    int depth = 0;
    int n = sql.length();
    for (int i = 0; i < n; i++) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = i + 1;
        while (end < n && sql.charAt(end) != c) end++;
        i = end;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        while (i < n && sql.charAt(i) != '\n') i++;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 1;
      } else if (c == '(' || word(sql, i, "CASE")) {
        if (++depth > maxNestingDepth) throw tooDeep(sql, i);
      } else if ((c == ')' || word(sql, i, "END")) && depth > 0) {
        depth--;
      }
    }
  }

  /** The error of an expression nested deeper than the limit, at {@code offset} of {@code sql} (or -1). */
  QuiverException tooDeep(String sql, int offset) {
    return new QuiverException(ErrorCode.INVALID_QUERY, "expression nested too deeply (limit " + maxNestingDepth + ")"
        + (offset >= 0 ? " at " + SqlPositions.at(sql, offset) : ""));
  }

  /** Whether the keyword {@code w} (upper case) starts at {@code i} as a whole word. */
  private static boolean word(String sql, int i, String w) {
    if (Character.toUpperCase(sql.charAt(i)) != w.charAt(0)) return false;
    if (i + w.length() > sql.length() || !sql.regionMatches(true, i, w, 0, w.length())) return false;
    boolean before = i == 0 || !isWordChar(sql.charAt(i - 1));
    boolean after = i + w.length() == sql.length() || !isWordChar(sql.charAt(i + w.length()));
    return before && after;
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }
}
