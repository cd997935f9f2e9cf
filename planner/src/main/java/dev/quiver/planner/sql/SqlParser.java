package dev.quiver.planner.sql;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.statement.Statement;

/** Parses SQL text with JSqlParser; a syntax error becomes a {@link QuiverException} with {@code line:column}. */
public final class SqlParser {
  private SqlParser() {}

  public static Statement parse(String sql) {
    if (sql == null || sql.isBlank()) {
      throw new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at 1:1: empty statement");
    }
    try {
      return CCJSqlParserUtil.parse(sql, parser -> parser.withTimeOut(10_000));
    } catch (JSQLParserException e) {
      throw syntaxError(sql, e);
    } catch (RuntimeException | StackOverflowError e) {
      throw new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error: " + e.getMessage(), e);
    }
  }

  private static QuiverException syntaxError(String sql, JSQLParserException e) {
    Throwable cause = e;
    while (cause != null && !(cause instanceof ParseException)) cause = cause.getCause();
    if (cause instanceof ParseException pe && pe.currentToken != null) {
      Token bad = pe.currentToken.next != null ? pe.currentToken.next : pe.currentToken;
      String near = bad.image == null || bad.image.isEmpty() ? "end of input" : "'" + bad.image + "'";
      return new QuiverException(ErrorCode.SYNTAX_ERROR,
          "syntax error at " + bad.beginLine + ":" + bad.beginColumn + ": unexpected " + near, e);
    }
    String msg = String.valueOf(e.getMessage());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("line (\\d+), column (\\d+)").matcher(msg);
    String where = m.find() ? m.group(1) + ":" + m.group(2) : "1:1";
    String first = msg.lines().findFirst().orElse(msg);
    return new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at " + where + ": " + first, e);
  }
}
