package dev.quiver.planner.sql;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;

/**
 * A light lexer over a statement's text that runs before JSqlParser and rewrites the text, keeping every
 * character's position except in a cut-out IN list, so that the parser's {@code line:column} can be mapped
 * back into the user's text:
 * <ul>
 *   <li>a run of unary signs ({@code - - 4}, {@code + - c}), which JSqlParser cannot parse, becomes the one
 *       sign it amounts to (the others blanked): {@code - - 4} is {@code   + 4};</li>
 *   <li>text after the first {@code ;} other than more {@code ;}, blanks and comments is refused (one statement
 *       at a time); trailing {@code ;} are blanked;</li>
 *   <li>a long IN list of literals (JSqlParser's time grows faster than linearly in its length: 100,000 items
 *       took 20 s) is cut out and replaced by a placeholder name, its items read here and put back into the
 *       parsed tree by {@link #restoreInLists}; {@link Prepared#original} maps positions back;</li>
 *   <li>the parse cost of the statement is estimated from its tokens (see {@link #parseCost}), deterministically,
 *       before JSqlParser runs.</li>
 * </ul>
 * Quoted strings and names and comments are skipped.
 */
final class SqlText {
  /** IN lists with at least this many literal items skip JSqlParser. */
  static final int FAST_IN_LIST_ITEMS = 32;
  static final String PLACEHOLDER = "__quiver_in_list_";

  enum Kind { WORD, QUOTED, STRING, NUMBER, PUNCT }

  record Token(Kind kind, int start, int end, String text) {
    boolean is(String p) {
      return (kind == Kind.PUNCT || kind == Kind.WORD) && text.equalsIgnoreCase(p);
    }
  }

  /**
   * The rewritten text, the literal IN lists taken out of it (in placeholder order) and the tokens of the
   * statement. The text has the user's length except where an IN list was cut out; {@link #original} maps an
   * offset in it back to the user's text.
   */
  record Prepared(String text, List<List<Expression>> inLists, List<Token> tokens, int[] cuts) {
    /** The offset in the user's text of offset {@code at} of {@link #text}. */
    int original(int at) {
      int delta = 0;
      for (int k = 0; k < cuts.length; k += 3) {
        // cuts: (start in text, end in text, end in the user's text) of each placeholder
        if (at < cuts[k + 1]) return at < cuts[k] ? at + delta : cuts[k] + delta;
        delta = cuts[k + 2] - cuts[k + 1];
      }
      return at + delta;
    }

    /** The offset in {@link #text} of a parser's {@code line:column} (both from 1). */
    int offsetOf(int line, int column) {
      int at = 0;
      for (int l = 1; l < line && at < text.length(); at++) if (text.charAt(at) == '\n') l++;
      return Math.min(text.length(), at + Math.max(0, column - 1));
    }
  }

  /** Keywords after which a sign starts an operand (so is unary); after any other word, it is binary. */
  private static final Set<String> OPERAND_START = Set.of("SELECT", "WHERE", "AND", "OR", "NOT", "WHEN", "THEN", "ELSE",
      "CASE", "IN", "IS", "BETWEEN", "LIKE", "ILIKE", "ON", "HAVING", "BY", "DISTINCT", "ALL", "ANY", "SOME", "RETURN",
      "LIMIT", "OFFSET", "ESCAPE", "DIV", "MOD", "VALUES", "ROW", "INTERVAL", "SET", "AS", "FROM", "FOR", "TO", "USING");

  private SqlText() {}

  static Prepared prepare(String sql) {
    List<Token> tokens = tokenize(sql);
    char[] out = sql.toCharArray();
    int end = statementEnd(sql, tokens, out);
    if (end < tokens.size()) tokens = tokens.subList(0, end);
    collapseSigns(tokens, out);
    for (Token t : tokens) {
      if (t.kind() != Kind.QUOTED) continue;
      for (int i = t.start() + 1; i < t.end() - 1; i++) if (out[i] == '.') out[i] = DOT_STAND_IN;
    }
    List<List<Expression>> lists = new ArrayList<>();
    List<int[]> regions = new ArrayList<>();
    if (!sql.contains(PLACEHOLDER)) extractInLists(tokens, out, lists, regions);
    List<String> marks = new ArrayList<>();
    markWindowFrames(tokens, out, regions, marks);
    if (regions.isEmpty()) return new Prepared(new String(out), lists, tokens, new int[0]);
    regions.sort(java.util.Comparator.comparingInt(r -> r[0]));
    // cut each list out (JSqlParser reads even blanks at about a microsecond a character)
    StringBuilder text = new StringBuilder(out.length);
    int[] cuts = new int[regions.size() * 3];
    int from = 0;
    for (int k = 0; k < regions.size(); k++) {
      int[] r = regions.get(k);
      text.append(out, from, r[0] - from);
      cuts[3 * k] = text.length();
      if (r[2] >= 0) text.append(PLACEHOLDER).append(r[2]);
      else text.append(marks.get(-r[2] - 1));
      cuts[3 * k + 1] = text.length();
      cuts[3 * k + 2] = r[1];
      from = r[1];
    }
    text.append(out, from, out.length - from);
    return new Prepared(text.toString(), lists, tokens, cuts);
  }

