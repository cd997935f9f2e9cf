package dev.quiver.it;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.Offset;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;

/**
 * Compares the answer of one query from two engines (an oracle, DuckDB, and Quiver): fetches every row
 * through JDBC, normalizes the values and compares the results as multisets, or, when the query's
 * outermost level has an ORDER BY, in order.
 *
 * <p>Normalization: every number becomes a {@link BigDecimal} (exact: integers of every width, HUGEINT,
 * DECIMAL) or a {@link Double} (REAL/DOUBLE; {@code -0.0} becomes {@code 0.0}); two numbers are equal when
 * both are exact and equal by value, or, when either is floating point, when they are within
 * {@link #ABS_TOLERANCE} or {@link #REL_TOLERANCE} of each other (NaN equals NaN, an infinity only
 * itself) -- an average may be DOUBLE on one side and DECIMAL on the other. Dates become
 * {@link LocalDate}, timestamps {@link LocalDateTime} (a zoned one at UTC), binary values hex text,
 * everything else its {@code toString()}; SQL NULL stays {@code null}.
 *
 * <p>Ordered comparison: the ORDER BY items are mapped to output columns (by ordinal, output alias,
 * column name or expression text). Row {@code i} of both sides must then agree on those keys, and the
 * runs of rows with equal keys (ties) are compared as multisets, so an ORDER BY that is not a total order
 * is still compared deterministically; with a LIMIT/OFFSET the first and last run may be cut anywhere
 * in its ties and are compared on their keys only. When an ORDER BY item cannot be mapped to an output
 * column, the rows are compared strictly position by position (TPC-H's ORDER BY keys are total).
 */
final class ResultComparison {
  static final double REL_TOLERANCE = 1e-9;
  static final double ABS_TOLERANCE = 1e-9;
  /** How many differing rows of each side a failure message shows. */
  static final int SHOWN_ROWS = 5;
  private static final MathContext SORT_DIGITS = new MathContext(10);

  private ResultComparison() {}

  /** The normalized answer of a query: column labels and rows. */
  record Result(List<String> columns, List<List<Object>> rows) {
    int size() {
      return rows.size();
    }
  }

  /** How the outermost level of a query orders its rows, as far as it can be told from the SQL. */
  record Ordering(boolean ordered, List<Integer> keyColumns, boolean limited) {
    static final Ordering NONE = new Ordering(false, List.of(), false);

    /** Ordered, but the keys are unknown: compare position by position. */
    boolean strict() {
      return ordered && keyColumns == null;
    }
  }

  // ---------------------------------------------------------------- fetching

