package dev.quiver.bench;

import dev.quiver.server.QuiverServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pruning benchmark's join section: a selective filter on a dimension (TPC-H orders) joined to the fact table
 * sorted by the join key (lineitem in {@code l_orderkey} order, {@code bench tpch}'s files), so that the join's
 * runtime filter — its build keys as a set or range, sent to lineitem's scan before it reads — can skip lineitem's
 * row groups. Reports lineitem's row groups read with runtime filters and without them (the same run's count minus
 * the groups only the runtime filter pruned: the scan's static levels take their attribution first), the time with
 * pruning on and off, and DuckDB's (2 threads) on the same files.
 */
final class JoinPruningSection {
  record Query(String name, String sql) {}

  record Result(Query query, double quiverMs, double offMs, double duckMs, long total, long prunedStatic,
      long prunedRuntime, String filter, boolean same) {}

  private JoinPruningSection() {}

  static List<Query> queries() {
    return List.of(
        new Query("one customer's orders", "SELECT count(*), sum(l_extendedprice) FROM lineitem JOIN orders "
            + "ON l_orderkey = o_orderkey WHERE o_custkey = 12346"),
        new Query("IN (orders over 500,000)", "SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_orderkey IN "
            + "(SELECT o_orderkey FROM orders WHERE o_totalprice > 500000)"),
        new Query("a customer without orders", "SELECT count(*), sum(l_extendedprice) FROM lineitem JOIN orders "
            + "ON l_orderkey = o_orderkey WHERE o_custkey = 12345"),
        new Query("one day's orders", "SELECT count(*), sum(l_extendedprice) FROM lineitem JOIN orders "
            + "ON l_orderkey = o_orderkey WHERE o_orderdate = DATE '1995-03-15'"),
        new Query("range join: keys near one customer's", "SELECT count(*), sum(l_quantity) FROM lineitem l JOIN orders o "
            + "ON l.l_orderkey BETWEEN o.o_orderkey AND o.o_orderkey + 2 WHERE o.o_custkey = 12346"));
  }

  /** Runs the section over {@code bench tpch}'s files at {@code sf}; returns its Markdown. */
  static String run(double sf, int runs) throws Exception {
    Path data = TpchBenchmark.generate(sf);
    List<Result> results = new ArrayList<>();
    try (QuiverServer server = QuiverServer.start(data.toString(), "127.0.0.1", 0, 8L << 30);
        Connection on = DriverManager.getConnection(server.jdbcUrl());
        Connection off = DriverManager.getConnection(server.jdbcUrl());
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = off.createStatement()) {
        s.execute("SET quiver.scan.pruning = false");
      }
      try (Statement s = duck.createStatement()) {
        s.execute("SET threads = 2");
        for (String t : List.of("lineitem", "orders")) {
          s.execute("CREATE VIEW " + t + " AS SELECT * FROM read_parquet('" + data.resolve(t + ".parquet") + "')");
        }
      }
      for (Query q : queries()) {
        double quiver = PruningBenchmark.median(Timing.measure(() -> PruningBenchmark.first(on, q.sql()), runs).steadyMs());
        double without = PruningBenchmark.median(PruningBenchmark.time(off, q.sql(), runs));
        double duckMs = PruningBenchmark.median(Timing.measure(() -> PruningBenchmark.first(duck, q.sql()), runs).steadyMs());
        boolean same = PruningBenchmark.same(PruningBenchmark.first(on, q.sql()), PruningBenchmark.first(duck, q.sql()))
            && PruningBenchmark.same(PruningBenchmark.first(on, q.sql()), PruningBenchmark.first(off, q.sql()));
        String[] filter = new String[1];
        Map<String, Long> m = lineitemScan(on, q.sql(), filter);
        long runtime = m.getOrDefault("row_groups_pruned_runtime", 0L);
        Result r = new Result(q, quiver, without, duckMs, m.getOrDefault("row_groups_total", 0L),
            m.getOrDefault("row_groups_pruned", 0L) - runtime, runtime, filter[0], same);
        results.add(r);
        System.out.printf(Locale.ROOT, "join %-38s quiver %8.1f ms  off %8.1f ms  duckdb %8.1f ms  ratio %5.2f  "
                + "lineitem groups read %d (without runtime filters %d) of %d%s%n", q.name(), quiver, without, duckMs,
            quiver / duckMs, r.total() - r.prunedStatic() - r.prunedRuntime(), r.total() - r.prunedStatic(), r.total(),
            same ? "" : "  RESULTS DIFFER");
      }
    }
    return markdown(sf, runs, results);
  }

  /** The metrics of lineitem's scan line in EXPLAIN ANALYZE, and its runtime filter's text in {@code filter[0]}. */
  private static Map<String, Long> lineitemScan(Connection c, String sql, String[] filter) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + sql)) {
      while (rs.next()) {
        String line = rs.getString(1);
        if (!line.contains("ParquetScanExec: table=lineitem ")) continue;
        int at = line.indexOf(" runtime_filter=[");
        if (at >= 0) {
          int end = line.indexOf("] row_groups_total=", at);
          filter[0] = line.substring(at + " runtime_filter=[".length(), end < 0 ? line.length() : end);
        }
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("(\\w+)=(\\d+)(?=\\s|$)").matcher(line);
        while (matcher.find()) m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        return m;
      }
    }
    throw new IllegalStateException("no lineitem scan in the plan of " + sql);
  }

  static String markdown(double sf, int runs, List<Result> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%n## Joins that prune: runtime filters%n%nTPC-H SF %s (`bench tpch`'s files: "
        + "lineitem in `l_orderkey` order), a selective filter on orders joined to lineitem; %d steady-state runs "
        + "each, medians in ms; DuckDB (2 threads) on the same files in the same run. \"Read without runtime filters\" "
        + "is the same run's count plus the row groups only the runtime filter skipped (the scan's static levels are "
        + "attributed first); \"pruning off\" turns off every level.%n%n", sf, runs));
    sb.append("| query | Quiver ms | pruning off ms | DuckDB ms | Quiver / DuckDB | lineitem row groups read | "
        + "read without runtime filters | of | runtime filter | same result |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (Result r : results) {
      sb.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.2f | %d | %d | %d | %s | %s |%n",
          r.query().name(), r.quiverMs(), r.offMs(), r.duckMs(), r.quiverMs() / r.duckMs(),
          r.total() - r.prunedStatic() - r.prunedRuntime(), r.total() - r.prunedStatic(), r.total(),
          r.filter() == null ? "none" : "`" + r.filter() + "`", r.same() ? "yes" : "NO"));
    }
    return sb.toString();
  }
}
