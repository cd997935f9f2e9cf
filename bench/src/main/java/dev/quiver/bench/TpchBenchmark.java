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
import java.util.Arrays;
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
  static final List<String> TABLES = List.of("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region");

  private TpchBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path data = null;
    int runs = 5;
    Path out = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data" -> data = Path.of(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (data == null) data = SampleData.ensure();
    StringBuilder md = new StringBuilder("# TPC-H on Quiver and DuckDB\n\n")
        .append("Data: `").append(data.getFileName()).append("` (eight tables). ").append(runs)
        .append(" runs per query after a warm-up, every row read through JDBC; Quiver through the Flight SQL JDBC ")
        .append("driver on loopback, DuckDB (").append("2 threads) in process on the same files. Times in ms.\n\n")
        .append("| query | rows | Quiver median | Quiver min | DuckDB median | DuckDB min | Quiver/DuckDB |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|\n");
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
        long rows = rows(quiver, sql);
        long duckRows = rows(duck, sql);
        double[] qt = time(quiver, sql, runs);
        double[] dt = time(duck, sql, runs);
        double qm = qt[runs / 2];
        double dm = dt[runs / 2];
        sumQ += qm;
        sumD += dm;
        logRatio += Math.log(qm / dm);
        String line = String.format(Locale.ROOT, "| %s | %d%s | %.1f | %.1f | %.1f | %.1f | %.2f |", name, rows,
            rows == duckRows ? "" : " (DuckDB " + duckRows + ")", qm, qt[0], dm, dt[0], qm / dm);
        System.out.println(line);
        md.append(line).append('\n');
      }
    }
    md.append(String.format(Locale.ROOT, "| **total** | | %.1f | | %.1f | | %.2f |%n", sumQ, sumD, sumQ / sumD));
    md.append(String.format(Locale.ROOT, "%nGeometric mean of the per-query ratios: %.2f.%n", Math.exp(logRatio / 22)));
    Files.createDirectories(out);
    Files.writeString(out.resolve("tpch.md"), md.toString());
    System.out.println("wrote " + out.resolve("tpch.md"));
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

  static double[] time(Connection c, String sql, int runs) throws Exception {
    rows(c, sql);
    double[] ms = new double[runs];
    for (int i = 0; i < runs; i++) {
      long t0 = System.nanoTime();
      rows(c, sql);
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    Arrays.sort(ms);
    return ms;
  }
}
