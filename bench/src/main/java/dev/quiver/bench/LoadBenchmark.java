package dev.quiver.bench;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import dev.quiver.server.ServerConfig;
import dev.quiver.server.Users;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A load test: N concurrent JDBC clients (the Flight SQL JDBC driver, one connection and one user each)
 * against one in-process server on the sample data, each running a fixed number of queries drawn from a
 * mixed workload — selective scans, point lookups, aggregations (TPC-H Q1, Q6), joins (Q3, Q5, Q10, Q12),
 * prepared statements with parameters, metadata calls, and queries cancelled mid-stream (by
 * {@code Statement.cancel()} from another thread, or by closing the ResultSet early).
 *
 * <p>The expected answer of every query is computed once, by a single client, before the concurrent run;
 * every concurrent answer must equal it (in order under an ORDER BY, as a multiset otherwise; floating
 * point values to 1e-9 relative). Reports throughput, p50/p99 latency (all and per kind), errors by Flight
 * status code, mismatches, and the bytes the server's root allocator still holds after the run (must be 0).
 *
 * <p>{@code java -jar bench/target/quiver-bench.jar load [--clients 4,16,64] [--queries-per-client 25]
 * [--seed 1] [--out bench/results]}; exits 1 if a query got INTERNAL, an answer differed or memory leaked.
 */
public final class LoadBenchmark {
  private LoadBenchmark() {}

  /** Kinds of workload items. */
  public enum Kind { SCAN, POINT, AGGREGATE, JOIN, PREPARED, METADATA, CANCEL }

  /** One workload item: a query (with parameters when prepared), a metadata call, or a query to cancel. */
  public record Spec(Kind kind, String name, String sql, List<Object> params) {
    boolean ordered() {
      return sql != null && sql.toUpperCase(Locale.ROOT).contains("ORDER BY");
    }
  }

  /** What one execution gave: its rows (null if none), its error's status code (null if none), its latency. */
  public record Outcome(Spec spec, long nanos, List<List<Object>> rows, String error, String message) {}

  /** The report of one run. */
  public record Report(int clients, int queries, double seconds, List<Outcome> outcomes, Map<String, Integer> errors,
      List<String> mismatches, long leakedBytes) {
    double throughput() {
      return queries / seconds;
    }

    /** Latency percentile in ms over the outcomes of {@code kind} (all if null). */
    double percentile(Kind kind, double p) {
      long[] ns = outcomes.stream().filter(o -> kind == null || o.spec().kind() == kind).mapToLong(Outcome::nanos).sorted()
          .toArray();
      if (ns.length == 0) return Double.NaN;
      int i = (int) Math.ceil(p / 100.0 * ns.length) - 1;
      return ns[Math.max(0, Math.min(ns.length - 1, i))] / 1e6;
    }

    boolean ok() {
      return !errors.containsKey("INTERNAL") && mismatches.isEmpty() && leakedBytes == 0;
    }
  }

