package dev.quiver.it;

import dev.quiver.planner.QuerySettings;
import dev.quiver.server.QuiverServer;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs SQLite's sqllogictest files ({@code .test}) against a real Quiver server. Quiver is read-only, so each
 * file's {@code statement} records (CREATE TABLE, INSERT, UPDATE, DELETE, views, ...) build its state in DuckDB;
 * before the first query after a change, every table and view is written as a Parquet file into a fresh data
 * directory and a new server is started on it (a view becomes a table holding its rows at that moment; CREATE/DROP
 * TRIGGER and INDEX and REINDEX are not run: the corpus' triggers only SELECT 1). Queries, and SELECT statements, go
 * to Quiver through the Flight SQL JDBC driver ({@link #THREADS} connections) and are compared with the file's expected
 * results as sqllogictest prints them: {@code I} as an integer, {@code R} as {@code %.3f}, {@code T} as text
 * ({@code (empty)} for '', characters outside ' '..'~' as '@'), NULL as {@code NULL}; {@code rowsort} sorts the
 * rows and {@code valuesort} the values (by their printed text), and {@code N values hashing to H} is the MD5 of
 * every value followed by a newline. Records for another engine ({@code onlyif sqlite}) are skipped; those
 * skipping another engine ({@code skipif sqlite}) run; a {@code halt} that applies ends the file.
 */
final class SqlLogicRunner implements AutoCloseable {
  /** The engine name matched by {@code onlyif} / {@code skipif}: Quiver is none of sqlite, mysql, mssql, ... */
  static final String ENGINE = "quiver";
  static final long STATEMENT_TIMEOUT_MS = 60_000;
  /** Queries in flight at once (each on its own connection): {@code -Dquiver.sltThreads}, 2 by default. */
  static final int THREADS = Integer.getInteger("quiver.sltThreads", 2);
  private static final Pattern HASHED = Pattern.compile("(\\d+) values hashing to ([0-9a-f]{32})");

  enum Kind { STATEMENT, QUERY, HALT, HASH_THRESHOLD }

  /** One record: its first line (after conditions), what it expects, and the conditions before it. */
  record Record(int line, Kind kind, boolean expectError, String types, String sort, String sql,
      List<String> expected, List<String> conditions) {
    boolean applies() {
      for (String c : conditions) {
        String[] w = c.trim().split("\\s+");
        if (w[0].equals("onlyif") && !w[1].equalsIgnoreCase(ENGINE)) return false;
        if (w[0].equals("skipif") && w[1].equalsIgnoreCase(ENGINE)) return false;
      }
      return true;
    }
  }

  enum Outcome { PASS, ERROR, WRONG }

  /** What happened to one query (or SELECT statement): {@code detail} is "STATUS: message" or the mismatch. */
  record Result(String file, int line, Outcome outcome, String detail, long millis) {
    Result(String file, int line, Outcome outcome, String detail) {
      this(file, line, outcome, detail, 0);
    }

    Result withMillis(long ms) {
      return new Result(file, line, outcome, detail, ms);
    }

    /** The line of the expectation file: file, line, status and message, tab-separated. */
    String expectationLine() {
      int colon = detail.indexOf(": ");
      String status = colon < 0 ? "?" : detail.substring(0, colon);
      String message = colon < 0 ? detail : detail.substring(colon + 2);
      return file + "\t" + line + "\t" + status + "\t" + message;
    }
  }

  /** Counts of what the reference engine did not run as written (not Quiver's outcomes). */
  int ignoredStatements;
  final List<String> referenceNotes = new ArrayList<>();
  int serverStarts;

  private final Path work;
  private QuiverServer server;
  /** Connections to the current server, one per thread sending queries. */
  private final List<Connection> connections = new ArrayList<>();
  private int states;

  SqlLogicRunner(Path work) {
    this.work = work;
  }

  static List<Record> parse(List<String> lines) {
    List<Record> out = new ArrayList<>();
    List<String> conditions = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      String l = lines.get(i);
      String t = l.strip();
      if (t.isEmpty()) {
        conditions = new ArrayList<>();
        i++;
        continue;
      }
      if (t.startsWith("#")) {
        i++;
        continue;
      }
      String[] w = t.split("\\s+");
      int start = i + 1;
      switch (w[0]) {
        case "onlyif", "skipif" -> {
          conditions.add(t);
          i++;
        }
        case "halt" -> {
          out.add(new Record(start, Kind.HALT, false, "", "", "", List.of(), conditions));
          conditions = new ArrayList<>();
          i++;
        }
        case "hash-threshold" -> {
          out.add(new Record(start, Kind.HASH_THRESHOLD, false, "", "", w[1], List.of(), conditions));
          conditions = new ArrayList<>();
          i++;
        }
        case "statement" -> {
          i++;
          StringBuilder sql = new StringBuilder();
          while (i < lines.size() && !lines.get(i).isBlank()) sql.append(sql.length() == 0 ? "" : "\n").append(lines.get(i++));
          out.add(new Record(start, Kind.STATEMENT, w[1].equals("error"), "", "", sql.toString(), List.of(), conditions));
          conditions = new ArrayList<>();
        }
        case "query" -> {
          i++;
          StringBuilder sql = new StringBuilder();
          while (i < lines.size() && !lines.get(i).isBlank() && !lines.get(i).equals("----")) {
            sql.append(sql.length() == 0 ? "" : "\n").append(lines.get(i++));
          }
          List<String> expected = new ArrayList<>();
          if (i < lines.size() && lines.get(i).equals("----")) {
            i++;
            while (i < lines.size() && !lines.get(i).isEmpty()) expected.add(lines.get(i++));
          }
          String sort = w.length > 2 ? w[2] : "nosort";
          out.add(new Record(start, Kind.QUERY, false, w[1], sort, sql.toString(), expected, conditions));
          conditions = new ArrayList<>();
        }
        default -> throw new IllegalArgumentException("line " + start + ": unknown record " + t);
      }
    }
    return out;
  }

  /** Runs one file; {@code name} is how results name it. Returns the outcome of every query it sent to Quiver. */
  List<Result> run(String name, List<String> lines) throws Exception {
    List<Result> results = new ArrayList<>();
    List<Record> pending = new ArrayList<>();
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      boolean dirty = true;
      for (Record r : parse(lines)) {
        if (!r.applies()) continue;
        if (r.kind() == Kind.HALT) break;
        if (r.kind() == Kind.HASH_THRESHOLD) continue;
        boolean select = r.sql().stripLeading().toUpperCase(Locale.ROOT).startsWith("SELECT");
        if (r.kind() == Kind.STATEMENT && !select) {
          flush(name, pending, results);
          dirty |= reference(duck, name, r);
          continue;
        }
        if (dirty) {
          serve(duck);
          dirty = false;
        }
        pending.add(r);
      }
      flush(name, pending, results);
    } finally {
      stopServer();
    }
    return results;
  }

  /** Sends the pending records to the current server, {@link #THREADS} at a time, in file order in the results. */
  private void flush(String file, List<Record> pending, List<Result> results) throws Exception {
    if (pending.isEmpty()) return;
    Result[] out = new Result[pending.size()];
    AtomicInteger next = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(connections.size());
    try {
      for (Connection c : connections) {
        workers.add(pool.submit(() -> {
          for (int i; (i = next.getAndIncrement()) < out.length; ) {
            long t0 = System.nanoTime();
            out[i] = check(c, file, pending.get(i)).withMillis((System.nanoTime() - t0) / 1_000_000);
          }
          return null;
        }));
      }
      for (Future<?> w : workers) w.get();
    } finally {
      pool.shutdownNow();
    }
    results.addAll(List.of(out));
    pending.clear();
  }

  /** Runs a state-changing statement in DuckDB; true when it may have changed the state. */
  private boolean reference(Connection duck, String file, Record r) {
    String sql = r.sql().strip();
    String upper = sql.toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    // no triggers in DuckDB (the corpus' triggers only SELECT 1), and indexes do not change answers
    if (upper.matches("^(CREATE|DROP) (TRIGGER|INDEX)\\b.*") || upper.startsWith("REINDEX")) {
      ignoredStatements++;
      return false;
    }
    if (upper.startsWith("CREATE TABLE")) {
      // SQLite stores INTEGER and REAL as 64-bit values
      sql = sql.replaceAll("(?i)\\bINTEGER\\b", "BIGINT").replaceAll("(?i)\\b(REAL|FLOAT)\\b", "DOUBLE")
          .replaceAll("(?i)\\bVARCHAR\\s*\\(\\s*\\d+\\s*\\)", "VARCHAR").replaceAll("(?i)\\bTEXT\\b", "VARCHAR");
    }
    if (upper.startsWith("REPLACE INTO")) sql = "INSERT OR " + sql;
    if (upper.startsWith("UPDATE ")) sql = lastAssignmentWins(sql);
    try (Statement s = duck.createStatement()) {
      s.execute(sql);
      if (r.expectError()) referenceNotes.add(file + ":" + r.line() + " DuckDB accepted a statement SQLite rejects: " + sql);
      return true;
    } catch (SQLException e) {
      if (!r.expectError()) {
        referenceNotes.add(file + ":" + r.line() + " DuckDB rejected: " + sql + " (" + firstLine(e.getMessage()) + ")");
      }
      return false;
    }
  }

  /**
   * SQLite lets an UPDATE assign a column twice (the last assignment wins); DuckDB refuses it, so the earlier
   * ones are dropped: {@code UPDATE t1 SET x=3, x=4, x=5} becomes {@code UPDATE t1 SET x=5}.
   */
  static String lastAssignmentWins(String sql) {
    Matcher m = Pattern.compile("(?is)^(UPDATE\\s+\\S+\\s+SET\\s+)(.*?)(\\s+WHERE\\s+.*)?$").matcher(sql.strip());
    if (!m.matches()) return sql;
    LinkedHashMap<String, String> assignments = new LinkedHashMap<>();
    int depth = 0;
    int from = 0;
    String set = m.group(2);
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < set.length(); i++) {
      char c = set.charAt(i);
      if (c == '(') depth++;
      else if (c == ')') depth--;
      else if (c == ',' && depth == 0) {
        parts.add(set.substring(from, i));
        from = i + 1;
      }
    }
    parts.add(set.substring(from));
    for (String p : parts) {
      int eq = p.indexOf('=');
      if (eq < 0) return sql;
      String column = p.substring(0, eq).strip().toLowerCase(Locale.ROOT);
      assignments.remove(column);
      assignments.put(column, p.strip());
    }
    if (assignments.size() == parts.size()) return sql;
    return m.group(1) + String.join(", ", assignments.values()) + (m.group(3) == null ? "" : m.group(3));
  }

  /** Writes every DuckDB table and view as {@code <name>.parquet} into a fresh directory and serves it. */
  private void serve(Connection duck) throws Exception {
    Path dir = Files.createDirectories(work.resolve("state-" + (++states)));
    List<String> tables = new ArrayList<>();
    try (Statement s = duck.createStatement();
        ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'")) {
      while (rs.next()) tables.add(rs.getString(1));
    }
    try (Statement s = duck.createStatement()) {
      for (String t : tables) {
        String file = dir.resolve(t.toLowerCase(Locale.ROOT) + ".parquet").toString().replace("'", "''");
        s.execute("COPY (SELECT * FROM \"" + t + "\") TO '" + file + "' (FORMAT parquet)");
      }
    }
    stopServer();
    server = QuiverServer.start(dir.toString(), "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY,
        QuerySettings.DEFAULT.withStatementTimeoutMs(STATEMENT_TIMEOUT_MS));
    for (int i = 0; i < THREADS; i++) connections.add(DriverManager.getConnection(server.jdbcUrl()));
    serverStarts++;
  }

  private void stopServer() throws Exception {
    for (Connection c : connections) c.close();
    connections.clear();
    if (server != null) server.close();
    server = null;
  }

  private static Result check(Connection quiver, String file, Record r) {
    List<List<Object>> rows;
    try {
      rows = query(quiver, r.sql());
    } catch (SQLException e) {
      String error = flightError(e);
      if (r.kind() == Kind.STATEMENT && r.expectError()) return new Result(file, r.line(), Outcome.PASS, error);
      return new Result(file, r.line(), Outcome.ERROR, error);
    }
    if (r.kind() == Kind.STATEMENT) {
      if (!r.expectError()) return new Result(file, r.line(), Outcome.PASS, "");
      return new Result(file, r.line(), Outcome.WRONG, r.sql() + "\n  expected: an error\n  actual:   " + rows.size()
          + " rows");
    }
    String mismatch = compare(r, rows);
    return mismatch == null ? new Result(file, r.line(), Outcome.PASS, "")
        : new Result(file, r.line(), Outcome.WRONG, r.sql() + "\n" + mismatch);
  }

  private static List<List<Object>> query(Connection quiver, String sql) throws SQLException {
    try (Statement s = quiver.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      List<List<Object>> out = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) row.add(rs.getObject(i));
        out.add(row);
      }
      return out;
    }
  }

  /** Null when the rows print as the record expects, else what differs. */
  static String compare(Record r, List<List<Object>> rows) {
    String types = r.types();
    List<List<String>> printed = new ArrayList<>();
    for (List<Object> row : rows) {
      if (row.size() != types.length()) {
        return "  expected " + types.length() + " columns (" + types + "), got " + row.size();
      }
      List<String> p = new ArrayList<>(row.size());
      for (int i = 0; i < row.size(); i++) p.add(format(row.get(i), types.charAt(i)));
      printed.add(p);
    }
    List<String> values = new ArrayList<>();
    switch (r.sort()) {
      case "rowsort" -> {
        printed.sort(SqlLogicRunner::compareRows);
        printed.forEach(values::addAll);
      }
      case "valuesort" -> {
        printed.forEach(values::addAll);
        values.sort(String::compareTo);
      }
      case "nosort" -> printed.forEach(values::addAll);
      default -> throw new IllegalArgumentException("unknown sort mode " + r.sort());
    }
    List<String> expected = r.expected();
    Matcher hashed = expected.size() == 1 ? HASHED.matcher(expected.get(0)) : null;
    if (hashed != null && hashed.matches()) {
      String actual = values.size() + " values hashing to " + md5(values);
      return actual.equals(expected.get(0)) ? null
          : "  expected: " + expected.get(0) + "\n  actual:   " + actual + "\n  values:   " + abbreviate(values);
    }
    return values.equals(expected) ? null
        : "  expected: " + abbreviate(expected) + "\n  actual:   " + abbreviate(values);
  }

  private static int compareRows(List<String> a, List<String> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = a.get(i).compareTo(b.get(i));
      if (c != 0) return c;
    }
    return Integer.compare(a.size(), b.size());
  }

  private static String abbreviate(List<String> values) {
    List<String> head = values.size() > 40 ? values.subList(0, 40) : values;
    return String.join(" ", head) + (values.size() > 40 ? " ... (" + values.size() + " values)" : "");
  }

  static String md5(List<String> values) {
    try {
      MessageDigest md = MessageDigest.getInstance("MD5");
      for (String v : values) md.update((v + "\n").getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A value as sqllogictest's SQLite driver prints a column of type {@code I}, {@code R} or {@code T}. */
  static String format(Object v, char type) {
    if (v == null) return "NULL";
    if (v instanceof Boolean b) v = b ? 1L : 0L;
    switch (type) {
      case 'I' -> {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) return v.toString();
        if (v instanceof BigDecimal d) return d.toBigInteger().toString();
        if (v instanceof Number n) return Long.toString((long) n.doubleValue()); // C's cast: toward zero
        return Long.toString(leadingInteger(v.toString()));
      }
      case 'R' -> {
        BigDecimal d;
        if (v instanceof BigDecimal b) d = b;
        else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
          d = BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof Number n) {
          double x = n.doubleValue();
          if (Double.isNaN(x) || Double.isInfinite(x)) return x > 0 ? "Inf" : x < 0 ? "-Inf" : "NaN";
          d = new BigDecimal(x);
        } else {
          d = BigDecimal.valueOf(leadingInteger(v.toString()));
        }
        return d.setScale(3, RoundingMode.HALF_UP).toPlainString();
      }
      default -> {
        String s = v instanceof Double || v instanceof Float ? realText(((Number) v).doubleValue()) : v.toString();
        if (s.isEmpty()) return "(empty)";
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
          char c = s.charAt(i);
          b.append(c < ' ' || c > '~' ? '@' : c);
        }
        return b.toString();
      }
    }
  }

  /** SQLite's text of a REAL ({@code %!.15g}): 15 significant digits, always with a decimal point. */
  private static String realText(double x) {
    String s = new BigDecimal(x).round(new MathContext(15)).stripTrailingZeros().toPlainString();
    return s.contains(".") ? s : s + ".0";
  }

  private static long leadingInteger(String s) {
    Matcher m = Pattern.compile("^\\s*([+-]?\\d+)").matcher(s);
    try {
      return m.find() ? Long.parseLong(m.group(1)) : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** "STATUS: first line of the message" from the driver's (shaded) FlightRuntimeException, timings removed. */
  static String flightError(SQLException e) {
    String message = null;
    for (Throwable t = e; t != null; t = t.getCause()) {
      String s = t.toString();
      if (t.getClass().getName().endsWith("FlightRuntimeException")) message = s.substring(s.indexOf(": ") + 2);
    }
    if (message == null) message = "CLIENT: " + e;
    return firstLine(message).replaceAll("\\d+(\\.\\d+)? ?(ms|s|seconds|milliseconds)\\b", "N ms").replace('\t', ' ');
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("").strip();
  }

  @Override
  public void close() throws Exception {
    stopServer();
  }
}
