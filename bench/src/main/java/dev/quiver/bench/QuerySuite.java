package dev.quiver.bench;

import dev.quiver.server.QuiverServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * A suite of queries (TPC-H, TPC-DS) on Quiver and DuckDB in one run: Quiver through the Flight SQL JDBC driver
 * on loopback, DuckDB (2 threads) in process over the same {@code <table>.parquet} files. Per query the first
 * run, the steady-state median and min ({@link Timing}), reading every row, and Quiver/DuckDB; the totals and
 * the geometric mean of the ratios. A query that fails on either engine gets a row saying so and is left out of
 * the totals. Writes a Markdown table.
 */
final class QuerySuite {
  /** One query of the suite. */
  record Query(String name, String sql) {}

  /**
   * What to run: {@code title} heads the Markdown file, {@code tables} become DuckDB views over {@code data}; Quiver
   * runs with {@code queryMemory} per query; with {@code checkAnswers}, a query's answers (up to
   * {@value #CHECKED_ROWS} rows) are compared as multisets, floating-point numbers to a relative 1e-{@value #DIGITS}.
   */
  record Spec(String title, String dataNote, Path data, List<String> tables, List<Query> queries, long queryMemory,
      boolean checkAnswers) {
    Spec(String title, String dataNote, Path data, List<String> tables, List<Query> queries) {
      this(title, dataNote, data, tables, queries, 8L << 30, false);
    }
  }

  /** The largest answer {@link Spec#checkAnswers} compares. */
  static final int CHECKED_ROWS = 250_000;
  /** {@link Spec#checkAnswers} takes doubles within a relative 1e-DIGITS as equal. */
  static final int DIGITS = 9;

  /** Quiver's statement timeout for each query of a suite. */
  static final long QUIVER_TIMEOUT_MS = 300_000;

  private QuerySuite() {}

