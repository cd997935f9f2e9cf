package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.quiver.sample.Lineitem;
import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cancelling a running scan (stream cancel, CancelFlightInfo), statement timeouts, SHOW / SET; long joins
 * stopped by a cancel, a timeout or a client that vanishes, and a LIMIT over a fan-out join.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CancellationTest {
  @TempDir
  static Path dir;
  QuiverServer server;
  int port;
  /** The sample data (TPC-H SF 0.1: 150,000 orders) with a small per-query memory limit. */
  TestServer sample;

  @BeforeAll
  void start() throws Exception {
    Lineitem.write(dir.resolve("lineitem.parquet"), 0.05, Lineitem.Order.NATURAL, 8_192, b -> b);
    server = QuiverServer.start(dir.toString(), "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY);
    sample = TestServer.start(SampleData.ensure(), 64L << 20);
  }

  @AfterAll
  void stop() throws Exception {
    try {
      server.close(); // fails if a cancelled query left a buffer behind
    } finally {
      sample.close();
    }
  }

  private FlightSqlClient client(BufferAllocator a) {
    return new FlightSqlClient(org.apache.arrow.flight.FlightClient.builder(a,
        org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1", server.port())).build());
  }

  /** Milliseconds until no query runs any more. */
  private long untilIdle(long startNanos) throws InterruptedException {
    return untilIdle(server::runningQueries, startNanos);
  }

  /**
   * How long a cancelled scan may take to let go. The requirement is 1 s and unloaded it takes tens of
   * milliseconds; the bound leaves room for a machine busy with other builds (1.3 s was seen at a load of 15
   * on 2 cores) and still fails the old behaviour, which ran on for minutes.
   */
  private static final long IDLE_BOUND_MS = 3_000;

  /** Milliseconds from {@code startNanos} until {@code running} is 0 (the query's thread has let go). */
  private static long untilIdle(IntSupplier running, long startNanos) throws InterruptedException {
    while (running.getAsInt() > 0) {
      Thread.sleep(5);
      if (System.nanoTime() - startNanos > 10_000_000_000L) throw new AssertionError("query still running after 10 s");
    }
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  /** Waits until a query runs, then a little longer, so that it is deep in its join. */
  private void awaitJoinRunning() throws InterruptedException {
    long t0 = System.nanoTime();
    while (sample.runningQueries() == 0) {
      Thread.sleep(5);
      if (System.nanoTime() - t0 > 10_000_000_000L) throw new AssertionError("the query did not start");
    }
    Thread.sleep(1_500);
    assertThat(sample.runningQueries()).as("the join is still running").isEqualTo(1);
  }

  @Test
  void aClientCancellingItsStreamStopsTheScan() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient c = client(a)) {
      FlightInfo info = c.execute("SELECT * FROM lineitem WHERE regexp_like(l_comment, 'ly') OR l_orderkey > 0");
      FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket());
      assertThat(s.next()).isTrue();
      assertThat(server.runningQueries()).isEqualTo(1);
      long t0 = System.nanoTime();
      s.cancel("enough", null);
      assertThat(untilIdle(t0)).isLessThan(IDLE_BOUND_MS);
      try {
        s.close();
      } catch (Exception expected) {
        // a cancelled stream reports its cancellation on close
      }
    }
  }

  /**
   * A server closed at once after its client cancelled: the call is over for gRPC, but the query's thread may still
   * hold batches until its next check. The close waits for it to let go; it used to report that memory as leaked.
   */
  @Test
  void aServerClosedRightAfterAClientCancelsReportsNoLeak() throws Exception {
    for (int round = 0; round < 5; round++) {
      QuiverServer own = QuiverServer.start(dir.toString(), "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY);
      try (BufferAllocator a = new RootAllocator(); FlightSqlClient c = new FlightSqlClient(
          org.apache.arrow.flight.FlightClient.builder(a, org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1",
              own.port())).build())) {
        FlightInfo info = c.execute("SELECT * FROM lineitem WHERE regexp_like(l_comment, 'ly') OR l_orderkey > 0");
        FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket());
        assertThat(s.next()).isTrue();
        s.cancel("enough", null);
        try {
          s.close();
        } catch (Exception expected) {
          // a cancelled stream reports its cancellation on close
        }
      } finally {
        own.close(); // throws IllegalStateException "Memory was leaked by query" if it did not wait
      }
      assertThat(own.runningQueries()).isZero();
    }
  }

  @Test
  void cancelFlightInfoStopsTheQueryBehindIt() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient c = client(a)) {
      FlightInfo info = c.execute("SELECT l_comment FROM lineitem WHERE regexp_like(l_comment, 'ly') OR l_orderkey > 0");
      try (FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(s.next()).isTrue();
        long t0 = System.nanoTime();
        assertThat(c.cancelFlightInfo(new CancelFlightInfoRequest(info)).getStatus()).isEqualTo(CancelStatus.CANCELLED);
        assertThatThrownBy(() -> {
          while (s.next()) { /* drain until the server stops */ }
        }).isInstanceOf(FlightRuntimeException.class)
            .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.CANCELLED));
        assertThat(untilIdle(t0)).isLessThan(IDLE_BOUND_MS);
      }
    }
  }

  @Test
  void concurrentRunsOfOneStatementAreCancelledSeparately() throws Exception {
    String sql = "SELECT l_orderkey, l_comment FROM lineitem";
    long all;
    try (Connection c = java.sql.DriverManager.getConnection(server.jdbcUrl())) {
      all = TestServer.scalarLong(c, "SELECT count(*) FROM lineitem");
    }
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient c1 = client(a); FlightSqlClient c2 = client(a)) {
      // the same SQL by the same (anonymous) user: two executions of one statement
      FlightStream s1 = c1.getStream(c1.execute(sql).getEndpoints().get(0).getTicket());
      FlightStream s2 = c2.getStream(c2.execute(sql).getEndpoints().get(0).getTicket());
      assertThat(s1.next()).isTrue();
      assertThat(s2.next()).isTrue();
      assertThat(server.runningQueries()).isEqualTo(2);
      s1.cancel("enough", null);
      try {
        s1.close();
      } catch (Exception expected) {
        // a cancelled stream reports its cancellation on close
      }
      long rows = s2.getRoot().getRowCount();
      while (s2.next()) rows += s2.getRoot().getRowCount();
      s2.close();
      assertThat(rows).isEqualTo(all); // the other execution was not cancelled with it
    }
  }

  @Test
  void aCancelThatComesTooLateDoesNotCancelTheNextRun() throws Exception {
    String sql = "SELECT count(*) FROM lineitem WHERE l_quantity > 10";
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient c = client(a)) {
      FlightInfo first = c.execute(sql);
      try (FlightStream s = c.getStream(first.getEndpoints().get(0).getTicket())) {
        while (s.next()) { /* to the end */ }
      }
      c.cancelFlightInfo(new CancelFlightInfoRequest(first)); // the query has ended already
      FlightInfo again = c.execute(sql);
      try (FlightStream s = c.getStream(again.getEndpoints().get(0).getTicket())) {
        assertThat(s.next()).isTrue();
        assertThat((Long) s.getRoot().getVector(0).getObject(0)).isPositive();
      }
      // the cancelled FlightInfo's own ticket stays cancelled
      assertThatThrownBy(() -> {
        try (FlightStream s = c.getStream(first.getEndpoints().get(0).getTicket())) {
          while (s.next()) { /* until the error */ }
        }
      }).isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.CANCELLED));
    }
  }

  @Test
  void statementTimeoutPerSessionAndShow() throws Exception {
    try (Connection c = java.sql.DriverManager.getConnection(server.jdbcUrl()); Statement st = c.createStatement()) {
      st.execute("SET quiver.statement_timeout_ms = 20");
      assertThat(TestServer.rows(c, "SHOW quiver.statement_timeout_ms")).containsExactly(List.of("quiver.statement_timeout_ms", "20"));
      assertThatThrownBy(() -> TestServer.rows(c, "SELECT count(*) FROM lineitem WHERE regexp_like(l_comment, '(a|e)+z(o|u)*q')"))
          .isInstanceOf(SQLException.class).hasMessageContaining("statement timeout of 20 ms");
      st.execute("SET quiver.statement_timeout_ms = 0");
      assertThat(TestServer.rows(c, "SHOW ALL")).hasSize(7).contains(List.of("quiver.statement_timeout_ms", "0"),
          List.of("quiver.parallel_pipelines", "true"), List.of("quiver.max_endpoints", "1"),
          List.of("quiver.optimizer.simplify", "true"), List.of("timezone", "Z"));
      try (ResultSet rs = st.executeQuery("SELECT count(*) FROM lineitem")) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  @Test
  void jdbcStatementCancelStopsTheScan() throws Exception {
    try (Connection c = java.sql.DriverManager.getConnection(server.jdbcUrl()); Statement st = c.createStatement()) {
      st.execute("SET quiver.batch_rows = 1000");
      ResultSet rs = st.executeQuery("SELECT l_comment FROM lineitem WHERE regexp_like(l_comment, 'ly') OR l_orderkey > 0");
      assertThat(rs.next()).isTrue();
      long t0 = System.nanoTime();
      st.cancel();
      assertThat(untilIdle(t0)).isLessThan(IDLE_BOUND_MS);
    }
  }

  @Test
  void batchRowsSettingShapesTheStream() throws Exception {
    try (BufferAllocator a = new RootAllocator();
        FlightSqlClient c = new FlightSqlClient(org.apache.arrow.flight.FlightClient.builder(a,
            org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1", server.port()))
            .intercept(new org.apache.arrow.flight.client.ClientCookieMiddleware.Factory()).build())) {
      assertThatThrownBy(() -> c.executeUpdate("SET quiver.batch_rows = 0")).hasMessageContaining("between 1 and 1000000");
      c.executeUpdate("SET quiver.batch_rows = 500"); // kept in the session the cookie names
      FlightInfo info = c.execute("SELECT l_orderkey FROM lineitem");
      long rows = 0;
      int batches = 0;
      try (FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket())) {
        while (s.next()) {
          assertThat(s.getRoot().getRowCount()).isLessThanOrEqualTo(500);
          rows += s.getRoot().getRowCount();
          batches++;
        }
      }
      assertThat(batches).isGreaterThanOrEqualTo((int) (rows / 500));
      assertThat(rows).isPositive();
    }
  }

  @Test
  void jdbcExecuteBatchOfAQueryIsAClearError() throws Exception {
    try (Connection c = java.sql.DriverManager.getConnection(server.jdbcUrl());
        java.sql.PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM lineitem WHERE l_orderkey = ?")) {
      ps.setLong(1, 1);
      ps.addBatch();
      ps.setLong(1, 2);
      ps.addBatch();
      assertThatThrownBy(ps::executeBatch).isInstanceOf(SQLException.class).hasMessageContaining("read-only");
      ps.clearBatch();
      ps.setLong(1, 3);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  // ---- long joins on the sample data ----------------------------------------------------------------

  /** 150,000 x 20,000 candidate pairs, none kept: no output for minutes, only work. */
  static final String CROSS = "SELECT count(*) FROM orders a, (SELECT * FROM orders LIMIT 20000) b "
      + "WHERE a.o_orderkey + b.o_orderkey < 0";
  /** Three order statuses: about 10^10 result rows. */
  static final String FAN_OUT = "SELECT a.o_orderkey, b.o_orderkey FROM orders a JOIN orders b ON a.o_orderstatus = b.o_orderstatus";

  @Test
  void cancelFlightInfoStopsALongJoinWithinSeconds() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient c = sample.flightSql(a)) {
      FlightInfo info = c.execute(CROSS);
      try (FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket())) {
        awaitJoinRunning();
        long t0 = System.nanoTime();
        assertThat(c.cancelFlightInfo(new CancelFlightInfoRequest(info)).getStatus()).isEqualTo(CancelStatus.CANCELLED);
        long ms = untilIdle(sample::runningQueries, t0);
        System.out.println("join stopped " + ms + " ms after CancelFlightInfo");
        assertThat(ms).isLessThan(5_000); // it used to keep a core busy for minutes
        assertThatThrownBy(() -> {
          while (s.next()) { /* until the error */ }
        }).isInstanceOf(FlightRuntimeException.class)
            .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.CANCELLED));
      }
    }
  }

  @Test
  void jdbcStatementCancelStopsALongJoin() throws Exception {
    try (Connection c = sample.jdbc(); Statement st = c.createStatement()) {
      java.util.concurrent.CompletableFuture<Throwable> run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try (ResultSet rs = st.executeQuery(CROSS)) {
          rs.next();
          return null;
        } catch (Throwable t) {
          return t;
        }
      });
      awaitJoinRunning();
      long t0 = System.nanoTime();
      st.cancel();
      long ms = untilIdle(sample::runningQueries, t0);
      System.out.println("join stopped " + ms + " ms after Statement.cancel()");
      assertThat(ms).isLessThan(5_000);
      assertThat(run.get(10, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(SQLException.class);
    }
  }

  @Test
  void jdbcQueryTimeoutStopsALongJoinOnceTheStatementIsClosed() throws Exception {
    // the client's own timeout (setQueryTimeout) must stop the server's work too, not only the client's wait. The
    // Arrow JDBC driver 18.3.0 stops waiting but leaves the stream open; closing the statement (as every caller
    // does after an error) closes its prepared statement, and that cancels the server's run of it
    try (Connection c = sample.jdbc()) {
      long t0;
      try (Statement st = c.createStatement()) {
        st.setQueryTimeout(2);
        t0 = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThatThrownBy(() -> {
          try (ResultSet rs = st.executeQuery(CROSS)) {
            while (rs.next()) {
              // drain
            }
          }
        }).isInstanceOf(SQLException.class));
      }
      long ms = untilIdle(sample::runningQueries, t0);
      System.out.println("join with a 2 s JDBC query timeout stopped on the server after " + ms + " ms");
      assertThat(ms).isLessThan(12_000);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM nation")).isEqualTo(25);
    }
  }

  @Test
  void aFlightCallDeadlineStopsALongJoin() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient c = sample.flightSql(a)) {
      FlightInfo info = c.execute(CROSS);
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> {
        try (FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket(),
            org.apache.arrow.flight.CallOptions.timeout(2, java.util.concurrent.TimeUnit.SECONDS))) {
          while (s.next()) {
            // drain
          }
        }
      }).isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.TIMED_OUT));
      long ms = untilIdle(sample::runningQueries, t0);
      System.out.println("join with a 2 s call deadline stopped on the server after " + ms + " ms");
      assertThat(ms).isLessThan(12_000);
    }
  }

  @Test
  void statementTimeoutStopsALongJoin() throws Exception {
    try (Connection c = sample.jdbc(); Statement st = c.createStatement()) {
      st.execute("SET quiver.statement_timeout_ms = 2000");
      long t0 = System.nanoTime();
      assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThatThrownBy(() -> TestServer.rows(c, CROSS))
          .isInstanceOf(SQLException.class).hasMessageContaining("statement timeout of 2000 ms"));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.println("join with a 2000 ms statement timeout failed after " + ms + " ms");
      assertThat(ms).isLessThan(7_000);
      untilIdle(sample::runningQueries, System.nanoTime());
    }
  }

  /** A client whose connection dies (its process killed) while the server works on a join, silent or streaming. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aClientThatVanishesStopsItsJoin(boolean streaming) throws Exception {
    try (Proxy proxy = new Proxy(sample.port()); BufferAllocator a = new RootAllocator();
        FlightSqlClient c = new FlightSqlClient(org.apache.arrow.flight.FlightClient.builder(a,
            org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1", proxy.port())).build())) {
      FlightInfo info = c.execute(streaming ? FAN_OUT : CROSS);
      FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket());
      if (streaming) {
        assertThat(s.next()).isTrue(); // rows arrive, then the client stops reading
        Thread.sleep(1_000);
        assertThat(sample.runningQueries()).isEqualTo(1);
      } else {
        awaitJoinRunning();
      }
      long t0 = System.nanoTime();
      proxy.cut();
      long ms = untilIdle(sample::runningQueries, t0);
      System.out.println("join (streaming=" + streaming + ") stopped " + ms + " ms after its client vanished");
      assertThat(ms).isLessThan(5_000);
      try {
        s.close();
      } catch (Exception expected) {
        // the connection is gone
      }
    }
  }

  @Test
  void aLimitOverAFanOutJoinAnswersAtOnceInBoundedMemory() throws Exception {
    try (Connection c = sample.jdbc()) {
      long t0 = System.nanoTime();
      List<List<Object>> rows = TestServer.rows(c, FAN_OUT + " LIMIT 10");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.println("fan-out join LIMIT 10 answered in " + ms + " ms");
      assertThat(rows).hasSize(10);
      assertThat(ms).isLessThan(10_000); // it ran 14 s, then failed at the memory limit
      // each pair joins orders of equal status: checked by a second query
      List<String> keys = new ArrayList<>();
      for (List<Object> r : rows) {
        keys.add(String.valueOf(((Number) r.get(0)).longValue()));
        keys.add(String.valueOf(((Number) r.get(1)).longValue()));
      }
      Map<Long, String> status = new HashMap<>();
      for (List<Object> r : TestServer.rows(c, "SELECT o_orderkey, o_orderstatus FROM orders WHERE o_orderkey IN ("
          + String.join(", ", keys) + ")")) {
        status.put(((Number) r.get(0)).longValue(), (String) r.get(1));
      }
      for (List<Object> r : rows) {
        String left = status.get(((Number) r.get(0)).longValue());
        assertThat(left).isNotNull().isEqualTo(status.get(((Number) r.get(1)).longValue()));
      }
    }
  }

  /**
   * A TCP forwarder between a client and the server whose connections can be cut (reset), as when the
   * client's process or machine dies.
   */
  static final class Proxy implements AutoCloseable {
    private final ServerSocket listen = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final int target;

    Proxy(int target) throws IOException {
      this.target = target;
      Thread t = new Thread(this::accept, "test-proxy-accept");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return listen.getLocalPort();
    }

    private void accept() {
      try {
        while (true) {
          Socket in = listen.accept();
          Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
          sockets.add(in);
          sockets.add(out);
          pump(in, out);
          pump(out, in);
        }
      } catch (IOException closed) {
        // the proxy is closed
      }
    }

    private static void pump(Socket from, Socket to) {
      Thread t = new Thread(() -> {
        try {
          from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException cut) {
          // one side is gone
        }
      }, "test-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    /** Resets every connection. */
    void cut() throws IOException {
      for (Socket s : sockets) {
        if (s.isClosed()) continue;
        s.setSoLinger(true, 0);
        s.close();
      }
    }

    @Override
    public void close() throws IOException {
      listen.close();
      cut();
    }
  }
}
