package dev.quiver.planner.sql;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.parser.TokenMgrException;
import net.sf.jsqlparser.statement.Statement;

/**
 * Parses SQL text with JSqlParser; a syntax error becomes a {@link QuiverException} with {@code line:column}.
 * The {@link SqlLimits} are checked first (size, nesting), and parsing gets a time budget: JSqlParser first
 * parses without its "complex" expression rules and retries with them when that fails and the text nests at
 * most 10 deep (as {@code CCJSqlParserUtil.parse} does), both within the one budget. A parser that runs out
 * of time is told to stop and its thread is left to finish.
 */
public final class SqlParser {
  /** JSqlParser's own bound for the retry with complex parsing. */
  private static final int COMPLEX_PARSING_MAX_NESTING = 10;
  private static final ExecutorService PARSERS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "quiver-sql-parser");
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
    long budget = limits.parseBudgetMillis(sql);
    long deadline = System.nanoTime() + budget * 1_000_000L;
    try {
      try {
        return parse(sql, false, budget);
      } catch (JSQLParserException simple) {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (timedOut(simple) || left <= 0 || CCJSqlParserUtil.getNestingDepth(sql) > COMPLEX_PARSING_MAX_NESTING) {
          throw simple;
        }
        return parse(sql, true, left);
      }
    } catch (JSQLParserException e) {
      if (timedOut(e)) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement is too complex: it could not be parsed within "
            + budget + " ms", e);
      }
      if (causedBy(e, StackOverflowError.class)) throw limits.tooDeep(sql, -1);
      throw syntaxError(sql, e);
    } catch (StackOverflowError e) {
      throw limits.tooDeep(sql, -1);
    } catch (RuntimeException e) {
      throw new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error: the statement could not be parsed", e);
    }
  }

  private static Statement parse(String sql, boolean complex, long timeoutMillis) throws JSQLParserException {
    CCJSqlParser parser = CCJSqlParserUtil.newParser(sql).withAllowComplexParsing(complex).withTimeOut(timeoutMillis);
    return CCJSqlParserUtil.parseStatement(parser, PARSERS);
  }

  private static boolean timedOut(JSQLParserException e) {
    return causedBy(e, TimeoutException.class);
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) if (type.isInstance(c)) return true;
    return false;
  }

  private static QuiverException syntaxError(String sql, JSQLParserException e) {
    Throwable cause = e;
    while (cause != null && !(cause instanceof ParseException) && !(cause instanceof TokenMgrException)) {
      cause = cause.getCause();
    }
    if (cause instanceof ParseException pe && pe.currentToken != null) {
      Token bad = pe.currentToken.next != null ? pe.currentToken.next : pe.currentToken;
      String near = bad.image == null || bad.image.isEmpty() ? "end of input" : "'" + SqlPositions.snippet(bad.image) + "'";
      return new QuiverException(ErrorCode.SYNTAX_ERROR,
          "syntax error at " + bad.beginLine + ":" + bad.beginColumn + ": unexpected " + near, e);
    }
    String msg = String.valueOf(cause != null ? cause.getMessage() : e.getMessage());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("line (\\d+), column (\\d+)").matcher(msg);
    String where = m.find() ? m.group(1) + ":" + m.group(2) : "1:1";
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
