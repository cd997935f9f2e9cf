package dev.quiver.planner.sql;

import java.util.Locale;

/** {@code line:column} positions in SQL text, for error messages. Lines and columns count from 1. */
public final class SqlPositions {
  private SqlPositions() {}

  /** The position of the first whole-word, case-insensitive occurrence of {@code word}, or null. */
  public static String find(String sql, String word) {
    if (word == null || word.isEmpty()) return null;
    String lower = sql.toLowerCase(Locale.ROOT);
    String w = word.toLowerCase(Locale.ROOT);
    int from = 0;
    while (true) {
      int at = lower.indexOf(w, from);
      if (at < 0) return null;
      boolean startOk = at == 0 || !isWordChar(lower.charAt(at - 1));
      int end = at + w.length();
      boolean endOk = end >= lower.length() || !isWordChar(lower.charAt(end));
      if (startOk && endOk) return at(sql, at);
      from = at + 1;
    }
  }

  /** The {@code line:column} of a character offset. */
  public static String at(String sql, int offset) {
    int line = 1;
    int col = 1;
    for (int i = 0; i < offset && i < sql.length(); i++) {
      if (sql.charAt(i) == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return line + ":" + col;
  }

  /** " at line:column" for {@code word}, or "" when it cannot be found. */
  public static String suffix(String sql, String word) {
    String p = find(sql, word);
    return p == null ? "" : " at " + p;
  }

  /**
   * " at line:column" of {@code node}'s printed text in {@code sql} (the parser's printing of a subquery usually
   * equals its text), or "" when that text is not found verbatim.
   */
  public static String located(String sql, Object node) {
    String text = snippet(node);
    int at = sql == null ? -1 : sql.indexOf(text); // a cut snippet is never found verbatim
    return at < 0 ? "" : " at " + at(sql, at);
  }

  /** The SQL text of {@code node} for an error message, cut to {@link #SNIPPET} characters. */
  public static String snippet(Object node) {
    String s;
    try {
      s = String.valueOf(node);
    } catch (StackOverflowError tooDeep) { // JSqlParser prints its trees recursively
      return "(an expression too deeply nested to print)";
    }
    if (s.length() <= SNIPPET) return s;
    int end = Character.isHighSurrogate(s.charAt(SNIPPET - 1)) ? SNIPPET - 1 : SNIPPET;
    return s.substring(0, end) + "… (" + s.length() + " characters)";
  }

  /** How much of a statement's text an error message quotes. */
  public static final int SNIPPET = 200;

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '"';
  }
}
