package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short load test: 8 concurrent JDBC clients (one connection each, anonymous: one user, so the default
 * limit of 8 running queries is just reached) against one in-process server on the sample data, each
 * running a mix of selective scans, point lookups, TPC-H aggregations and joins, prepared statements,
 * metadata calls and queries cancelled mid-stream. Every answer must equal the one a single client got
 * first; no query may fail (cancelled ones excepted, and never with INTERNAL); afterwards the server's
 * root allocator holds nothing. The full harness, with more clients, is {@code quiver-bench.jar load}.
 */
class LoadTest {
  static final int CLIENTS = 8;
  static final int QUERIES_PER_CLIENT = 6;

  /** kind: q (statement), p (prepared, with params), t (getTables), c (getColumns of sql), x (Statement.cancel), z (ResultSet.close). */
  record Item(char kind, String sql, List<Object> params) {}

  static String tpch(String q) throws Exception {
    try (InputStream in = LoadTest.class.getResourceAsStream("/tpch/" + q + ".sql")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static List<Item> workload() throws Exception {
    // cancelled by some clients while others read it in full: one statement's runs must not cancel each other
    String big = "SELECT l_orderkey, l_partkey, l_comment FROM lineitem WHERE l_shipdate < DATE '1993-01-01'";
    return List.of(
        new Item('q', "SELECT l_orderkey, l_linenumber, l_extendedprice FROM lineitem WHERE l_shipdate >= DATE '1994-03-01' "
            + "AND l_shipdate < DATE '1994-03-08' ORDER BY l_orderkey, l_linenumber", List.of()),
        new Item('q', "SELECT l_linenumber, l_quantity, l_comment FROM lineitem WHERE l_orderkey = 100002 ORDER BY 1", List.of()),
        new Item('q', tpch("q06"), List.of()),
        new Item('p', "SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem WHERE l_shipdate >= ? AND l_shipdate < ? "
            + "GROUP BY l_returnflag", List.of(java.sql.Date.valueOf("1995-05-01"), java.sql.Date.valueOf("1995-06-01"))),
        new Item('t', null, List.of()),
        new Item('x', big, List.of()),
        new Item('q', tpch("q03"), List.of()),
        new Item('p', "SELECT o_orderstatus, o_totalprice, o_clerk FROM orders WHERE o_orderkey = ?", List.of(388_000L)),
        new Item('c', "lineitem", List.of()),
        new Item('z', big, List.of()),
        new Item('q', tpch("q01"), List.of()),
        new Item('q', "SELECT n_name, count(*) FROM customer JOIN nation ON c_nationkey = n_nationkey GROUP BY n_name", List.of()),
        new Item('q', big, List.of()));
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void eightClientsGetTheSingleClientAnswersAndNothingLeaks() throws Exception {
    List<Item> items = workload();
    ExecutorService canceller = Executors.newCachedThreadPool();
    try (QuiverServer server = QuiverServer.start(SampleData.ensure().toString(), "127.0.0.1", 0,
        QuiverServer.DEFAULT_QUERY_MEMORY)) {
      Map<Item, List<List<Object>>> expected = new HashMap<>();
      try (Connection c = DriverManager.getConnection(server.jdbcUrl())) {
        Map<String, PreparedStatement> prepared = new HashMap<>();
        for (Item i : items) if (i.kind() != 'x' && i.kind() != 'z') expected.put(i, run(c, prepared, i, canceller));
        for (PreparedStatement p : prepared.values()) p.close();
      }

      ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> clients = new ArrayList<>();
      for (int k = 0; k < CLIENTS; k++) {
        int client = k;
        clients.add(pool.submit(() -> {
          try (Connection c = DriverManager.getConnection(server.jdbcUrl())) {
            Map<String, PreparedStatement> prepared = new HashMap<>();
            go.await();
            for (int q = 0; q < QUERIES_PER_CLIENT; q++) {
              // every client walks the mix from its own offset: all kinds run at once
              Item i = items.get((client * 5 + q) % items.size());
              long t0 = System.nanoTime();
              try {
                List<List<Object>> rows = run(c, prepared, i, canceller);
                if (expected.containsKey(i) && !same(expected.get(i), rows, i.sql() != null
                    && i.sql().toUpperCase(Locale.ROOT).contains("ORDER BY"))) {
                  problems.add("client " + client + ": wrong answer to " + i.sql() + ": " + rows.size() + " rows");
                }
              } catch (Exception e) { // the driver lets a cancelled stream's FlightRuntimeException out unwrapped
                String status = e instanceof SQLException sql ? MemoryLimitTest.status(sql) : e.toString();
                boolean expectedCancel = i.kind() == 'x'
                    && (status.contains("CANCELLED") || status.contains("Statement canceled"));
                if (!expectedCancel) problems.add("client " + client + ": " + status + " for " + i.sql());
              }
              latencies.add(System.nanoTime() - t0);
            }
            for (PreparedStatement p : prepared.values()) p.close();
          }
          return null;
        }));
      }
      long t0 = System.nanoTime();
      go.countDown();
      for (Future<?> f : clients) f.get();
      pool.shutdown();
      double seconds = (System.nanoTime() - t0) / 1e9;
      long[] ms = latencies.stream().mapToLong(n -> n / 1_000_000).sorted().toArray();
      System.out.printf(Locale.ROOT, "load: %d clients, %d queries in %.1f s (%.1f/s), p50 %d ms, p99 %d ms%n", CLIENTS,
          ms.length, seconds, ms.length / seconds, ms[ms.length / 2], ms[(int) Math.ceil(ms.length * 0.99) - 1]);
      assertThat(problems).isEmpty();
      assertThat(ms).hasSize(CLIENTS * QUERIES_PER_CLIENT);

      long deadline = System.nanoTime() + 10_000_000_000L;
      while ((server.runningQueries() > 0 || server.allocatedBytes() > 0) && System.nanoTime() < deadline) Thread.sleep(20);
      assertThat(server.runningQueries()).isZero();
      assertThat(server.allocatedBytes()).as("bytes the server's root allocator still holds").isZero();
    } finally { // and closing the server fails on a leak
      canceller.shutdown();
    }
  }

  /**
   * A BI tool's connection pool: 64 JDBC connections to a server with the default limits, no authentication
   * (so all are one user), each running a few queries at once. More queries arrive than may run; they must
   * wait their turn, not fail (the queue used to hold only 4 per running slot: 24 of 64 were refused).
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aPoolOf64ConnectionsQueuesInsteadOfFailing() throws Exception {
    int connections = 64;
    List<Item> items = List.of(new Item('q', tpch("q06"), List.of()),
        new Item('q', "SELECT l_linenumber, l_quantity, l_comment FROM lineitem WHERE l_orderkey = 100002 ORDER BY 1",
            List.of()),
        new Item('t', null, List.of()));
    try (QuiverServer server = QuiverServer.start(
        dev.quiver.server.ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0))) {
      Map<Item, List<List<Object>>> expected = new HashMap<>();
      try (Connection c = DriverManager.getConnection(server.jdbcUrl())) {
        for (Item i : items) expected.put(i, run(c, new HashMap<>(), i, null));
      }
      List<Connection> pool = new ArrayList<>();
      ExecutorService threads = Executors.newFixedThreadPool(connections);
      try {
        for (int k = 0; k < connections; k++) pool.add(DriverManager.getConnection(server.jdbcUrl()));
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (Connection c : pool) {
          futures.add(threads.submit(() -> {
            go.await();
            for (Item i : items) { // a scan first: all 64 arrive while 8 run
              try {
                if (!same(expected.get(i), run(c, new HashMap<>(), i, null), false)) {
                  problems.add("wrong answer to " + i.sql());
                }
              } catch (SQLException e) {
                problems.add(MemoryLimitTest.status(e));
              }
            }
            return null;
          }));
        }
        go.countDown();
        for (Future<?> f : futures) f.get();
        assertThat(problems).as("errors of 64 pooled connections").isEmpty();
      } finally {
        threads.shutdown();
        for (Connection c : pool) c.close();
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while ((server.runningQueries() > 0 || server.allocatedBytes() > 0) && System.nanoTime() < deadline) Thread.sleep(20);
      assertThat(server.allocatedBytes()).isZero();
    }
  }

  private static List<List<Object>> run(Connection c, Map<String, PreparedStatement> prepared, Item i,
      ExecutorService canceller) throws Exception {
    switch (i.kind()) {
      case 't' -> {
        try (ResultSet rs = c.getMetaData().getTables(null, null, "%", null)) {
          return read(rs, "TABLE_NAME", "TABLE_TYPE");
        }
      }
      case 'c' -> {
        try (ResultSet rs = c.getMetaData().getColumns(null, null, i.sql(), "%")) {
          return read(rs, "COLUMN_NAME", "TYPE_NAME", "ORDINAL_POSITION");
        }
      }
      case 'p' -> {
        PreparedStatement ps = prepared.get(i.sql());
        if (ps == null) prepared.put(i.sql(), ps = c.prepareStatement(i.sql()));
        for (int k = 0; k < i.params().size(); k++) ps.setObject(k + 1, i.params().get(k));
        try (ResultSet rs = ps.executeQuery()) {
          return read(rs);
        }
      }
      case 'x', 'z' -> {
        try (Statement st = c.createStatement()) {
          ResultSet rs = st.executeQuery(i.sql());
          int read = 0;
          Future<?> cancel = null;
          while (rs.next()) {
            if (++read == 2_000) {
              if (i.kind() == 'z') break; // closing the result set early
              cancel = canceller.submit(() -> {
                st.cancel(); // from another thread while this one reads
                return null;
              });
            }
          }
          if (cancel != null) cancel.get();
          rs.close();
        }
        return List.of();
      }
      default -> {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(i.sql())) {
          return read(rs);
        }
      }
    }
  }

  private static List<List<Object>> read(ResultSet rs, String... columns) throws SQLException {
    int n = columns.length > 0 ? columns.length : rs.getMetaData().getColumnCount();
    List<List<Object>> rows = new ArrayList<>();
    while (rs.next()) {
      List<Object> row = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        Object v = columns.length > 0 ? rs.getObject(columns[k]) : rs.getObject(k + 1);
        row.add(v instanceof BigDecimal d ? d.stripTrailingZeros() : v instanceof Double || v == null ? v : v.toString());
      }
      rows.add(row);
    }
    return rows;
  }

  /** Equal (in order, or as multisets), floating point values to 1e-9 relative. */
  private static boolean same(List<List<Object>> expected, List<List<Object>> actual, boolean ordered) {
    if (expected.size() != actual.size()) return false;
    List<List<Object>> e = new ArrayList<>(expected);
    List<List<Object>> a = new ArrayList<>(actual);
    if (!ordered) {
      java.util.Comparator<List<Object>> byText = java.util.Comparator.comparing(r -> r.stream()
          .map(v -> v instanceof Double d ? String.format(Locale.ROOT, "%.6g", d) : String.valueOf(v)).toList().toString());
      e.sort(byText);
      a.sort(byText);
    }
    for (int r = 0; r < e.size(); r++) {
      for (int k = 0; k < e.get(r).size(); k++) {
        Object x = e.get(r).get(k);
        Object y = a.get(r).get(k);
        boolean eq = x instanceof Double p && y instanceof Double q
            ? p.equals(q) || Math.abs(p - q) <= 1e-9 * Math.max(Math.abs(p), Math.abs(q))
            : java.util.Objects.equals(x, y);
        if (!eq) return false;
      }
    }
    return true;
  }
}
