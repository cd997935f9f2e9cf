package dev.quiver.bench;

import dev.quiver.server.QuiverServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The same scan (a selective and a wide scan/filter/project over the pruning benchmark's lineitem layouts) read
 * through one endpoint and through K endpoints, from one replica and from two replicas (in-process servers on
 * loopback, each the other's {@code --peers}, one ticket secret): by FlightSqlClient fetching the endpoints in
 * parallel (one thread per endpoint, a client per location made once) and by the Flight SQL JDBC driver (which reads
 * the endpoints itself). Spark over Quiver vs Spark's Parquet reader is measured apart (the spark module's
 * {@code ScaleOutSparkMeasure}, which writes {@code scaleout-spark.md}); this benchmark appends that file if present.
 */
public final class ScaleOutBenchmark {
  private ScaleOutBenchmark() {}

  record Scan(String name, String sql) {}

  /** {@code planMs}: the median GetFlightInfo time of the measured runs (FlightSqlClient only; NaN for JDBC). */
  record Row(String scan, String client, int replicas, int endpoints, Timing.Measured t, long rows, double planMs) {}

  static List<Scan> scans() {
    return List.of(
        new Scan("selective (one month, shipdate layout)", "SELECT l_orderkey, l_partkey, l_quantity, l_extendedprice, "
            + "l_discount, l_shipdate FROM lineitem_shipdate WHERE l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01'"),
        new Scan("wide (l_quantity < 10, natural layout)", "SELECT l_orderkey, l_partkey, l_suppkey, l_quantity, "
            + "l_extendedprice, l_discount, l_shipdate, l_shipmode FROM lineitem_natural WHERE l_quantity < 10"));
  }

  public static void main(String[] args) throws Exception {
    double sf = 1.0;
    int runs = 3;
    int maxWarmUp = 3;
    int[] ks = {2, 4};
    Path out = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sf" -> sf = Double.parseDouble(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--max-warm-up" -> maxWarmUp = Integer.parseInt(args[++i]);
        case "--k" -> ks = java.util.Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Path data = PruningBenchmark.ensureFiles(sf, List.of("natural", "shipdate"));
    List<Row> rows = new ArrayList<>();
    Map<String, Map<String, Long>> metrics = new HashMap<>();
    byte[] secret = "scaleout-bench-secret".getBytes(StandardCharsets.UTF_8);
    long memory = 3L << 30;
    try (QuiverServer solo = QuiverServer.start(data.toString(), "127.0.0.1", 0, memory);
        QuiverServer a = QuiverServer.start(data.toString(), "127.0.0.1", 0, memory);
        QuiverServer b = QuiverServer.start(data.toString(), "127.0.0.1", 0, memory);
        BufferAllocator allocator = new RootAllocator()) {
      a.scaleOut(new QuiverServer.ScaleOut(1, List.of(b.location()), null, secret));
      b.scaleOut(new QuiverServer.ScaleOut(1, List.of(a.location()), null, secret));
      ExecutorService pool = Executors.newCachedThreadPool();
      Map<Location, FlightSqlClient> byLocation = new HashMap<>();
      try {
        for (Scan scan : scans()) {
          try (Connection c = DriverManager.getConnection(solo.jdbcUrl())) {
            metrics.put(scan.name(), PruningBenchmark.metrics(c, scan.sql()));
          }
          // (a) one endpoint, one replica
          rows.add(jdbc(scan, solo, 1, 1, runs, maxWarmUp));
          rows.add(flight(scan, solo, 1, 1, runs, maxWarmUp, allocator, pool, byLocation));
          // (b) K endpoints from one replica and from two
          for (int k : ks) {
            for (int replicas : new int[] {1, 2}) {
              QuiverServer s = replicas == 1 ? solo : a;
              rows.add(flight(scan, s, replicas, k, runs, maxWarmUp, allocator, pool, byLocation));
              rows.add(jdbc(scan, s, replicas, k, runs, maxWarmUp));
            }
          }
        }
      } finally {
        pool.shutdownNow();
        for (FlightSqlClient c : byLocation.values()) c.close();
      }
    }
    StringBuilder md = new StringBuilder("# Scale-out benchmark: endpoints and replicas\n\n");
    md.append(String.format(Locale.ROOT, "TPC-H lineitem SF %s in the pruning benchmark's layouts (%d-row row groups, ZSTD), "
        + "read by this benchmark's process from Quiver servers in the same JVM on loopback: `1 replica` = one server "
        + "(no peers; its endpoints carry no location and are read over the same connection), `2 replicas` = two servers, "
        + "each the other's peer with one shared ticket secret (endpoints located round-robin: self, peer, self, peer). "
        + "`FlightSqlClient`: GetFlightInfo on a session with `SET quiver.max_endpoints = K`, then one thread per endpoint "
        + "doing DoGet at its location (clients per location made once, as a pool would), all batches counted. `JDBC`: the "
        + "Arrow Flight SQL JDBC driver, the same SET on its connection, every row stepped with `next()`. Times: first run, "
        + "then up to %d warm-up runs, then %d measured runs (median / min ms, see `Timing`). `vs 1 endpoint` = median / "
        + "the same client's one-endpoint median. Row groups and bytes read: the scan's EXPLAIN ANALYZE on one endpoint "
        + "(the K fragments together read the same row groups).%n%n", sf, PruningBenchmark.ROW_GROUP, maxWarmUp, runs));
    md.append("Command: `java -Xmx6g -jar bench/target/quiver-bench.jar scaleout --sf ").append(sf).append(" --runs ")
        .append(runs).append(" --max-warm-up ").append(maxWarmUp).append("`\n\n");
    for (Scan scan : scans()) {
      Map<String, Long> m = metrics.get(scan.name());
      md.append("## ").append(scan.name()).append("\n\n`").append(scan.sql()).append("`\n\n")
          .append(String.format(Locale.ROOT, "Row groups: %d of %d read (%d pruned); %.1f MB read; %d rows out.%n%n",
              m.getOrDefault("row_groups_total", 0L) - m.getOrDefault("row_groups_pruned", 0L),
              m.getOrDefault("row_groups_total", 0L), m.getOrDefault("row_groups_pruned", 0L),
              m.getOrDefault("bytes_scanned", 0L) / 1e6, rows.stream().filter(r -> r.scan().equals(scan.name()))
                  .mapToLong(Row::rows).findFirst().orElse(0)))
          .append("| part | client | replicas | endpoints | ms (median / min) | vs 1 endpoint | GetFlightInfo ms | rows |\n")
          .append("|---|---|---:|---:|---:|---:|---:|---:|\n");
      for (Row r : rows) {
        if (!r.scan().equals(scan.name())) continue;
        Row base = rows.stream().filter(x -> x.scan().equals(r.scan()) && r.client().startsWith(x.client()) && x.endpoints() == 1)
            .findFirst().orElseThrow();
        md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.1f / %.1f | %.2f× | %s | %d |%n", r.endpoints() == 1 ? "(a)" : "(b)",
            r.client(), r.replicas(), r.endpoints(), r.t().median(), r.t().min(), r.t().median() / base.t().median(),
            Double.isNaN(r.planMs()) ? "—" : String.format(Locale.ROOT, "%.1f", r.planMs()), r.rows()));
      }
      md.append('\n');
    }
    Files.createDirectories(out);
    Path spark = out.resolve("scaleout-spark.md");
    if (Files.exists(spark)) md.append(Files.readString(spark)).append('\n');
    Files.writeString(out.resolve("scaleout.md"), md.toString());
    System.out.println(md);
    System.out.println("wrote " + out.resolve("scaleout.md"));
  }

  private static Row jdbc(Scan scan, QuiverServer server, int replicas, int k, int runs, int maxWarmUp) throws Exception {
    try (Connection c = DriverManager.getConnection(server.jdbcUrl())) {
      try (Statement s = c.createStatement()) {
        s.execute("SET quiver.max_endpoints = " + k);
      }
      long[] count = new long[1];
      Timing.Measured t = Timing.measure(() -> {
        long n = 0;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(scan.sql())) {
          while (rs.next()) n++;
        }
        count[0] = n;
      }, runs, maxWarmUp);
      return report(new Row(scan.name(), "JDBC", replicas, k, t, count[0], Double.NaN));
    }
  }

  private static Row flight(Scan scan, QuiverServer server, int replicas, int k, int runs, int maxWarmUp,
      BufferAllocator allocator, ExecutorService pool, Map<Location, FlightSqlClient> byLocation) throws Exception {
    try (FlightSqlClient session = new FlightSqlClient(FlightClient.builder(allocator,
        Location.forGrpcInsecure("127.0.0.1", server.port()))
        .intercept(new org.apache.arrow.flight.client.ClientCookieMiddleware.Factory()).build())) {
      session.executeUpdate("SET quiver.max_endpoints = " + k);
      long[] count = new long[1];
      int[] seen = new int[1];
      List<Double> plans = new ArrayList<>();
      Timing.Measured t = Timing.measure(() -> {
        long p0 = System.nanoTime();
        FlightInfo info = session.execute(scan.sql());
        plans.add((System.nanoTime() - p0) / 1e6);
        seen[0] = info.getEndpoints().size();
        List<Future<Long>> parts = new ArrayList<>();
        for (FlightEndpoint e : info.getEndpoints()) {
          FlightSqlClient at;
          if (e.getLocations().isEmpty()) {
            at = session;
          } else {
            synchronized (byLocation) {
              at = byLocation.computeIfAbsent(e.getLocations().get(0),
                  l -> new FlightSqlClient(FlightClient.builder(allocator, l).build()));
            }
          }
          FlightSqlClient client = at;
          parts.add(pool.submit(() -> {
            long n = 0;
            try (FlightStream s = client.getStream(e.getTicket())) {
              while (s.next()) n += s.getRoot().getRowCount();
            }
            return n;
          }));
        }
        long n = 0;
        for (Future<Long> f : parts) n += f.get();
        count[0] = n;
      }, runs, maxWarmUp);
      double[] last = plans.subList(plans.size() - runs, plans.size()).stream().mapToDouble(Double::doubleValue).sorted().toArray();
      if (seen[0] != k) System.out.println("  note: " + seen[0] + " endpoints returned for max_endpoints " + k);
      return report(new Row(scan.name(), "FlightSqlClient" + (seen[0] != k ? " (" + seen[0] + " returned)" : ""),
          replicas, k, t, count[0], last[last.length / 2]));
    }
  }

  private static Row report(Row r) {
    System.out.printf(Locale.ROOT, "%-40s %-16s replicas %d endpoints %d: median %8.1f ms  min %8.1f ms  plan %5.1f ms  rows %d%n",
        r.scan(), r.client(), r.replicas(), r.endpoints(), r.t().median(), r.t().min(), r.planMs(), r.rows());
    return r;
  }
}