  /** Tokens of {@code sql}: unclosed quotes and comments run to the end (the parser reports them). */
  static List<Token> tokenize(String sql) {
    List<Token> tokens = new ArrayList<>();
    int n = sql.length();
    int i = 0;
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        while (i < n && sql.charAt(i) != '\n') i++;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int e = sql.indexOf("*/", i + 2);
        i = e < 0 ? n : e + 2;
      } else if (c == '\'' || c == '"' || c == '`') {
        int j = i + 1;
        while (j < n) {
          if (sql.charAt(j) == c) {
            if (j + 1 < n && sql.charAt(j + 1) == c) {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        int e = Math.min(n, j + 1);
        tokens.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED, i, e, sql.substring(i, e)));
        i = e;
      } else if (Character.isDigit(c) || c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))) {
        int j = i;
        while (j < n && (Character.isDigit(sql.charAt(j)) || sql.charAt(j) == '.')) j++;
        if (j < n && (sql.charAt(j) == 'e' || sql.charAt(j) == 'E')) {
          int k = j + 1;
          if (k < n && (sql.charAt(k) == '+' || sql.charAt(k) == '-')) k++;
          if (k < n && Character.isDigit(sql.charAt(k))) {
            j = k;
            while (j < n && Character.isDigit(sql.charAt(j))) j++;
          }
        }
        // 12abc is no number to us (the parser decides what it is)
        Kind kind = j < n && isWordChar(sql.charAt(j)) ? Kind.WORD : Kind.NUMBER;
        while (kind == Kind.WORD && j < n && isWordChar(sql.charAt(j))) j++;
        tokens.add(new Token(kind, i, j, sql.substring(i, j)));
        i = j;
      } else if (isWordChar(c)) {
        int j = i;
        while (j < n && isWordChar(sql.charAt(j))) j++;
        tokens.add(new Token(Kind.WORD, i, j, sql.substring(i, j)));
        i = j;
      } else {
        int len = Character.charCount(sql.codePointAt(i));
        tokens.add(new Token(Kind.PUNCT, i, i + len, sql.substring(i, i + len)));
        i += len;
      }
    }
    return tokens;
  }

  /** What {@link #parseCost} found. */
  record Cost(long units, int deepestSubquery, String deepestAt, int maxParenDepth) {}

  /**
   * The work a statement's subqueries cost, estimated from its tokens: the sum over SELECT keywords of 5^(the
   * subqueries in expressions around it). A subquery level is a parenthesis opened right before SELECT or WITH,
   * other than a derived table's (after FROM or JOIN, analysed once); redundant parentheses cost nothing.
   * JSqlParser 5.3's lookahead rescanned a subquery once per enclosing parenthesis, so this once counted
   * parentheses; 5.4 parses nested parentheses and subqueries in time linear in the text (measured: 250 nested
   * scalar subqueries in 3 ms, 256 redundant parentheses around one in 94 ms, 1 MiB of them in 2-4 s), and
   * what still grows with nesting is the analysis: a correlated subquery is analysed again for each level it is
   * nested in (its outer columns found first), so each level of nesting multiplies the work.
   */
  static Cost parseCost(String sql, List<Token> tokens) {
    java.util.ArrayDeque<Boolean> open = new java.util.ArrayDeque<>(); // per open '(': is it a subquery level?
    int counted = 0;
    long units = 0;
    int deepest = -1;
    int deepestAt = 0;
    int maxDepth = 0;
    for (int i = 0; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      if (t.is("(")) {
        Token prev = i > 0 ? tokens.get(i - 1) : null;
        Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
        boolean derived = prev != null && (prev.is("FROM") || prev.is("JOIN"));
        boolean level = !derived && next != null && (next.is("SELECT") || next.is("WITH"));
        open.push(level);
        if (level) counted++;
        maxDepth = Math.max(maxDepth, open.size());
      } else if (t.is(")")) {
        if (!open.isEmpty() && open.pop()) counted--;
      } else if (t.is("SELECT")) {
        units = Math.min(Long.MAX_VALUE / 4, units + pow5(counted));
        if (counted > deepest) {
          deepest = counted;
          deepestAt = t.start();
        }
      }
    }
    return new Cost(units, Math.max(deepest, 0), SqlPositions.at(sql, deepestAt), maxDepth);
  }

  private static long pow5(int n) {
    long r = 1;
    for (int i = 0; i < n && r < Long.MAX_VALUE / 25; i++) r *= 5;
    return r;
  }

  /**
   * Puts the IN lists taken out by {@link #prepare} back into the parsed tree: each list whose only item is
   * the placeholder column {@code __quiver_in_list_k} gets the k-th list's items. The tree is walked through
   * the fields of JSqlParser's classes and the lists they hold, without recursion.
   */
  static void restoreInLists(Object root, List<List<Expression>> lists) {
    if (lists.isEmpty()) return;
    int[] restored = {0};
    replaceInTree(root, (o, type) -> {
      if (o instanceof net.sf.jsqlparser.expression.operators.relational.ExpressionList<?> list && list.size() == 1
          && list.get(0) instanceof net.sf.jsqlparser.schema.Column c && c.getTable() == null
          && c.getColumnName().startsWith(PLACEHOLDER)) {
        int k = Integer.parseInt(c.getColumnName().substring(PLACEHOLDER.length()));
        @SuppressWarnings("unchecked")
        List<Expression> target = (List<Expression>) list;
        target.clear();
        target.addAll(lists.get(k));
        restored[0]++;
      }
      return o;
    });
    if (restored[0] < lists.size()) throw new IllegalStateException("IN list placeholders not found in the parsed statement");
  }

  /** The words JSqlParser 5.4 reads as a {@code DateUnitExpression} where a column could stand. */
  private static final Set<String> DATE_UNITS = Set.of("CENTURY", "DECADE", "YEAR", "QUARTER", "MONTH", "WEEK", "DAY",
      "HOUR", "MINUTE", "SECOND", "MILLENNIUM", "MILLISECOND", "MICROSECOND", "NANOSECOND", "EPOCH", "DOW", "DOY");

  /**
   * JSqlParser 5.4 parses a bare {@code year}, {@code month}, {@code day} … as a date unit, not a column, so {@code
   * WHERE year = 2024} over a Hive partition column {@code year} failed as "the expression 'YEAR' is not supported":
   * every such node where an expression stands becomes the column it names (lower case, as an unquoted name
   * reads). EXTRACT and INTERVAL keep their units (JSqlParser holds those as text). Walks the tree only when the
   * statement has such a word.
   */
  static void dateUnitsAsColumns(Object root, List<Token> tokens) {
    boolean any = false;
    for (Token t : tokens) {
      if (t.kind() == Kind.WORD && DATE_UNITS.contains(t.text().toUpperCase(java.util.Locale.ROOT))) {
        any = true;
        break;
      }
    }
    if (!any) return;
    replaceInTree(root, (v, type) -> v instanceof net.sf.jsqlparser.expression.DateUnitExpression u
        && type.isAssignableFrom(net.sf.jsqlparser.schema.Column.class) ? asColumn(u) : v);
  }

  /**
   * Replaces values in a parsed tree, without recursion: each field of JSqlParser's nodes, and each element of the
   * lists they hold, is given to {@code replace} with the type it may hold ({@code Object} in a list); what it
   * returns is stored when it differs. Lists the parser made unmodifiable are left as they are.
   */
  private static void replaceInTree(Object root, java.util.function.BiFunction<Object, Class<?>, Object> replace) {
    java.util.IdentityHashMap<Object, Boolean> seen = new java.util.IdentityHashMap<>();
    java.util.ArrayDeque<Object> todo = new java.util.ArrayDeque<>();
    todo.push(root);
    while (!todo.isEmpty()) {
      Object o = todo.pop();
      if (o == null || seen.put(o, Boolean.TRUE) != null) continue;
      if (o instanceof List<?> list) {
        @SuppressWarnings("unchecked")
        List<Object> l = (List<Object>) list;
        for (int i = 0; i < l.size(); i++) {
          Object x = l.get(i);
          Object y = replace.apply(x, Object.class);
          if (y != x) {
            try {
              l.set(i, y);
            } catch (UnsupportedOperationException immutable) {
              // left as it is
            }
          } else if (isNode(x)) {
            todo.push(x);
          }
        }
      } else if (o instanceof Iterable<?> it) {
        for (Object x : it) if (isNode(x)) todo.push(x);
      }
      if (o instanceof java.util.Map<?, ?> m) {
        for (Object x : m.values()) if (isNode(x)) todo.push(x);
      }
      if (!o.getClass().getName().startsWith("net.sf.jsqlparser.")) continue;
      for (Class<?> k = o.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
        for (java.lang.reflect.Field f : k.getDeclaredFields()) {
          if (java.lang.reflect.Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) continue;
          try {
            f.setAccessible(true);
            Object v = f.get(o);
            Object y = replace.apply(v, f.getType());
            if (y != v) f.set(o, y);
            else if (isNode(v)) todo.push(v);
          } catch (ReflectiveOperationException | RuntimeException e) {
            // not a part of the tree we can read
          }
        }
      }
    }
  }

  /**
   * Stands in for a '.' inside a quoted name while JSqlParser parses: it split {@code "my.data"} into schema {@code
   * my} and table {@code data}, though a quoted identifier is one name (a file {@code my.data.parquet} is table
   * {@code my.data}). Same length, so positions hold; {@link #restoreDots} puts the dots back after parsing.
   */
  static final char DOT_STAND_IN = '\u2024';

  /** Whether {@code tokens} have a quoted name with a '.' in it (then {@link #prepare} wrote stand-ins). */
  static boolean hasDottedName(List<Token> tokens) {
    for (Token t : tokens) if (t.kind() == Kind.QUOTED && t.text().indexOf('.') >= 0) return true;
    return false;
  }

  /** Every quoted name's stand-ins in a parsed tree back to dots. */
  static void restoreDots(Object root, List<Token> tokens) {
    if (!hasDottedName(tokens)) return;
    replaceInTree(root, (v, type) -> v instanceof String str && str.indexOf(DOT_STAND_IN) >= 0
        ? str.replace(DOT_STAND_IN, '.') : v);
  }

  private static net.sf.jsqlparser.schema.Column asColumn(net.sf.jsqlparser.expression.DateUnitExpression u) {
    return new net.sf.jsqlparser.schema.Column(u.toString().toLowerCase(java.util.Locale.ROOT));
  }

  /** Whether {@code v} may hold parts of a parsed statement (not parser state, tokens or strings). */
  private static boolean isNode(Object v) {
    if (v == null) return false;
    if (v instanceof java.util.Collection<?> || v instanceof java.util.Map<?, ?>) return true;
    String n = v.getClass().getName();
    return n.startsWith("net.sf.jsqlparser.") && !n.startsWith("net.sf.jsqlparser.parser.");
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }

  /**
   * The index of the first token after the statement: the statement ends at its first {@code ;}; only more
   * {@code ;} may follow (blanked in {@code out}). Anything else is a second statement: an error.
   */
  private static int statementEnd(String sql, List<Token> tokens, char[] out) {
    for (int i = 0; i < tokens.size(); i++) {
      if (!tokens.get(i).is(";")) continue;
      for (int j = i; j < tokens.size(); j++) {
        Token t = tokens.get(j);
        if (!t.is(";")) {
          throw new QuiverException(ErrorCode.SYNTAX_ERROR, "syntax error at " + SqlPositions.at(sql, t.start())
              + ": only one statement is allowed, but more text follows the ';' at " + SqlPositions.at(sql, tokens.get(i).start()));
        }
        out[t.start()] = ' ';
      }
      return i;
    }
    return tokens.size();
  }

  private static boolean isSign(Token t) {
    return t.is("-") || t.is("+");
  }

  /** Whether a sign after {@code prev} is binary (prev ends an operand). */
  private static boolean endsOperand(Token prev) {
    return switch (prev.kind()) {
      case NUMBER, STRING, QUOTED -> true;
      case WORD -> !OPERAND_START.contains(prev.text().toUpperCase(Locale.ROOT));
      case PUNCT -> prev.is(")") || prev.is("]") || prev.is("?");
    };
  }

  /** Each run of two or more unary signs becomes the single sign it amounts to; the others are blanked. */
  private static void collapseSigns(List<Token> tokens, char[] out) {
    for (int i = 0; i < tokens.size(); i++) {
      if (!isSign(tokens.get(i))) continue;
      int j = i;
      while (j < tokens.size() && isSign(tokens.get(j))) j++;
      // tokens i..j-1 are signs; the first is binary after an operand
      int first = i > 0 && endsOperand(tokens.get(i - 1)) ? i + 1 : i;
      if (j - first >= 2) {
        boolean negative = false;
        for (int k = first; k < j; k++) {
          negative ^= tokens.get(k).is("-");
          out[tokens.get(k).start()] = ' ';
        }
        out[tokens.get(j - 1).start()] = negative ? '-' : '+';
      }
      i = j - 1;
    }
  }

  /**
   * {@code IN (lit, lit, …)} with at least {@link #FAST_IN_LIST_ITEMS} literal items (numbers with optional
   * signs, strings, NULL) is rewritten to {@code IN (__quiver_in_list_k   …)}, its items read into {@code lists}.
   */
  private static void extractInLists(List<Token> tokens, char[] out, List<List<Expression>> lists, List<int[]> regions) {
    for (int i = 0; i + 1 < tokens.size(); i++) {
      if (!tokens.get(i).is("IN") || !tokens.get(i + 1).is("(")) continue;
      List<Expression> items = new ArrayList<>();
      int k = i + 2;
      boolean ok = false;
      while (k < tokens.size()) {
        int signs = 0;
        while (k < tokens.size() && isSign(tokens.get(k))) {
          signs++;
          k++;
        }
        if (k >= tokens.size()) break;
        Token t = tokens.get(k);
        Expression item;
        if (t.kind() == Kind.NUMBER) {
          boolean decimal = t.text().indexOf('.') >= 0 || t.text().indexOf('e') >= 0 || t.text().indexOf('E') >= 0;
          if (t.text().length() > Literals.MAX_NUMBER_CHARS) break; // the binder refuses it, with its message
          Expression v = decimal ? new DoubleValue(t.text()) : new LongValue(t.text());
          item = v;
        } else if (t.kind() == Kind.STRING && t.text().length() >= 2 && t.text().endsWith("'") && signs == 0) {
          item = new StringValue(t.text()); // quoted: JSqlParser strips the quotes (and reads no prefix)
        } else if (t.is("NULL") && signs == 0) {
          item = new NullValue();
        } else {
          break;
        }
        // a run of signs was collapsed into its last one
        if (signs > 0 && out[tokens.get(k - 1).start()] == '-') item = new SignedExpression('-', item);
        items.add(item);
        k++;
        if (k >= tokens.size()) break;
        if (tokens.get(k).is(")")) {
          ok = true;
          break;
        }
        if (!tokens.get(k).is(",")) break;
        k++;
      }
      if (!ok || items.size() < FAST_IN_LIST_ITEMS) continue;
      regions.add(new int[] {tokens.get(i + 1).end(), tokens.get(k).start(), lists.size()});
      lists.add(items);
      i = k;
    }
  }

  /**
   * Window frames JSqlParser cannot parse: a {@code GROUPS} frame is written as {@code RANGE } (same length) and an
   * {@code EXCLUDE …} clause is blanked, and what they said is appended as a mark to the name of the window function
   * ({@code f(...) OVER (...)}) or of the named window ({@code WINDOW w AS (...)}) they belong to, where
   * {@link WindowBinder} reads it. The marks are inserted regions (empty in the user's text) of {@code regions}. A
   * window refining a named one, {@code OVER (w ORDER BY …)}, gets w's text in place of its name.
   */
  private static void markWindowFrames(List<Token> tokens, char[] out, List<int[]> regions, List<String> marks) {
    // the named windows' texts, for OVER (w ORDER BY …), which JSqlParser cannot parse: w is replaced by its text
    java.util.Map<String, String> named = new java.util.HashMap<>();
    boolean inWindow = false;
    for (int i = 0; i + 2 < tokens.size(); i++) {
      Token t = tokens.get(i);
      if (t.is("WINDOW")) inWindow = true;
      if (inWindow && t.kind() == Kind.WORD && tokens.get(i + 1).is("AS") && tokens.get(i + 2).is("(")) {
        int depth = 0;
        for (int k = i + 2; k < tokens.size(); k++) {
          if (tokens.get(k).is("(")) depth++;
          else if (tokens.get(k).is(")") && --depth == 0) {
            named.putIfAbsent(t.text().toLowerCase(Locale.ROOT), new String(out, tokens.get(i + 2).end(),
                tokens.get(k).start() - tokens.get(i + 2).end()));
            break;
          }
        }
      }
    }
    boolean windowClause = false;
    for (int i = 0; i + 1 < tokens.size(); i++) {
      Token t = tokens.get(i);
      if (t.is("WINDOW")) windowClause = true;
      int nameToken;
      if (t.is("OVER") && tokens.get(i + 1).is("(") && i + 3 < tokens.size() && tokens.get(i + 2).kind() == Kind.WORD
          && named.containsKey(tokens.get(i + 2).text().toLowerCase(Locale.ROOT)) && !tokens.get(i + 3).is("(")
          && !tokens.get(i + 3).is(".") && !tokens.get(i + 3).is(",")) {
        Token w = tokens.get(i + 2);
        marks.add(named.get(w.text().toLowerCase(Locale.ROOT)) + " ");
        regions.add(new int[] {w.start(), w.end(), -marks.size()});
      }
      if (t.is("OVER") && tokens.get(i + 1).is("(")) {
        // the function's name: before the parenthesis matching the one before OVER
        nameToken = -1;
        if (i > 0 && tokens.get(i - 1).is(")")) {
          int depth = 0;
          for (int k = i - 1; k >= 0; k--) {
            if (tokens.get(k).is(")")) depth++;
            else if (tokens.get(k).is("(") && --depth == 0) {
              if (k > 0 && tokens.get(k - 1).kind() == Kind.WORD) nameToken = k - 1;
              break;
            }
          }
        }
      } else if (windowClause && t.is("AS") && tokens.get(i + 1).is("(") && i > 0
          && (tokens.get(i - 1).kind() == Kind.WORD || tokens.get(i - 1).kind() == Kind.QUOTED)) {
        nameToken = i - 1;
      } else {
        continue;
      }
      // the window's parentheses: GROUPS and EXCLUDE at their top level
      int depth = 0;
      boolean groups = false;
      String exclude = null;
      for (int k = i + 1; k < tokens.size(); k++) {
        Token x = tokens.get(k);
        if (x.is("(")) depth++;
        else if (x.is(")") && --depth == 0) break;
        if (depth != 1) continue;
        if (x.is("GROUPS") && k + 1 < tokens.size() && (tokens.get(k + 1).is("BETWEEN") || tokens.get(k + 1).is("UNBOUNDED")
            || tokens.get(k + 1).is("CURRENT") || tokens.get(k + 1).kind() == Kind.NUMBER)) {
          groups = true;
          "RANGE ".getChars(0, 6, out, x.start());
        } else if (x.is("EXCLUDE") && k + 1 < tokens.size()) {
          Token a = tokens.get(k + 1);
          Token b = k + 2 < tokens.size() ? tokens.get(k + 2) : null;
          String kind = null;
          int last = k + 1;
          if (a.is("CURRENT") && b != null && b.is("ROW")) {
            kind = "CURRENT_ROW";
            last = k + 2;
          } else if (a.is("NO") && b != null && b.is("OTHERS")) {
            kind = "NO_OTHERS";
            last = k + 2;
          } else if (a.is("GROUP")) {
            kind = "GROUP";
          } else if (a.is("TIES")) {
            kind = "TIES";
          }
          if (kind == null) continue; // the parser reports it
          exclude = kind;
          for (int c = x.start(); c < tokens.get(last).end(); c++) if (!Character.isWhitespace(out[c])) out[c] = ' ';
          k = last;
        }
      }
      if ((groups || exclude != null) && nameToken >= 0) {
        Token name = tokens.get(nameToken);
        int at = name.kind() == Kind.QUOTED ? name.end() - 1 : name.end();
        marks.add((groups ? WindowBinder.GROUPS_MARK : "") + (exclude != null ? WindowBinder.EXCLUDE_MARK + exclude : ""));
        regions.add(new int[] {at, at, -marks.size()});
      }
    }
  }
}
