package dev.quiver.planner.sql;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.parser.TokenMgrException;
import net.sf.jsqlparser.statement.Statement;

/**
 * Parses SQL text with JSqlParser; a syntax error becomes a {@link QuiverException} with {@code line:column}.
 * Before JSqlParser runs, {@link SqlLimits} check the size and nesting of the text and {@link SqlText} rewrites
 * it (same length, so positions hold): runs of unary signs collapsed, one statement only, long IN lists of
 * literals read directly; and its parse cost is counted from its tokens and checked. No limit depends on time.
 * JSqlParser first parses without its "complex" expression rules and retries with them when that fails and
 * the text's parentheses nest at most {@value #COMPLEX_PARSING_MAX_NESTING} deep (the complex rules take time
 * exponential in the nesting, about fivefold per level on a statement that fails: 6 levels took 13 s). They
 * are needed for BOOLEAN expressions as function arguments, {@code THEN a = b}, {@code (a > 1) IS TRUE}. A
 * syntax error is reported from the token where the parser stopped, without JSqlParser's list of expected
 * tokens, whose computation re-runs every lookahead (6 levels of subqueries: 8 s).
 */
public final class SqlParser {
  /** How deep parentheses may nest for the retry with JSqlParser's complex parsing. */
  static final int COMPLEX_PARSING_MAX_NESTING = 4;
  /**
   * A safety net, not a budget: a statement within the limits parses in well under a second; one that still
   * runs this long (a shape the parse cost does not see) is stopped so that it cannot hold a thread for hours.
   */
  static final long SAFETY_NET_SECONDS = 60;
  /**
   * Statements at most this long (characters) whose parentheses nest at most {@link #INLINE_MAX_NESTING} deep
   * parse on the caller's thread: they need neither the parser thread's deep stack nor the safety net, and the
   * hand-off to it and back cost two thread wake-ups per statement (most of a {@code SELECT 1}'s planning on a
   * loaded machine).
   */
  static final int INLINE_MAX_CHARS = 256;
  static final int INLINE_MAX_NESTING = 2;
  private static final ExecutorService PARSERS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(null, r, "quiver-sql-parser", 16L << 20);
    t.setDaemon(true);
    return t;
  });

  private SqlParser() {}

  public static Statement parse(String sql) {
    return parse(sql, SqlLimits.DEFAULT);
  }

  public static Statement parse(String sql, SqlLimits limits) {
    if (sql == null || sql.isBlank()) {
      throw new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at 1:1: empty statement");
    }
    limits.checkLength(sql);
    limits.checkNesting(sql);
    SqlText.Prepared prepared = SqlText.prepare(sql);
    if (prepared.tokens().isEmpty()) {
      throw new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at 1:1: empty statement");
    }
    SqlText.Cost cost = SqlText.parseCost(sql, prepared.tokens());
    limits.checkParseCost(sql, cost);
    String text = prepared.text();
    boolean inline = text.length() <= INLINE_MAX_CHARS && cost.maxParenDepth() <= INLINE_MAX_NESTING;
    Statement statement;
    try {
      try {
        statement = parse(text, false, inline);
      } catch (JSQLParserException simple) {
        if (causedBy(simple, StackOverflowError.class) || cost.maxParenDepth() > COMPLEX_PARSING_MAX_NESTING) throw simple;
        statement = parse(text, true, inline);
      }
    } catch (JSQLParserException e) {
      if (causedBy(e, StackOverflowError.class)) throw limits.tooDeep(sql, -1);
      throw syntaxError(sql, prepared, e);
    } catch (StackOverflowError e) {
      throw limits.tooDeep(sql, -1);
    } catch (QuiverException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error: the statement could not be parsed", e);
    }
    SqlText.restoreInLists(statement, prepared.inLists());
    SqlText.dateUnitsAsColumns(statement, prepared.tokens());
    SqlText.restoreDots(statement, prepared.tokens());
    return statement;
  }

  /** A parser whose syntax errors are cheap: the token it stopped at, not the tokens it expected. */
  private static final class Parser extends CCJSqlParser {
    Parser(String sql) {
      super(new StringProvider(sql));
    }

    @Override
    public ParseException generateParseException(String unused) {
      ParseException e = new ParseException("unexpected token");
      e.currentToken = token;
      return e;
    }
  }

  /** Parses {@code sql} on the caller's thread if {@code inline}, else on a parser thread; the same outcome either way. */
  static Statement parse(String sql, boolean complex, boolean inline) throws JSQLParserException {
    CCJSqlParser parser = new Parser(sql).withAllowComplexParsing(complex);
    if (inline) {
      try {
        return parser.Statement();
      } catch (StackOverflowError e) {
        throw e;
      } catch (Throwable t) { // as the parser thread's ExecutionException would carry it
        throw new JSQLParserException(t);
      }
    }
    Future<Statement> future = PARSERS.submit(parser::Statement);
    try {
      return future.get(SAFETY_NET_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      parser.interrupted = true;
      future.cancel(true);
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement is too complex: it could not be parsed within "
          + SAFETY_NET_SECONDS + " s", e);
    } catch (InterruptedException e) {
      parser.interrupted = true;
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new QuiverException(ErrorCode.CANCELLED, "parsing was interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof StackOverflowError so) throw so;
      throw new JSQLParserException(cause);
    }
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) if (type.isInstance(c)) return true;
    return false;
  }

  /** {@code line:column} in the user's text of a position the parser reports in the prepared text. */
  private static String where(String sql, SqlText.Prepared prepared, int line, int column) {
    if (prepared.cuts().length == 0) return line + ":" + column;
    return SqlPositions.at(sql, prepared.original(prepared.offsetOf(line, column)));
  }

  private static QuiverException syntaxError(String sql, SqlText.Prepared prepared, JSQLParserException e) {
    Throwable cause = e;
    while (cause != null && !(cause instanceof ParseException) && !(cause instanceof TokenMgrException)) {
      cause = cause.getCause();
    }
    if (cause instanceof ParseException pe && pe.currentToken != null) {
      Token bad = pe.currentToken.next != null ? pe.currentToken.next : pe.currentToken;
      String near = bad.image == null || bad.image.isEmpty() ? "end of input" : "'" + SqlPositions.snippet(bad.image) + "'";
      return new QuiverException(ErrorCode.SYNTAX_ERROR,
          "syntax error at " + where(sql, prepared, bad.beginLine, bad.beginColumn) + ": unexpected " + near, e);
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      // JSqlParser reads a type's length with Integer.valueOf: VARCHAR(2147483648) failed as "For input string"
      java.util.regex.Matcher number = java.util.regex.Pattern.compile("For input string: \"([^\"]{1,40})\"")
          .matcher(String.valueOf(t.getMessage()));
      if (t instanceof NumberFormatException && number.find()) {
        int at = sql.indexOf(number.group(1));
        return new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at " + SqlPositions.at(sql, Math.max(0, at))
            + ": the number " + number.group(1) + " is out of range here", e);
      }
    }
    String msg = String.valueOf(cause != null ? cause.getMessage() : e.getMessage());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("line (\\d+), column (\\d+)").matcher(msg);
    String where = m.find() ? where(sql, prepared, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))) : "1:1";
    if (cause instanceof TokenMgrException) {
      // "Lexical error at line 1, column 9.  Encountered: <EOF> after prefix \"'abc\"": an unclosed quote, or a
      // character that starts no token
      boolean eof = msg.contains("<EOF>");
      return new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at " + where + ": "
          + (eof ? "unexpected end of input (an unclosed quote or comment?)" : "unexpected character"
              + encountered(msg)), e);
    }
    String first = SqlPositions.snippet(msg.lines().findFirst().orElse(msg)
        .replaceAll("\\b(?:[a-z]\\w*\\.)+[A-Z]\\w*(?:Exception|Error):\\s*", ""));
    return new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at " + where + ": " + first, e);
  }

  /** " '\\'" from a lexical error's "Encountered: '\\\\' (92)," (the character that starts no token). */
  private static String encountered(String msg) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("Encountered: .*?\\((\\d+)\\)").matcher(msg);
    if (!m.find()) return "";
    int cp = Integer.parseInt(m.group(1));
    return Character.isISOControl(cp) || !Character.isValidCodePoint(cp) ? String.format(" U+%04X", cp)
        : " '" + new String(Character.toChars(cp)) + "'";
  }
}