  /** Every row of {@code sql} on {@code c}, normalized. */
  static Result fetch(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      int n = md.getColumnCount();
      List<String> columns = new ArrayList<>(n);
      int[] types = new int[n];
      for (int i = 1; i <= n; i++) {
        columns.add(md.getColumnLabel(i));
        types[i - 1] = md.getColumnType(i);
      }
      List<List<Object>> rows = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
          // the Flight SQL JDBC driver 18.3.0's getObject is "not implemented" for TIMESTAMP WITH TIME ZONE
          Object v = types[i - 1] == Types.TIMESTAMP_WITH_TIMEZONE ? rs.getTimestamp(i) : rs.getObject(i);
          row.add(normalize(rs.wasNull() ? null : v));
        }
        rows.add(row);
      }
      if (rows.isEmpty() && columns.size() % 2 == 0 && columns.size() > 0
          && columns.subList(0, columns.size() / 2).equals(columns.subList(columns.size() / 2, columns.size()))) {
        // Flight SQL JDBC driver 15..18 bug (apache/arrow-java#44): a result stream without a single batch
        // leaves the statement's columns listed twice in the ResultSetMetaData
        columns = new ArrayList<>(columns.subList(0, columns.size() / 2));
      }
      return new Result(columns, rows);
    }
  }

  /** A JDBC value in its comparable form (see the class comment). */
  static Object normalize(Object o) {
    if (o == null) return null;
    if (o instanceof Double d) return d == 0.0 ? 0.0 : d; // -0.0 == 0.0
    if (o instanceof Float f) return normalize((double) f);
    if (o instanceof BigDecimal b) return b;
    if (o instanceof BigInteger b) return new BigDecimal(b);
    if (o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte) {
      return BigDecimal.valueOf(((Number) o).longValue());
    }
    if (o instanceof Number n) return new BigDecimal(n.toString());
    if (o instanceof Boolean || o instanceof String) return o;
    if (o instanceof java.sql.Timestamp t) return t.toLocalDateTime();
    if (o instanceof java.sql.Date d) return d.toLocalDate();
    if (o instanceof java.sql.Time t) return t.toLocalTime();
    if (o instanceof LocalDateTime || o instanceof LocalDate || o instanceof LocalTime) return o;
    if (o instanceof OffsetDateTime t) return t.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    if (o instanceof java.time.Instant t) return LocalDateTime.ofInstant(t, ZoneOffset.UTC);
    if (o instanceof byte[] b) return "0x" + HexFormat.of().formatHex(b);
    if (o instanceof java.sql.Blob b) {
      try {
        return "0x" + HexFormat.of().formatHex(b.getBytes(1, (int) b.length()));
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    if (o instanceof java.sql.Clob c) {
      try {
        return c.getSubString(1, (int) c.length());
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    return o.toString();
  }

  // ---------------------------------------------------------------- values

  static boolean isNumber(Object o) {
    return o instanceof BigDecimal || o instanceof Double;
  }

  static boolean valuesEqual(Object a, Object b) {
    if (a == null || b == null) return a == b;
    if (isNumber(a) && isNumber(b)) return numbersEqual(a, b);
    return a.equals(b);
  }

  static boolean numbersEqual(Object a, Object b) {
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) return x.compareTo(y) == 0;
    double x = ((Number) a).doubleValue();
    double y = ((Number) b).doubleValue();
    if (Double.isNaN(x) || Double.isNaN(y)) return Double.isNaN(x) && Double.isNaN(y);
    if (Double.isInfinite(x) || Double.isInfinite(y)) return x == y;
    double diff = Math.abs(x - y);
    return diff <= ABS_TOLERANCE || diff <= REL_TOLERANCE * Math.max(Math.abs(x), Math.abs(y));
  }

  static boolean rowsEqual(List<Object> a, List<Object> b) {
    if (a.size() != b.size()) return false;
    for (int i = 0; i < a.size(); i++) {
      if (!valuesEqual(a.get(i), b.get(i))) return false;
    }
    return true;
  }

  /**
   * A total order on normalized values used to line up two multisets: NULL first, then by kind; numbers
   * by their value rounded to 10 significant digits (so that values within the tolerance almost always
   * sort alike), NaN above every number.
   */
  static final Comparator<Object> VALUE_ORDER = ResultComparison::compareValues;

  private static int rank(Object o) {
    if (o == null) return 0;
    if (o instanceof Boolean) return 1;
    if (isNumber(o)) return 2;
    if (o instanceof String) return 3;
    if (o instanceof LocalDate) return 4;
    if (o instanceof LocalDateTime) return 5;
    if (o instanceof LocalTime) return 6;
    return 7;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compareValues(Object a, Object b) {
    int ra = rank(a);
    int rb = rank(b);
    if (ra != rb) return Integer.compare(ra, rb);
    if (a == null) return 0;
    if (ra == 2) return compareNumbers(a, b);
    if (a instanceof Comparable ca && a.getClass() == b.getClass()) return ca.compareTo(b);
    return a.toString().compareTo(b.toString());
  }

  private static int compareNumbers(Object a, Object b) {
    double x = ((Number) a).doubleValue();
    double y = ((Number) b).doubleValue();
    boolean specialA = Double.isNaN(x) || Double.isInfinite(x);
    boolean specialB = Double.isNaN(y) || Double.isInfinite(y);
    if (specialA || specialB) return Double.compare(x, y); // -Inf < finite < +Inf < NaN
    return sortKey(a).compareTo(sortKey(b));
  }

  private static BigDecimal sortKey(Object n) {
    BigDecimal b = n instanceof BigDecimal d ? d : new BigDecimal((Double) n);
    return b.round(SORT_DIGITS);
  }

  private static final Comparator<List<Object>> ROW_ORDER = (a, b) -> {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = compareValues(a.get(i), b.get(i));
      if (c != 0) return c;
    }
    return Integer.compare(a.size(), b.size());
  };

  // ---------------------------------------------------------------- ORDER BY analysis

  /** How the outermost level of {@code sql} orders its rows (see the class comment). */
  static Ordering ordering(String sql) {
    Select select;
    try {
      select = (Select) CCJSqlParserUtil.parse(sql);
    } catch (Exception | Error e) {
      return Ordering.NONE; // not something JSqlParser reads: no ORDER BY analysis, compare as multisets
    }
    while (select instanceof ParenthesedSelect p && (p.getOrderByElements() == null || p.getOrderByElements().isEmpty())
        && p.getLimit() == null && p.getOffset() == null) {
      select = p.getSelect();
    }
    List<OrderByElement> order = select.getOrderByElements();
    boolean limited = hasLimit(select.getLimit(), select.getOffset());
    if (select instanceof PlainSelect ps) limited |= ps.getFetch() != null;
    if (order == null || order.isEmpty()) return new Ordering(false, List.of(), limited);
    List<SelectItem<?>> items = select instanceof PlainSelect ps ? ps.getSelectItems()
        : select instanceof SetOperationList sol && sol.getSelects().get(0) instanceof PlainSelect first
            ? first.getSelectItems() : null;
    List<Integer> keys = new ArrayList<>();
    for (OrderByElement e : order) {
      Integer k = items == null ? null : outputColumn(e.getExpression(), items, select instanceof SetOperationList);
      if (k == null) return new Ordering(true, null, limited);
      keys.add(k);
    }
    return new Ordering(true, keys, limited);
  }

  private static boolean hasLimit(Limit limit, Offset offset) {
    return limit != null || offset != null;
  }

  /** The output column (0-based) an ORDER BY item names, or null if that cannot be told. */
  private static Integer outputColumn(Expression e, List<SelectItem<?>> items, boolean setOperation) {
    for (SelectItem<?> item : items) {
      if (item.getExpression() instanceof AllColumns || item.getExpression() instanceof AllTableColumns) {
        return e instanceof LongValue l ? (int) l.getValue() - 1 : null; // positions are still clear
      }
    }
    if (e instanceof LongValue l) {
      int k = (int) l.getValue() - 1;
      return k >= 0 && k < items.size() ? k : null;
    }
    if (e instanceof Column col && col.getTable() == null) {
      for (int i = 0; i < items.size(); i++) {
        Alias a = items.get(i).getAlias();
        if (a != null && unquote(a.getName()).equalsIgnoreCase(unquote(col.getColumnName()))) return i;
      }
    }
    if (e instanceof Column col) {
      Integer found = null;
      for (int i = 0; i < items.size(); i++) {
        if (items.get(i).getExpression() instanceof Column c
            && unquote(c.getColumnName()).equalsIgnoreCase(unquote(col.getColumnName()))
            && (col.getTable() == null || c.getTable() == null
                || unquote(c.getTable().getName()).equalsIgnoreCase(unquote(col.getTable().getName())))) {
          if (found != null) return null; // ambiguous
          found = i;
        }
      }
      if (found != null) return found;
    }
    if (setOperation) return null;
    String text = canonical(e.toString());
    for (int i = 0; i < items.size(); i++) {
      if (canonical(items.get(i).getExpression().toString()).equals(text)) return i;
    }
    return null;
  }

  private static String unquote(String name) {
    return name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"") ? name.substring(1, name.length() - 1) : name;
  }

  private static String canonical(String expression) {
    return expression.replaceAll("\\s+", "").toLowerCase(Locale.ROOT);
  }

  // ---------------------------------------------------------------- comparison

  /** Fails with a readable message when {@code actual} (Quiver) does not match {@code expected} (DuckDB). */
  static void assertSameResults(String sql, Result expected, Result actual) {
    compare(sql, expected, actual).ifPresent(message -> {
      throw new AssertionError(message);
    });
  }

  /** A description of how {@code actual} differs from {@code expected}, or empty when they match. */
  static Optional<String> compare(String sql, Result expected, Result actual) {
    return compare(sql, ordering(sql), expected, actual);
  }

  static Optional<String> compare(String sql, Ordering ordering, Result expected, Result actual) {
    int width = expected.columns().size();
    if (actual.columns().size() != width) {
      return Optional.of(header("column counts differ", sql, expected, actual) + "DuckDB columns: " + expected.columns()
          + "\nQuiver columns: " + actual.columns() + "\n" + sample(expected, actual));
    }
    for (List<Object> row : actual.rows()) {
      if (row.size() != width) return Optional.of(header("ragged row", sql, expected, actual) + row);
    }
    if (!ordering.ordered()) return multisetDifference(sql, expected, actual, "rows differ (compared as multisets)");
    if (expected.size() != actual.size()) {
      Optional<String> d = multisetDifference(sql, expected, actual, "row counts differ (ORDER BY query)");
      return d.isPresent() ? d : Optional.of(header("row counts differ (ORDER BY query)", sql, expected, actual));
    }
    if (ordering.strict()) return positional(sql, expected, actual, null);
    return orderedWithTies(sql, ordering, expected, actual);
  }

  /** Row by row; {@code keys} null compares whole rows, else only those columns. */
  private static Optional<String> positional(String sql, Result expected, Result actual, List<Integer> keys) {
    for (int i = 0; i < expected.size(); i++) {
      List<Object> e = project(expected.rows().get(i), keys);
      List<Object> a = project(actual.rows().get(i), keys);
      if (!rowsEqual(e, a)) {
        boolean sameMultiset = multisetDifference(sql, expected, actual, "").isEmpty();
        String what = (keys == null ? "rows differ at position " + i : "ORDER BY keys " + keys + " differ at position " + i)
            + (sameMultiset ? " (same rows as a multiset: the order is wrong)" : "");
        return Optional.of(header(what, sql, expected, actual) + around(expected, actual, i));
      }
    }
    return Optional.empty();
  }

  private static Optional<String> orderedWithTies(String sql, Ordering ordering, Result expected, Result actual) {
    List<Integer> keys = ordering.keyColumns();
    Optional<String> keyMismatch = positional(sql, expected, actual, keys);
    if (keyMismatch.isPresent()) return keyMismatch;
    int n = expected.size();
    int start = 0;
    while (start < n) {
      int end = start + 1;
      List<Object> key = project(expected.rows().get(start), keys);
      while (end < n && rowsEqual(key, project(expected.rows().get(end), keys))) end++;
      boolean boundary = ordering.limited() && (start == 0 || end == n);
      if (!boundary) {
        List<List<Object>> e = expected.rows().subList(start, end);
        List<List<Object>> a = actual.rows().subList(start, end);
        Diff d = diff(e, a);
        if (!d.isEmpty()) {
          return Optional.of(header("rows " + start + ".." + (end - 1) + " (tied on the ORDER BY keys " + keys
              + ") differ", sql, expected, actual) + d.describe(e.size(), a.size()));
        }
      }
      start = end;
    }
    return Optional.empty();
  }

  private static List<Object> project(List<Object> row, List<Integer> keys) {
    if (keys == null) return row;
    List<Object> out = new ArrayList<>(keys.size());
    for (int k : keys) out.add(k < row.size() ? row.get(k) : null);
    return out;
  }

  private static Optional<String> multisetDifference(String sql, Result expected, Result actual, String what) {
    Diff d = diff(expected.rows(), actual.rows());
    if (d.isEmpty()) return Optional.empty();
    return Optional.of(header(what, sql, expected, actual) + d.describe(expected.size(), actual.size()));
  }

  /** Rows only in DuckDB's answer and rows only in Quiver's. */
  record Diff(List<List<Object>> onlyExpected, List<List<Object>> onlyActual) {
    boolean isEmpty() {
      return onlyExpected.isEmpty() && onlyActual.isEmpty();
    }

    String describe(int expectedRows, int actualRows) {
      StringBuilder sb = new StringBuilder();
      sb.append("rows only in DuckDB: ").append(onlyExpected.size()).append(" of ").append(expectedRows);
      appendRows(sb, onlyExpected);
      sb.append("rows only in Quiver: ").append(onlyActual.size()).append(" of ").append(actualRows);
      appendRows(sb, onlyActual);
      return sb.toString();
    }
  }

  /** The multiset difference, with numbers matched within the tolerance. */
  static Diff diff(List<List<Object>> expected, List<List<Object>> actual) {
    List<List<Object>> e = new ArrayList<>(expected);
    List<List<Object>> a = new ArrayList<>(actual);
    e.sort(ROW_ORDER);
    a.sort(ROW_ORDER);
    List<List<Object>> onlyE = new ArrayList<>();
    List<List<Object>> onlyA = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < e.size() && j < a.size()) {
      if (rowsEqual(e.get(i), a.get(j))) {
        i++;
        j++;
      } else if (ROW_ORDER.compare(e.get(i), a.get(j)) <= 0) {
        onlyE.add(e.get(i++));
      } else {
        onlyA.add(a.get(j++));
      }
    }
    while (i < e.size()) onlyE.add(e.get(i++));
    while (j < a.size()) onlyA.add(a.get(j++));
    // values within the tolerance may sort apart: match what is left pairwise (bounded work)
    if (!onlyE.isEmpty() && !onlyA.isEmpty() && (long) onlyE.size() * onlyA.size() <= 25_000_000L) {
      for (var it = onlyE.iterator(); it.hasNext();) {
        List<Object> row = it.next();
        for (var jt = onlyA.iterator(); jt.hasNext();) {
          if (rowsEqual(row, jt.next())) {
            jt.remove();
            it.remove();
            break;
          }
        }
      }
    }
    return new Diff(onlyE, onlyA);
  }

  // ---------------------------------------------------------------- messages

  private static String header(String what, String sql, Result expected, Result actual) {
    return "Quiver disagrees with DuckDB: " + what + "\nquery:\n" + indent(sql.strip()) + "\n"
        + "DuckDB: " + expected.size() + " rows, Quiver: " + actual.size() + " rows; columns " + expected.columns() + "\n";
  }

  private static String sample(Result expected, Result actual) {
    StringBuilder sb = new StringBuilder("DuckDB's first rows:");
    appendRows(sb, expected.rows());
    sb.append("Quiver's first rows:");
    appendRows(sb, actual.rows());
    return sb.toString();
  }

  /** Both sides' rows around position {@code i}. */
  private static String around(Result expected, Result actual, int i) {
    int from = Math.max(0, i - 2);
    StringBuilder sb = new StringBuilder();
    for (Result r : List.of(expected, actual)) {
      sb.append(r == expected ? "DuckDB" : "Quiver").append(" rows ").append(from).append("..")
          .append(Math.min(r.size(), from + SHOWN_ROWS) - 1).append(":\n");
      for (int k = from; k < Math.min(r.size(), from + SHOWN_ROWS); k++) {
        sb.append(k == i ? "  > " : "    ").append(format(r.rows().get(k))).append('\n');
      }
    }
    return sb.toString();
  }

  private static void appendRows(StringBuilder sb, List<List<Object>> rows) {
    sb.append('\n');
    for (int k = 0; k < Math.min(SHOWN_ROWS, rows.size()); k++) sb.append("    ").append(format(rows.get(k))).append('\n');
    if (rows.size() > SHOWN_ROWS) sb.append("    ... ").append(rows.size() - SHOWN_ROWS).append(" more\n");
  }

  static String format(List<Object> row) {
    return row.stream().map(ResultComparison::format).collect(Collectors.joining(", ", "(", ")"));
  }

  private static String format(Object v) {
    if (v == null) return "NULL";
    if (v instanceof String s) return "'" + s.replace("'", "''") + "'";
    if (v instanceof BigDecimal b) return b.toPlainString();
    if (v instanceof Double d) return d + "d";
    if (v instanceof LocalDate d) return "DATE '" + d + "'";
    if (v instanceof LocalDateTime t) return "TIMESTAMP '" + t.toString().replace('T', ' ') + "'";
    return v.toString();
  }

  private static String indent(String sql) {
    return sql.lines().map(l -> "  " + l).collect(Collectors.joining("\n"));
  }
}