  /** Runs {@code spec} ({@code runs} timed runs a query, at most {@code maxWarmUp} warm-up runs), writes {@code out}. */
  static void run(Spec spec, int runs, int maxWarmUp, Path out) throws Exception {
    StringBuilder md = new StringBuilder("# ").append(spec.title()).append("\n\n")
        .append("Data: `").append(spec.data().getFileName()).append("` (").append(spec.dataNote()).append("). ").append(runs)
        .append(" steady-state runs per query, every row read through JDBC; Quiver through the Flight SQL JDBC ")
        .append("driver on loopback, DuckDB (").append("2 threads) in process on the same files. Times in ms. ")
        .append("`first` = the query's first execution in a fresh server (which had run only the queries above it); ")
        .append("steady state = after warming up until the median of ").append(Timing.GROUP)
        .append(" runs stopped improving by ").append(Timing.IMPROVEMENT_PERCENT).append("% (at most ")
        .append(maxWarmUp).append(" runs; `warm` = how many it took).\n\n")
        .append(spec.checkAnswers() ? "`same answer`: the answers compared as multisets of rows, floating-point numbers to a relative 1e-" + DIGITS
            + " plus an absolute 1e-15 (answers over " + CHECKED_ROWS + " rows: counted only).\n\n" : "")
        .append("| query | rows | Quiver first | warm | Quiver median | Quiver min | DuckDB first | DuckDB median | DuckDB min | Quiver/DuckDB | first/steady |")
        .append(spec.checkAnswers() ? " same answer |\n" : "\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|").append(spec.checkAnswers() ? "---|\n" : "\n");
    double sumFirst = 0;
    double worstFirst = 0;
    double sumQ = 0;
    double sumD = 0;
    double logRatio = 0;
    int answered = 0;
    StringBuilder failures = new StringBuilder();
    try (QuiverServer server = QuiverServer.start(spec.data().toString(), "127.0.0.1", 0, spec.queryMemory());
        Connection quiver = DriverManager.getConnection(server.jdbcUrl());
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = quiver.createStatement()) {
        // a runaway plan fails its row (TIMED_OUT) instead of holding the whole run
        s.execute("SET quiver.statement_timeout_ms = " + QUIVER_TIMEOUT_MS);
      }
      try (Statement s = duck.createStatement()) {
        s.execute("SET threads = 2");
        for (String t : spec.tables()) {
          s.execute("CREATE VIEW " + t + " AS SELECT * FROM read_parquet('" + spec.data().resolve(t + ".parquet") + "')");
        }
      }
      for (Query query : spec.queries()) {
        String name = query.name();
        String sql = query.sql();
        long[] counts = new long[2];
        Timing.Measured qt = measureOrReport(md, failures, name, "Quiver", () -> counts[0] = rows(quiver, sql), runs, maxWarmUp);
        if (qt == null) continue;
        Timing.Measured dt = measureOrReport(md, failures, name, "DuckDB", () -> counts[1] = rows(duck, sql), runs, maxWarmUp);
        if (dt == null) continue;
        long rows = counts[0];
        long duckRows = counts[1];
        double qm = qt.median();
        double dm = dt.median();
        answered++;
        sumFirst += qt.firstMs();
        worstFirst = Math.max(worstFirst, qt.firstOverSteady());
        sumQ += qm;
        sumD += dm;
        logRatio += Math.log(qm / dm);
        String line = String.format(Locale.ROOT, "| %s | %d%s | %.1f | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f |",
            name, rows, rows == duckRows ? "" : " (DuckDB " + duckRows + ")", qt.firstMs(), qt.warmUpRuns(), qm,
            qt.min(), dt.firstMs(), dm, dt.min(), qm / dm, qt.firstOverSteady());
        if (spec.checkAnswers()) {
          line += rows > CHECKED_ROWS || rows != duckRows ? " " + (rows == duckRows) + " (counted) |"
              : " " + sameAnswer(answer(quiver, sql), answer(duck, sql)) + " |";
        }
        System.out.println(line);
        md.append(line).append('\n');
      }
    }
    md.append(String.format(Locale.ROOT, "| **total** | | %.1f | | %.1f | | | %.1f | | %.2f | %.1f |%n", sumFirst, sumQ,
        sumD, sumQ / sumD, sumFirst / sumQ));
    md.append(String.format(Locale.ROOT, "%nGeometric mean of the per-query ratios: %.2f over the %d queries both "
        + "engines answered. Largest first run / steady median: %.1f×.%n", Math.exp(logRatio / answered), answered,
        worstFirst));
    if (!failures.isEmpty()) {
      md.append("Left out (an engine failed; see its row): ").append(failures.toString().strip()).append(".\n");
    }
    Files.createDirectories(out.getParent());
    Files.writeString(out, md.toString());
    System.out.println("wrote " + out);
  }

  /** The query's timing, or null after writing a row that says how {@code engine} failed on it. */
  private static Timing.Measured measureOrReport(StringBuilder md, StringBuilder failures, String name, String engine,
      Timing.Run run, int runs, int maxWarmUp) throws Exception {
    try {
      return Timing.measure(run, runs, maxWarmUp);
    } catch (SQLException e) {
      String line = "| " + name + " | " + engine + " fails: " + firstLine(e) + " | | | | | | | | | |";
      System.out.println(line);
      md.append(line).append('\n');
      failures.append(name).append(' ');
      return null;
    }
  }

  /** The options {@code tpch} and {@code tpcds} share; {@code sf} 0 when not given. */
  record Options(Path data, double sf, int runs, int maxWarmUp, Path out, java.util.Set<String> only) {
    /** The queries to run: all, or those {@code --queries q07,q18} names. */
    List<Query> select(List<Query> all) {
      if (only.isEmpty()) return all;
      List<Query> out = new java.util.ArrayList<>();
      for (Query q : all) if (only.contains(q.name())) out.add(q);
      if (out.size() != only.size()) throw new IllegalArgumentException("no such query among " + only);
      return out;
    }

    static Options parse(String[] args, double defaultSf) {
      Path data = null;
      double sf = defaultSf;
      int runs = 5;
      int maxWarmUp = Timing.MAX_WARM_UP;
      Path out = null;
      java.util.Set<String> only = new java.util.LinkedHashSet<>();
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--data" -> data = Path.of(args[++i]);
          case "--sf" -> sf = Double.parseDouble(args[++i]);
          case "--runs" -> runs = Integer.parseInt(args[++i]);
          case "--max-warm-up" -> maxWarmUp = Integer.parseInt(args[++i]);
          case "--out" -> out = Path.of(args[++i]);
          case "--queries" -> only.addAll(List.of(args[++i].split(",")));
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (out == null) {
        // a run of some queries does not replace the committed results of all of them (an H2O run of three queries
        // once overwrote bench/results/h2o.md): without --out it writes to a scratch folder
        out = only.isEmpty() ? Path.of("bench/results")
            : Path.of(System.getProperty("java.io.tmpdir"), "quiver-bench-partial");
      }
      return new Options(data, sf, runs, maxWarmUp, out, only);
    }
  }

  static long rows(Connection c, String sql) throws Exception {
    long n = 0;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int cols = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= cols; i++) rs.getString(i);
        n++;
      }
    }
    return n;
  }

  /**
   * The rows of {@code sql}'s answer, sorted: floating-point values as doubles, everything else as text (integers
   * and decimals by value).
   */
  static List<List<Object>> answer(Connection c, String sql) throws SQLException {
    List<List<Object>> out = new java.util.ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int cols = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new java.util.ArrayList<>(cols);
        for (int i = 1; i <= cols; i++) {
          Object v = rs.getObject(i);
          if (v instanceof Double || v instanceof Float) row.add(((Number) v).doubleValue());
          else if (v instanceof Number n) row.add(new java.math.BigDecimal(n.toString()).stripTrailingZeros().toPlainString());
          else row.add(String.valueOf(v));
        }
        out.add(row);
      }
    }
    out.sort(QuerySuite::compareRows);
    return out;
  }

  private static int compareRows(List<Object> a, List<Object> b) {
    for (int i = 0; i < a.size(); i++) {
      Object x = a.get(i);
      Object y = b.get(i);
      int c = x instanceof Double dx && y instanceof Double dy ? Double.compare(dx, dy) : String.valueOf(x).compareTo(String.valueOf(y));
      if (c != 0) return c;
    }
    return 0;
  }

  /**
   * Whether two sorted answers are equal, doubles within a relative {@code 1e-}{@value #DIGITS} (and an absolute 1e-15:
   * a correlation of exactly 0 comes out of both engines as rounding noise, 3e-33 and 2e-35).
   */
  static boolean sameAnswer(List<List<Object>> a, List<List<Object>> b) {
    if (a.size() != b.size()) return false;
    for (int r = 0; r < a.size(); r++) {
      List<Object> x = a.get(r);
      List<Object> y = b.get(r);
      if (x.size() != y.size()) return false;
      for (int i = 0; i < x.size(); i++) {
        if (x.get(i) instanceof Double dx && y.get(i) instanceof Double dy) {
          if (!(dx.equals(dy) || Math.abs(dx - dy) <= Math.pow(10, -DIGITS) * Math.max(Math.abs(dx), Math.abs(dy)) + 1e-15)) return false;
        } else if (!x.get(i).equals(y.get(i))) {
          return false;
        }
      }
    }
    return true;
  }

  /** The error's first line, without the driver's echo of the query, fit for a table cell. */
  private static String firstLine(SQLException e) {
    String m = String.valueOf(e.getMessage());
    int colon = m.startsWith("Error while executing SQL \"") ? m.indexOf("\": ") : -1;
    if (colon >= 0) m = m.substring(colon + 3);
    m = m.lines().findFirst().orElse("").replace('|', '/');
    return m.length() > 120 ? m.substring(0, 117) + "..." : m;
  }
}
