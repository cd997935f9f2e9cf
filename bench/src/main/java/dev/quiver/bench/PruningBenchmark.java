package dev.quiver.bench;

import dev.quiver.sample.Lineitem;
import dev.quiver.server.QuiverServer;
import io.trino.tpch.LineItem;
import io.trino.tpch.LineItemGenerator;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Quiver's row-group pruning benchmark. TPC-H lineitem (scale factor 1 by default) in three layouts —
 * natural ({@code l_orderkey} order), sorted by {@code l_shipdate}, shuffled — with 131,072-row row
 * groups, dictionaries (off for the key and comment columns, which get bloom filters instead), page
 * indexes and ZSTD; a query set run in one process by Quiver through JDBC with pruning on, the same with
 * pruning off, and DuckDB on the same files with the same thread count. Reports per query and layout the
 * median and min time, row groups pruned by level, bytes read, the Quiver/DuckDB ratio and the
 * <em>pruning oracle</em> — the row groups that really hold a matching row — as Markdown and SVG.
 */
public final class PruningBenchmark {
  static final int ROW_GROUP = 131_072;
  static final List<String> LAYOUTS = List.of("natural", "shipdate", "shuffled");

  record Query(String name, String sql, String where) {}

  record Result(String layout, Query query, double quiverMedian, double quiverMin, double offMedian, double duckMedian,
      double duckMin, Map<String, Long> metrics, long oracleGroups, boolean sameResult, double quiverFirst,
      int quiverWarmUp) {}

  private PruningBenchmark() {}

  public static void main(String[] args) throws Exception {
    double sf = 1.0;
    int runs = 5;
    Path out = Path.of("bench/results");
    List<String> floorCompare = new ArrayList<>();
    String sections = "all";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sections" -> sections = args[++i];
        case "--floor-compare" -> floorCompare.addAll(List.of(args[++i].split(",(?=[^,=]+=jdbc:)")));
        case "--sf" -> sf = Double.parseDouble(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (sections.equals("join")) {
      // the join section alone (its own results file)
      Files.createDirectories(out);
      Files.writeString(out.resolve("pruning-joins.md"), "# Row-group pruning benchmark: joins\n"
          + JoinPruningSection.run(sf, runs));
      System.out.println("wrote " + out.resolve("pruning-joins.md"));
      return;
    }
    if (!sections.equals("all") && !sections.equals("scan")) {
      throw new IllegalArgumentException("--sections is all, scan or join, not " + sections);
    }
    Path data = ensureFiles(sf, LAYOUTS);
    List<Query> queries = queries(sf);

    List<Result> results = new ArrayList<>();
    double[] floor = new double[2];
    String floorNote = "";
    try (QuiverServer server = QuiverServer.start(data.toString(), "127.0.0.1", 0, 8L << 30);
        Connection on = DriverManager.getConnection(server.jdbcUrl());
        Connection off = DriverManager.getConnection(server.jdbcUrl());
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = off.createStatement()) {
        s.execute("SET quiver.scan.pruning = false");
      }
      try (Statement s = duck.createStatement()) {
        s.execute("SET threads = 2");
        for (String layout : LAYOUTS) {
          s.execute("CREATE VIEW lineitem_" + layout + " AS SELECT * FROM read_parquet('"
              + data.resolve("lineitem_" + layout + ".parquet") + "')");
        }
      }
      for (String layout : LAYOUTS) {
        for (Query q : queries) {
          String table = "lineitem_" + layout;
          String sql = String.format(Locale.ROOT, q.sql(), table, q.where());
          Timing.Measured quiverRun = Timing.measure(() -> first(on, sql), runs);
          double[] quiver = quiverRun.steadyMs();
          double[] without = time(off, sql, runs);
          double[] duckTimes = Timing.measure(() -> first(duck, sql), runs).steadyMs();
          boolean same = same(first(on, sql), first(duck, sql)) && same(first(on, sql), first(off, sql));
          Map<String, Long> m = metrics(on, sql);
          long oracle = scalar(duck, "SELECT count(DISTINCT file_row_number // " + ROW_GROUP + ") FROM read_parquet('"
              + data.resolve(table + ".parquet") + "', file_row_number = true) WHERE " + q.where());
          Result r = new Result(layout, q, median(quiver), quiver[0], median(without), median(duckTimes), duckTimes[0], m, oracle, same,
              quiverRun.firstMs(), quiverRun.warmUpRuns());
          results.add(r);
          System.out.printf(Locale.ROOT, "%-9s %-22s first %8.1f ms  quiver %8.1f ms  off %8.1f ms  duckdb %8.1f ms  ratio %5.2f  groups %d/%d pruned (oracle %d needed)%s%n",
              layout, q.name(), r.quiverFirst(), r.quiverMedian(), r.offMedian(), r.duckMedian(), r.quiverMedian() / r.duckMedian(),
              m.getOrDefault("row_groups_pruned", 0L), m.getOrDefault("row_groups_total", 0L), oracle, same ? "" : "  RESULTS DIFFER");
        }
      }
      // the fixed cost of one query through each client, the same way: JDBC over loopback vs in-process
      floor[0] = median(time(on, "SELECT 1", Math.max(9, runs * 3)));
      floor[1] = median(time(duck, "SELECT 1", Math.max(9, runs * 3)));
      System.out.printf(Locale.ROOT, "SELECT 1: quiver %.1f ms, duckdb %.1f ms%n", floor[0], floor[1]);
      floorNote = compareFloors(on, floorCompare, Math.max(15, runs * 5));
    }
    String joins = sections.equals("all") ? JoinPruningSection.run(sf, runs) : "";
    Files.createDirectories(out);
    Files.writeString(out.resolve("pruning.md"), markdown(sf, runs, results, floor) + floorNote + joins);
    Files.writeString(out.resolve("pruning.svg"), svg(results));
    System.out.println("wrote " + out.resolve("pruning.md") + " and " + out.resolve("pruning.svg"));
  }