  public static void main(String[] args) throws Exception {
    int[] clients = {4, 16, 64};
    int perClient = 25;
    long seed = 1;
    Path out = Path.of("bench/results");
    String url = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--clients" -> clients = Arrays.stream(args[++i].split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        case "--queries-per-client" -> perClient = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--url" -> url = args[++i];
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (load [--clients 4,16,64] [--queries-per-client 25] [--seed 1] [--out bench/results] [--url JDBC_URL])");
      }
    }
    int maxClients = Arrays.stream(clients).max().orElse(1);
    Path data = SampleData.ensure();
    List<Spec> specs = workload();
    List<Report> reports = new ArrayList<>();
    long t0 = System.nanoTime();
    Map<Spec, List<List<Object>>> expected;
    if (url != null) { // a server running elsewhere (e.g. to watch its process's memory): anonymous clients
      Target server = new Target(url, null);
      expected = expected(server, specs);
      for (int n : clients) {
        Report r = run(server, n, perClient, specs, expected, seed);
        reports.add(r);
        System.out.println(summary(r));
      }
      if (!reports.stream().allMatch(Report::ok)) {
        System.err.println("FAILED: INTERNAL errors or wrong answers (see above)");
        System.exit(1);
      }
      return;
    }
    try (QuiverServer in = start(data, maxClients)) {
      Target server = new Target(in.jdbcUrl(), in);
      expected = expected(server, specs);
      System.out.printf(Locale.ROOT, "expected answers of %d queries computed in %.1f s (one client)%n", expected.size(),
          (System.nanoTime() - t0) / 1e9);
      for (int n : clients) {
        Report r = run(server, n, perClient, specs, expected, seed);
        reports.add(r);
        System.out.println(summary(r));
      }
    } // closing the server fails if a buffer is still allocated
    String md = markdown(reports, perClient, seed, expected.size());
    Files.createDirectories(out);
    Files.writeString(out.resolve("load.md"), md);
    System.out.println("wrote " + out.resolve("load.md"));
    if (!reports.stream().allMatch(Report::ok)) {
      System.err.println("FAILED: INTERNAL errors, wrong answers or leaked memory (see above)");
      System.exit(1);
    }
  }

  /** A server on {@code data} with users {@code load1 … loadN} (password {@code pw}), the default limits otherwise. */
  public static QuiverServer start(Path data, int users) throws IOException {
    Path file = Files.createTempFile("quiver-load-users", ".txt");
    try {
      StringBuilder lines = new StringBuilder();
      for (int i = 0; i <= users; i++) lines.append(user(i)).append(':').append(Users.hash("pw", 1_000)).append('\n');
      Files.writeString(file, lines);
      return QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0).withUsers(Users.none().load(file)));
    } finally {
      Files.deleteIfExists(file);
    }
  }

  static String user(int client) {
    return "load" + client;
  }

  /**
   * Where the clients connect: the in-process server (its users {@code load0 … loadN}; leaks are checked), or
   * ({@code --url}) a server running elsewhere, as anonymous clients (leaks not seen: reported as 0).
   */
  public record Target(String jdbcUrl, QuiverServer server) {}

  public static Connection connect(Target target, int client) throws SQLException {
    return target.server() == null ? DriverManager.getConnection(target.jdbcUrl())
        : DriverManager.getConnection(target.jdbcUrl() + "&user=" + user(client) + "&password=pw");
  }

  // ---- the workload ------------------------------------------------------------------------------

  static String tpch(String name) {
    try (InputStream in = LoadBenchmark.class.getResourceAsStream("/tpch/" + name + ".sql")) {
      if (in == null) throw new IllegalStateException("no resource /tpch/" + name + ".sql");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The workload's items; clients draw from them with {@link #draw}. */
  public static List<Spec> workload() {
    List<Spec> s = new ArrayList<>();
    LocalDate first = LocalDate.of(1992, 3, 2);
    for (int i = 0; i < 8; i++) {
      LocalDate from = first.plusDays(i * 301L);
      s.add(new Spec(Kind.SCAN, "shipdate week " + from, "SELECT l_orderkey, l_linenumber, l_quantity, l_extendedprice, "
          + "l_shipmode FROM lineitem WHERE l_shipdate >= DATE '" + from + "' AND l_shipdate < DATE '" + from.plusDays(7)
          + "' ORDER BY l_orderkey, l_linenumber", List.of()));
    }
    for (long key : new long[] {1, 7, 32_768, 100_002, 262_145, 400_003, 555_555, 600_000}) {
      s.add(new Spec(Kind.POINT, "orderkey " + key, "SELECT l_linenumber, l_partkey, l_quantity, l_shipdate, l_comment "
          + "FROM lineitem WHERE l_orderkey = " + key + " ORDER BY l_linenumber", List.of()));
    }
    for (String q : List.of("q01", "q06")) s.add(new Spec(Kind.AGGREGATE, "TPC-H " + q, tpch(q), List.of()));
    for (String q : List.of("q03", "q05", "q10", "q12")) s.add(new Spec(Kind.JOIN, "TPC-H " + q, tpch(q), List.of()));
    for (int i = 0; i < 6; i++) {
      LocalDate from = LocalDate.of(1993 + i, 1 + i, 1);
      s.add(new Spec(Kind.PREPARED, "shipdate month ?", "SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem "
          + "WHERE l_shipdate >= ? AND l_shipdate < ? GROUP BY l_returnflag ORDER BY l_returnflag",
          List.of(java.sql.Date.valueOf(from), java.sql.Date.valueOf(from.plusMonths(1)))));
      s.add(new Spec(Kind.PREPARED, "orderkey ?", "SELECT o_orderstatus, o_totalprice, o_orderdate, o_clerk FROM orders "
          + "WHERE o_orderkey = ?", List.of((long) (1 + i * 97_001))));
    }
    s.add(new Spec(Kind.METADATA, "getTables", null, List.of()));
    for (String t : List.of("lineitem", "orders", "events")) s.add(new Spec(Kind.METADATA, "getColumns", t, List.of()));
    String big = "SELECT l_orderkey, l_partkey, l_suppkey, l_comment FROM lineitem";
    s.add(new Spec(Kind.CANCEL, "Statement.cancel", big, List.of("cancel")));
    s.add(new Spec(Kind.CANCEL, "ResultSet.close", big, List.of("close")));
    return s;
  }

  /** Relative weights of the kinds in the mix. */
  private static final Map<Kind, Integer> WEIGHTS = Map.of(Kind.SCAN, 20, Kind.POINT, 15, Kind.AGGREGATE, 10,
      Kind.JOIN, 15, Kind.PREPARED, 20, Kind.METADATA, 10, Kind.CANCEL, 10);

  /** A random item: a kind by its weight, then an item of that kind uniformly. */
  public static Spec draw(List<Spec> specs, Random random) {
    int total = WEIGHTS.values().stream().mapToInt(Integer::intValue).sum();
    int x = random.nextInt(total);
    Kind kind = null;
    for (Kind k : Kind.values()) {
      x -= WEIGHTS.get(k);
      if (x < 0) {
        kind = k;
        break;
      }
    }
    Kind chosen = kind;
    List<Spec> of = specs.stream().filter(s -> s.kind() == chosen).toList();
    return of.get(random.nextInt(of.size()));
  }

  // ---- running -----------------------------------------------------------------------------------

  /** The answers of every non-cancelled item, one client, one at a time. */
  public static Map<Spec, List<List<Object>>> expected(Target server, List<Spec> specs) throws Exception {
    Map<Spec, List<List<Object>>> expected = new HashMap<>();
    try (Connection c = connect(server, 0)) {
      Map<String, PreparedStatement> prepared = new HashMap<>();
      for (Spec s : specs) {
        if (s.kind() == Kind.CANCEL) continue;
        Outcome o = execute(c, prepared, s, null);
        if (o.error() != null) throw new IllegalStateException(s.name() + " failed alone: " + o.message());
        expected.put(s, o.rows());
      }
      for (PreparedStatement p : prepared.values()) p.close();
    }
    return expected;
  }

  /** {@code n} clients, each running {@code perClient} items of the mix, all at once; checks every answer. */
  public static Report run(Target server, int n, int perClient, List<Spec> specs,
      Map<Spec, List<List<Object>>> expected, long seed) throws Exception {
    ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(n);
    ExecutorService canceller = Executors.newCachedThreadPool();
    CountDownLatch ready = new CountDownLatch(n);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> clients = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int client = i + 1;
      clients.add(pool.submit(() -> {
        Random random = new Random(seed * 1_000_003L + client);
        try (Connection c = connect(server, client)) {
          Map<String, PreparedStatement> prepared = new HashMap<>();
          ready.countDown();
          go.await();
          for (int q = 0; q < perClient; q++) outcomes.add(execute(c, prepared, draw(specs, random), canceller));
          for (PreparedStatement p : prepared.values()) p.close();
        }
        return null;
      }));
    }
    ready.await();
    long t0 = System.nanoTime();
    go.countDown();
    for (Future<?> f : clients) f.get();
    double seconds = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    canceller.shutdown();

    Map<String, Integer> errors = new TreeMap<>();
    List<String> mismatches = new ArrayList<>();
    for (Outcome o : outcomes) {
      if (o.error() != null && !(o.spec().kind() == Kind.CANCEL && o.error().equals("CANCELLED"))) {
        errors.merge(o.error(), 1, Integer::sum);
        if (mismatches.size() < 10 && !o.error().equals("RESOURCE_EXHAUSTED")) {
          mismatches.add(o.spec().name() + ": " + o.error() + " " + o.message());
        }
        continue;
      }
      if (o.spec().kind() == Kind.CANCEL) continue;
      String diff = compare(expected.get(o.spec()), o.rows(), o.spec().ordered());
      if (diff != null) mismatches.add(o.spec().name() + ": " + diff);
    }
    return new Report(n, outcomes.size(), seconds, List.copyOf(outcomes), errors, mismatches,
        server.server() == null ? 0 : leakedBytes(server.server()));
  }

  /** Waits (up to 10 s) for the server to go idle, then answers what its root allocator still holds. */
  public static long leakedBytes(QuiverServer server) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while ((server.runningQueries() > 0 || server.allocatedBytes() > 0) && System.nanoTime() < deadline) Thread.sleep(20);
    return server.allocatedBytes();
  }

  /** Runs one item; an error becomes the outcome's status code (the Flight status in the SQLException's causes). */
  public static Outcome execute(Connection c, Map<String, PreparedStatement> prepared, Spec s, ExecutorService canceller) {
    long t0 = System.nanoTime();
    try {
      List<List<Object>> rows = switch (s.kind()) {
        case METADATA -> {
          if (s.sql() == null) {
            try (ResultSet rs = c.getMetaData().getTables(null, null, "%", null)) {
              yield read(rs, "TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE");
            }
          }
          try (ResultSet rs = c.getMetaData().getColumns(null, null, s.sql(), "%")) {
            yield read(rs, "TABLE_NAME", "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "ORDINAL_POSITION");
          }
        }
        case PREPARED -> {
          PreparedStatement ps = prepared.get(s.sql());
          if (ps == null) prepared.put(s.sql(), ps = c.prepareStatement(s.sql()));
          for (int i = 0; i < s.params().size(); i++) ps.setObject(i + 1, s.params().get(i));
          try (ResultSet rs = ps.executeQuery()) {
            yield read(rs);
          }
        }
        case CANCEL -> {
          cancelMidStream(c, s, canceller);
          yield null;
        }
        default -> {
          try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(s.sql())) {
            yield read(rs);
          }
        }
      };
      return new Outcome(s, System.nanoTime() - t0, rows, null, null);
    } catch (Exception e) {
      return new Outcome(s, System.nanoTime() - t0, null, status(e), String.valueOf(e));
    }
  }

  /** Reads a long result for a while, then cancels it from another thread (or closes the ResultSet early). */
  private static void cancelMidStream(Connection c, Spec s, ExecutorService canceller) throws Exception {
    boolean close = s.params().get(0).equals("close");
    try (Statement st = c.createStatement()) {
      ResultSet rs = st.executeQuery(s.sql());
      int read = 0;
      Future<?> cancel = null;
      while (rs.next()) {
        if (++read == 2_000) {
          if (close) break;
          cancel = canceller.submit(() -> {
            st.cancel();
            return null;
          });
        }
      }
      if (cancel != null) cancel.get();
      rs.close();
    }
  }

  /** Every row, every column ({@code getObject}, normalized), or the named columns. */
  static List<List<Object>> read(ResultSet rs, String... columns) throws SQLException {
    int n = columns.length > 0 ? columns.length : rs.getMetaData().getColumnCount();
    List<List<Object>> rows = new ArrayList<>();
    while (rs.next()) {
      List<Object> row = new ArrayList<>(n);
      for (int i = 0; i < n; i++) row.add(normalize(columns.length > 0 ? rs.getObject(columns[i]) : rs.getObject(i + 1)));
      rows.add(row);
    }
    return rows;
  }

  private static Object normalize(Object v) {
    if (v == null) return null;
    if (v instanceof BigDecimal d) return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
    if (v instanceof Float f) return f.doubleValue();
    if (v instanceof Double || v instanceof Long || v instanceof Boolean) return v;
    if (v instanceof Number x) return x.longValue();
    return v.toString();
  }

  /** The Flight status code of an error: the code of the FlightRuntimeException among its causes. */
  public static String status(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getClass().getName().endsWith("FlightRuntimeException")) {
        String s = t.toString();
        String rest = s.substring(s.indexOf(": ") + 2);
        int colon = rest.indexOf(':');
        return colon > 0 ? rest.substring(0, colon) : rest;
      }
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.contains("Statement canceled")) return "CANCELLED"; // the driver's word for its own cancellation
      for (String code : List.of("CANCELLED", "RESOURCE_EXHAUSTED", "TIMED_OUT", "INTERNAL", "UNAVAILABLE", "UNKNOWN")) {
        if (m.startsWith(code) || m.contains(" " + code + ":")) return code;
      }
    }
    return "CLIENT(" + e.getClass().getSimpleName() + ")";
  }

  /** Null if {@code actual} is {@code expected}, else what differs. */
  public static String compare(List<List<Object>> expected, List<List<Object>> actual, boolean ordered) {
    if (actual.size() != expected.size()) return actual.size() + " rows instead of " + expected.size();
    List<List<Object>> e = expected;
    List<List<Object>> a = actual;
    if (!ordered) {
      e = sorted(expected);
      a = sorted(actual);
    }
    for (int i = 0; i < e.size(); i++) {
      if (!rowEquals(e.get(i), a.get(i))) return "row " + i + " is " + a.get(i) + " instead of " + e.get(i);
    }
    return null;
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> s = new ArrayList<>(rows);
    s.sort((x, y) -> key(x).compareTo(key(y)));
    return s;
  }

  private static String key(List<Object> row) {
    StringBuilder b = new StringBuilder();
    for (Object v : row) b.append(v instanceof Double d ? String.format(Locale.ROOT, "%.6g", d) : String.valueOf(v)).append('\u0001');
    return b.toString();
  }

  private static boolean rowEquals(List<Object> x, List<Object> y) {
    if (x.size() != y.size()) return false;
    for (int i = 0; i < x.size(); i++) {
      Object a = x.get(i);
      Object b = y.get(i);
      if (a instanceof Double p && b instanceof Double q) {
        if (!(p.equals(q) || Math.abs(p - q) <= 1e-9 * Math.max(Math.abs(p), Math.abs(q)))) return false;
      } else if (!java.util.Objects.equals(a, b)) {
        return false;
      }
    }
    return true;
  }

  // ---- reporting ---------------------------------------------------------------------------------

  static String summary(Report r) {
    return String.format(Locale.ROOT, "%d clients: %d queries in %.1f s = %.1f queries/s, p50 %.1f ms, p99 %.1f ms, "
        + "errors %s, mismatches %d, leaked %d bytes", r.clients(), r.queries(), r.seconds(), r.throughput(),
        r.percentile(null, 50), r.percentile(null, 99), r.errors(), r.mismatches().size(), r.leakedBytes())
        + (r.mismatches().isEmpty() ? "" : "\n  " + String.join("\n  ", r.mismatches()));
  }

  static String markdown(List<Report> reports, int perClient, long seed, int distinct) {
    StringBuilder md = new StringBuilder("# Load test\n\n");
    md.append("`java -jar bench/target/quiver-bench.jar load --clients ")
        .append(String.join(",", reports.stream().map(r -> String.valueOf(r.clients())).toList()))
        .append(" --queries-per-client ").append(perClient).append(" --seed ").append(seed).append("`\n\n");
    md.append(String.format(Locale.ROOT, "Machine: %d cores (as the JVM sees them), Java %s, max heap %d MiB; "
        + "server and clients in one JVM, over loopback. Server: the sample data, default limits "
        + "(--query-memory 2 GiB, --server-memory %d MiB, --max-queries-per-user 8), one user per client.%n%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
        Runtime.getRuntime().maxMemory() >> 20, QuiverServer.defaultServerMemory() >> 20));
    md.append("Each client has its own JDBC connection and runs ").append(perClient).append(" items drawn from the mix "
        + "(weights: scans 20, point lookups 15, aggregations 10, joins 15, prepared 20, metadata 10, cancelled 10) "
        + "over ").append(distinct).append(" distinct queries whose answers were computed once by a single client; "
        + "every concurrent answer is compared with it. Latency is per item, from execute to the last row read "
        + "(for cancelled ones, until the cancellation took effect).\n\n");
    md.append("| clients | queries | wall s | queries/s | p50 ms | p99 ms | errors by status | wrong answers | "
        + "leaked bytes |\n|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (Report r : reports) {
      long cancelled = r.outcomes().stream().filter(o -> "CANCELLED".equals(o.error())).count();
      md.append(String.format(Locale.ROOT, "| %d | %d | %.1f | %.1f | %.1f | %.1f | %s | %d | %d |%n", r.clients(),
          r.queries(), r.seconds(), r.throughput(), r.percentile(null, 50), r.percentile(null, 99),
          (r.errors().isEmpty() ? "none" : r.errors().toString()) + " (+" + cancelled + " CANCELLED as intended)",
          r.mismatches().size(), r.leakedBytes()));
    }
    md.append("\nLatency by kind, p50 / p99 ms:\n\n| clients |");
    for (Kind k : Kind.values()) md.append(' ').append(k.name().toLowerCase(Locale.ROOT)).append(" |");
    md.append("\n|---:|");
    md.append("---:|".repeat(Kind.values().length)).append('\n');
    for (Report r : reports) {
      md.append("| ").append(r.clients()).append(" |");
      for (Kind k : Kind.values()) {
        long count = r.outcomes().stream().filter(o -> o.spec().kind() == k).count();
        md.append(String.format(Locale.ROOT, " %.0f / %.0f (%d) |", r.percentile(k, 50), r.percentile(k, 99), count));
      }
      md.append('\n');
    }
    for (Report r : reports) {
      if (!r.mismatches().isEmpty()) {
        md.append("\nFirst problems with ").append(r.clients()).append(" clients:\n\n");
        for (String m : r.mismatches()) md.append("- ").append(m).append('\n');
      }
    }
    return md.toString();
  }

}
