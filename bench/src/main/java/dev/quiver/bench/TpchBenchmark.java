package dev.quiver.bench;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The 22 TPC-H queries (validation parameters; {@code sample-data}'s {@code tpch/qNN.sql}) on the
 * sample data (SF 0.1) or on {@code --data DIR} holding the eight tables as {@code <table>.parquet}:
 * Quiver through the Flight SQL JDBC driver and DuckDB (2 threads) on the same files, in the same run.
 * Per query: median and min of N runs (after a warm-up), reading every row, and Quiver/DuckDB.
 * Writes {@code tpch.md} to {@code --out}.
 */
public final class TpchBenchmark {
  static final int ROW_GROUP_ROWS = 122_880;
  static final List<String> TABLES = List.of("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region");

  private TpchBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path data = null;
    double sf = 0;
    int runs = 5;
    Path out = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data" -> data = Path.of(args[++i]);
        case "--sf" -> sf = Double.parseDouble(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (data == null) data = sf > 0 ? generate(sf) : SampleData.ensure();
    StringBuilder md = new StringBuilder("# TPC-H on Quiver and DuckDB\n\n")
        .append("Data: `").append(data.getFileName()).append("` (eight tables). ").append(runs)
        .append(" steady-state runs per query, every row read through JDBC; Quiver through the Flight SQL JDBC ")
        .append("driver on loopback, DuckDB (").append("2 threads) in process on the same files. Times in ms. ")
        .append("`first` = the query's first execution in a fresh server (which had run only the queries above it); ")
        .append("steady state = after warming up until the median of ").append(Timing.GROUP)
        .append(" runs stopped improving by ").append(Timing.IMPROVEMENT_PERCENT).append("% (at most ")
        .append(Timing.MAX_WARM_UP).append(" runs; `warm` = how many it took).\n\n")
        .append("| query | rows | Quiver first | warm | Quiver median | Quiver min | DuckDB first | DuckDB median | DuckDB min | Quiver/DuckDB | first/steady |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double sumFirst = 0;
    double worstFirst = 0;
    double sumQ = 0;
    double sumD = 0;
    double logRatio = 0;
    try (QuiverServer server = QuiverServer.start(data.toString(), "127.0.0.1", 0, 8L << 30);
        Connection quiver = DriverManager.getConnection(server.jdbcUrl());
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = duck.createStatement()) {
        s.execute("SET threads = 2");
        for (String t : TABLES) {
          s.execute("CREATE VIEW " + t + " AS SELECT * FROM read_parquet('" + data.resolve(t + ".parquet") + "')");
        }
      }
      for (int q = 1; q <= 22; q++) {
        String name = String.format(Locale.ROOT, "q%02d", q);
        String sql;
        try (InputStream in = TpchBenchmark.class.getResourceAsStream("/tpch/" + name + ".sql")) {
          sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        long[] counts = new long[2];
        Timing.Measured qt = Timing.measure(() -> counts[0] = rows(quiver, sql), runs);
        Timing.Measured dt = Timing.measure(() -> counts[1] = rows(duck, sql), runs);
        long rows = counts[0];
        long duckRows = counts[1];
        double qm = qt.median();
        double dm = dt.median();
        sumFirst += qt.firstMs();
        worstFirst = Math.max(worstFirst, qt.firstOverSteady());
        sumQ += qm;
        sumD += dm;
        logRatio += Math.log(qm / dm);
        String line = String.format(Locale.ROOT, "| %s | %d%s | %.1f | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f |",
            name, rows, rows == duckRows ? "" : " (DuckDB " + duckRows + ")", qt.firstMs(), qt.warmUpRuns(), qm,
            qt.min(), dt.firstMs(), dm, dt.min(), qm / dm, qt.firstOverSteady());
        System.out.println(line);
        md.append(line).append('\n');
      }
    }
    md.append(String.format(Locale.ROOT, "| **total** | | %.1f | | %.1f | | | %.1f | | %.2f | %.1f |%n", sumFirst, sumQ,
        sumD, sumQ / sumD, sumFirst / sumQ));
    md.append(String.format(Locale.ROOT, "%nGeometric mean of the per-query ratios: %.2f. Largest first run / steady "
        + "median: %.1f×.%n", Math.exp(logRatio / 22), worstFirst));
    Files.createDirectories(out);
    Files.writeString(out.resolve("tpch.md"), md.toString());
    System.out.println("wrote " + out.resolve("tpch.md"));
  }

  /**
   * The eight tables at {@code sf} under java.io.tmpdir ({@code quiver-tpch-sf<sf>}), generated if missing:
   * generator ({@code dbgen}) order, {@value #ROW_GROUP_ROWS}-row row groups (DuckDB's default), SNAPPY.
   */
  static Path generate(double sf) throws java.io.IOException {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "quiver-tpch-sf" + sf);
    if (Files.exists(dir.resolve("_COMPLETE"))) return dir;
    Files.createDirectories(dir);
    System.out.println("writing TPC-H SF " + sf + " into " + dir + " …");
    dev.quiver.sample.Lineitem.write(dir.resolve("lineitem.parquet"), sf, dev.quiver.sample.Lineitem.Order.NATURAL,
        ROW_GROUP_ROWS, b -> b);
    for (dev.quiver.sample.TpchTables.Table<?> t : dev.quiver.sample.TpchTables.ALL) {
      t.write(dir.resolve(t.name() + ".parquet"), sf, ROW_GROUP_ROWS, b -> b);
    }
    Files.writeString(dir.resolve("_COMPLETE"), "");
    return dir;
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

}