  /** The benchmark's lineitem files at {@code sf} in {@code layouts}, written under java.io.tmpdir if missing. */
  static Path ensureFiles(double sf, List<String> layouts) throws java.io.IOException {
    Path data = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "quiver-pruning-sf" + sf));
    for (String layout : layouts) {
      Path file = data.resolve("lineitem_" + layout + ".parquet");
      if (Files.exists(file)) continue;
      System.out.println("writing " + file + " …");
      Lineitem.Order order = switch (layout) {
        case "natural" -> Lineitem.Order.NATURAL;
        case "shipdate" -> Lineitem.Order.SHIPDATE;
        default -> Lineitem.Order.SHUFFLED;
      };
      Lineitem.write(file, sf, order, ROW_GROUP, b -> b
          .withCompressionCodec(CompressionCodecName.ZSTD)
          .withDictionaryEncoding("l_orderkey", false).withDictionaryEncoding("l_partkey", false)
          .withDictionaryEncoding("l_comment", false)
          .withBloomFilterEnabled("l_orderkey", true).withBloomFilterNDV("l_orderkey", ROW_GROUP)
          .withBloomFilterEnabled("l_partkey", true).withBloomFilterNDV("l_partkey", ROW_GROUP)
          .withBloomFilterEnabled("l_comment", true).withBloomFilterNDV("l_comment", ROW_GROUP));
    }
    return data;
  }

  /** The query set; the point lookup's key depends on {@code sf}. */
  static List<Query> queries(double sf) {
    long pointKey = pointKey(sf);
    return List.of(
        new Query("Q6", "SELECT sum(l_extendedprice * l_discount) FROM %s WHERE %s",
            "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"),
        new Query("Q1 (ungrouped)", "SELECT sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice * (1 - l_discount)), count(*) FROM %s WHERE %s",
            "l_shipdate <= DATE '1998-09-02'"),
        new Query("one-month range", "SELECT count(*), sum(l_quantity) FROM %s WHERE %s",
            "l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01'"),
        new Query("orderkey point", "SELECT count(*), sum(l_quantity) FROM %s WHERE %s", "l_orderkey = " + pointKey),
        new Query("absent shipmode", "SELECT count(*) FROM %s WHERE %s", "l_shipmode = 'BOAT'"),
        new Query("absent comment", "SELECT count(*) FROM %s WHERE %s", "l_comment = 'quiver: absent comment'"),
        new Query("control (no pruning)", "SELECT count(*) FROM %s WHERE %s", "l_shipmode IN ('AIR', 'MAIL')"));
  }

  /**
   * The per-query floor ({@code SELECT 1} through the JDBC driver) of this run's server and of other servers
   * (e.g. an older build started with {@code java -jar}), in interleaved rounds so that the load of the machine
   * falls on all of them alike. Each URL is {@code label=jdbc-url}. Returns a Markdown paragraph, empty if none.
   */
  static String compareFloors(Connection current, List<String> others, int rounds) throws Exception {
    if (others.isEmpty()) return "";
    List<String> labels = new ArrayList<>(List.of("this run's server (in-process)"));
    List<Connection> connections = new ArrayList<>(List.of(current));
    try {
      for (String o : others) {
        int eq = o.indexOf('=');
        if (eq < 0 || !o.substring(eq + 1).startsWith("jdbc:")) {
          throw new IllegalArgumentException("--floor-compare takes label=jdbc-url[,label=jdbc-url…], not " + o);
        }
        labels.add(o.substring(0, eq));
        connections.add(DriverManager.getConnection(o.substring(eq + 1)));
      }
      double[][] ms = new double[connections.size()][rounds];
      for (Connection c : connections) for (int w = 0; w < 20; w++) first(c, "SELECT 1");
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < connections.size(); k++) {
          long t0 = System.nanoTime();
          first(connections.get(k), "SELECT 1");
          ms[k][r] = (System.nanoTime() - t0) / 1e6;
        }
      }
      StringBuilder sb = new StringBuilder("\nPer-query floor compared, `SELECT 1` through the JDBC driver in ").append(rounds)
          .append(" interleaved rounds after 20 warm-up queries each (median / min ms):\n\n| server | median | min |\n|---|---|---|\n");
      for (int k = 0; k < connections.size(); k++) {
        Arrays.sort(ms[k]);
        sb.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f |%n", labels.get(k), median(ms[k]), ms[k][0]));
        System.out.printf(Locale.ROOT, "SELECT 1 floor: %-40s median %.2f ms, min %.2f ms%n", labels.get(k), median(ms[k]), ms[k][0]);
      }
      return sb.toString();
    } finally {
      for (int k = 1; k < connections.size(); k++) connections.get(k).close();
    }
  }

  /** An order key in the middle of the data (TPC-H keys are sparse). */
  static long pointKey(double sf) {
    long n = 0;
    long target = (long) (6_001_215L * sf / 2);
    for (LineItem li : new LineItemGenerator(sf, 1, 1)) {
      if (n++ == target) return li.getOrderKey();
    }
    return 1;
  }

  static double[] time(Connection c, String sql, int runs) throws Exception {
    first(c, sql); // warm-up
    double[] ms = new double[runs];
    for (int i = 0; i < runs; i++) {
      long t0 = System.nanoTime();
      first(c, sql);
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    Arrays.sort(ms);
    return ms;
  }

  static double median(double[] sorted) {
    return sorted[sorted.length / 2];
  }

  static List<String> first(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<String> row = new ArrayList<>();
      if (rs.next()) {
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          Object o = rs.getObject(i);
          row.add(o == null ? "NULL" : o instanceof Number n
              ? new BigDecimal(n.toString()).round(new MathContext(12)).stripTrailingZeros().toPlainString() : o.toString());
        }
      }
      while (rs.next()) { /* drain */ }
      return row;
    }
  }

  static boolean same(List<String> a, List<String> b) {
    return a.equals(b);
  }

  static long scalar(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static Map<String, Long> metrics(Connection c, String sql) throws Exception {
    Map<String, Long> m = new LinkedHashMap<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + sql)) {
      while (rs.next()) {
        String line = rs.getString(1);
        if (!line.contains("ParquetScanExec")) continue;
        Matcher matcher = Pattern.compile("(\\w+)=(\\d+)(?=\\s|$)").matcher(line);
        while (matcher.find()) m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
      }
    }
    return m;
  }

  static String markdown(double sf, int runs, List<Result> results, double[] floor) {
    StringBuilder sb = new StringBuilder();
    sb.append("# Row-group pruning benchmark\n\nTPC-H lineitem SF ").append(sf).append(", ").append(ROW_GROUP)
        .append("-row row groups, ZSTD, page indexes, bloom filters on l_orderkey / l_partkey / l_comment; ")
        .append(runs).append(" steady-state runs each (median / min ms; Quiver and DuckDB first warmed up until the median of ")
        .append(Timing.GROUP).append(" runs stopped improving by ").append(Timing.IMPROVEMENT_PERCENT).append("%, at most ")
        .append(Timing.MAX_WARM_UP).append(" runs), one process: Quiver through JDBC with pruning on and off, ")
        .append("DuckDB (2 threads) on the same files. `oracle` = row groups that hold a matching row. ")
        .append(String.format(Locale.ROOT, "Per-query floor, `SELECT 1` in the same run: Quiver %.1f ms (JDBC driver: prepare, "
            + "GetFlightInfo, DoGet and close over loopback gRPC), DuckDB %.1f ms (in-process). `first run` = the query's "
            + "first execution in this server (the server had run only the queries of the rows above it); `− floor` = "
            + "(Quiver median − Quiver's `SELECT 1`) / DuckDB median.\n\n", floor[0], floor[1]))
        .append("| layout | query | Quiver first run ms | Quiver ms (median/min) | pruning off ms | DuckDB ms (median/min) | Quiver / DuckDB | − floor | groups pruned (stats/dict/bloom) of total | oracle needs | pages pruned | MB read | same result |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      Map<String, Long> m = r.metrics();
      sb.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f / %.1f | %.1f | %.1f / %.1f | %.2f | %.2f | %d (%d/%d/%d) of %d | %d | %d | %.1f | %s |%n",
          r.layout(), r.query().name(), r.quiverFirst(), r.quiverMedian(), r.quiverMin(), r.offMedian(), r.duckMedian(), r.duckMin(),
          r.quiverMedian() / r.duckMedian(), Math.max(0, r.quiverMedian() - floor[0]) / r.duckMedian(), m.getOrDefault("row_groups_pruned", 0L),
          m.getOrDefault("row_groups_pruned_statistics", 0L), m.getOrDefault("row_groups_pruned_dictionary", 0L),
          m.getOrDefault("row_groups_pruned_bloom", 0L), m.getOrDefault("row_groups_total", 0L), r.oracleGroups(),
          m.getOrDefault("pages_pruned", 0L), m.getOrDefault("bytes_scanned", 0L) / 1e6, r.sameResult() ? "yes" : "NO"));
    }
    long within = results.stream().filter(r -> r.quiverMedian() / r.duckMedian() <= 1.5).count();
    List<Result> selective = results.stream().filter(r -> r.duckMedian() < 50).toList();
    long selectiveWithin = selective.stream()
        .filter(r -> Math.max(0, r.quiverMedian() - floor[0]) / r.duckMedian() <= 1.0).count();
    double geo = Math.exp(results.stream().mapToDouble(r -> Math.log(r.quiverMedian() / r.duckMedian())).average().orElse(0));
    double worstFirst = results.stream().mapToDouble(r -> r.quiverFirst() / r.quiverMedian()).max().orElse(0);
    sb.append(String.format(Locale.ROOT, "%nCells at most 1.5× DuckDB: %d of %d; geometric mean of the ratios %.2f. "
        + "Selective cells (DuckDB under 50 ms) at most 1.0× once Quiver's floor is subtracted: %d of %d. "
        + "Largest first run / steady median: %.1f×.%n", within, results.size(), geo, selectiveWithin, selective.size(),
        worstFirst));
    return sb.toString();
  }

  /** A horizontal bar per query and layout: Quiver's time as a fraction of DuckDB's (1.0 marked). */
  static String svg(List<Result> results) {
    int rowH = 18;
    int width = 760;
    int left = 300;
    double max = Math.max(2.0, results.stream().mapToDouble(r -> r.quiverMedian() / r.duckMedian()).max().orElse(1));
    StringBuilder sb = new StringBuilder();
    int h = 40 + rowH * results.size();
    sb.append("<svg xmlns='http://www.w3.org/2000/svg' width='").append(width).append("' height='").append(h)
        .append("' font-family='sans-serif' font-size='11'>\n")
        .append("<text x='10' y='16' font-size='13'>Quiver time / DuckDB time (shorter is better; line = 1.0)</text>\n");
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i);
      double ratio = r.quiverMedian() / r.duckMedian();
      int y = 30 + i * rowH;
      int w = (int) ((width - left - 60) * ratio / max);
      sb.append(String.format(Locale.ROOT, "<text x='10' y='%d'>%s · %s</text>%n", y + 12, r.layout(), r.query().name()));
      sb.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='%d' fill='%s'/>%n", left, y, Math.max(1, w),
          rowH - 4, ratio <= 1 ? "#2b8a3e" : "#c92a2a"));
      sb.append(String.format(Locale.ROOT, "<text x='%d' y='%d'>%.2f</text>%n", left + w + 4, y + 12, ratio));
    }
    int one = left + (int) ((width - left - 60) / max);
    sb.append(String.format(Locale.ROOT, "<line x1='%d' y1='24' x2='%d' y2='%d' stroke='black' stroke-dasharray='3,3'/>%n", one, one, h));
    return sb.append("</svg>\n").toString();
  }
}
