package dev.quiver.planner.sql;

import dev.quiver.planner.sql.SqlText.Kind;
import dev.quiver.planner.sql.SqlText.Token;
import java.util.List;
import java.util.Locale;

/**
 * Turns SQL text into a {@link Statement} from the tokens of {@link SqlText} (which skip quoted strings and
 * names and comments). JSqlParser's own tree cannot serve: it rejects {@code SET timezone TO 'UTC'} and
 * {@code SHOW TIME ZONE}, and the query of an EXPLAIN is planned from the user's text with the prefix
 * blanked, so that positions in errors stay the user's. Text that is none of EXPLAIN, SET or SHOW (or a
 * malformed one) is a {@link Statement.Query}: the parser reports what is wrong with it.
 */
public final class StatementClassifier {
  private StatementClassifier() {}

  public static Statement classify(String sql) {
    if (sql == null) return new Statement.Query(sql);
    List<Token> tokens = SqlText.tokenize(sql);
    int end = tokens.size();
    while (end > 0 && tokens.get(end - 1).is(";")) end--; // trailing ';' (the parser refuses a second statement)
    if (end == 0) return new Statement.Query(sql);
    Token first = tokens.get(0);
    Statement s = null;
    if (first.is("EXPLAIN")) s = explain(sql, tokens, end);
    else if (first.is("SET")) s = set(sql, tokens, end);
    else if (first.is("SHOW")) s = catalog(tokens, end) != null ? catalog(tokens, end) : show(tokens, end);
    else if (first.is("DESCRIBE") || first.is("DESC")) s = catalog(tokens, end);
    return s != null ? s : new Statement.Query(sql);
  }

  private static Statement explain(String sql, List<Token> tokens, int end) {
    boolean analyze = false;
    boolean verbose = false;
    int i = 1;
    // the last word is the query's even if it is ANALYZE or VERBOSE (the parser then reports it)
    while (i < end - 1 && (tokens.get(i).is("ANALYZE") || tokens.get(i).is("VERBOSE"))) {
      analyze |= tokens.get(i).is("ANALYZE");
      verbose |= tokens.get(i).is("VERBOSE");
      i++;
    }
    if (i >= end) return null;
    int start = tokens.get(i).start();
    String query = sql.substring(0, start).replaceAll("[^\\n]", " ") + sql.substring(start);
    return new Statement.Explain(analyze, verbose, query);
  }

  private static Statement set(String sql, List<Token> tokens, int end) {
    int i = 1;
    if (i + 1 < end && tokens.get(i).is("SESSION") && tokens.get(i + 1).kind() == Kind.WORD) i++;
    String name;
    if (i + 1 < end && tokens.get(i).is("TIME") && tokens.get(i + 1).is("ZONE")) {
      name = "timezone";
      i += 2;
    } else {
      int[] next = new int[1];
      name = dottedName(tokens, i, end, next);
      if (name == null) return null;
      i = next[0];
    }
    if (i < end && (tokens.get(i).is("=") || tokens.get(i).is("TO"))) i++;
    if (i >= end) return null;
    String value = sql.substring(tokens.get(i).start(), tokens.get(end - 1).end());
    return new Statement.Set(name.toLowerCase(Locale.ROOT), unquote(value));
  }

  /** {@code SHOW TABLES|SCHEMAS}, {@code SHOW COLUMNS FROM|IN name}, {@code DESCRIBE|DESC [TABLE] name}; else null. */
  private static Statement catalog(List<Token> tokens, int end) {
    Token first = tokens.get(0);
    int at;
    if (first.is("SHOW")) {
      if (end == 2 && tokens.get(1).is("TABLES")) return new Statement.Catalog(Statement.Catalog.What.TABLES, null, -1);
      if (end == 2 && tokens.get(1).is("SCHEMAS")) return new Statement.Catalog(Statement.Catalog.What.SCHEMAS, null, -1);
      if (end < 4 || !tokens.get(1).is("COLUMNS") || !(tokens.get(2).is("FROM") || tokens.get(2).is("IN"))) return null;
      at = 3;
    } else {
      at = end > 2 && tokens.get(1).is("TABLE") ? 2 : 1;
    }
    if (at >= end) return null;
    // a name, perhaps qualified (main.t, "my.data"): its tokens must touch one another
    for (int i = at + 1; i < end; i++) if (tokens.get(i).start() != tokens.get(i - 1).end()) return null;
    for (int i = at; i < end; i++) {
      Token t = tokens.get(i);
      boolean name = t.kind() == Kind.WORD || t.kind() == Kind.QUOTED;
      if ((i - at) % 2 == 0 ? !name : !t.is(".")) return null;
    }
    Token last = tokens.get(end - 1);
    if (!(last.kind() == Kind.WORD || last.kind() == Kind.QUOTED)) return null;
    return new Statement.Catalog(Statement.Catalog.What.COLUMNS, last.text(), last.start());
  }

  private static Statement show(List<Token> tokens, int end) {
    if (end == 3 && tokens.get(1).is("TIME") && tokens.get(2).is("ZONE")) return new Statement.Show("timezone");
    int[] next = new int[1];
    String name = dottedName(tokens, 1, end, next);
    if (name == null || next[0] != end) return null;
    return new Statement.Show(name.toLowerCase(Locale.ROOT));
  }

  /**
   * A name such as {@code quiver.batch_rows} from token {@code i}: words joined by dots with nothing
   * between them, starting with a letter or '_'; null if there is none. {@code next[0]} is the token after it.
   */
  private static String dottedName(List<Token> tokens, int i, int end, int[] next) {
    if (i >= end || tokens.get(i).kind() != Kind.WORD) return null;
    char c = tokens.get(i).text().charAt(0);
    if (!(Character.isLetter(c) && c < 128 || c == '_')) return null;
    StringBuilder name = new StringBuilder(tokens.get(i).text());
    int j = i + 1;
    while (j < end && tokens.get(j).is(".") && tokens.get(j).start() == tokens.get(j - 1).end()) {
      name.append('.');
      if (j + 1 < end && tokens.get(j + 1).kind() == Kind.WORD && tokens.get(j + 1).start() == tokens.get(j).end()) {
        name.append(tokens.get(j + 1).text());
        j += 2;
      } else {
        j++;
      }
    }
    next[0] = j;
    return name.toString();
  }

  private static String unquote(String v) {
    if (v.length() >= 2 && (v.startsWith("'") && v.endsWith("'") || v.startsWith("\"") && v.endsWith("\""))) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }
}
