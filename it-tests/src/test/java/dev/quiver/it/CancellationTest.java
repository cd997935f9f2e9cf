package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.Lineitem;
import dev.quiver.server.QuiverServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
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

/** Cancelling a running scan (stream cancel, CancelFlightInfo), statement timeouts, SHOW / SET. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CancellationTest {
  @TempDir
  static Path dir;
  QuiverServer server;
  int port;

  @BeforeAll
  void start() throws Exception {
    Lineitem.write(dir.resolve("lineitem.parquet"), 0.05, Lineitem.Order.NATURAL, 8_192, b -> b);
    server = QuiverServer.start(dir.toString(), "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY);
  }

  @AfterAll
  void stop() throws Exception {
    server.close(); // fails if a cancelled query left a buffer behind
  }

  private FlightSqlClient client(BufferAllocator a) {
    return new FlightSqlClient(org.apache.arrow.flight.FlightClient.builder(a,
        org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1", server.port())).build());
  }

  /** Milliseconds until no query runs any more. */
  private long untilIdle(long startNanos) throws InterruptedException {
    while (server.runningQueries() > 0) {
      Thread.sleep(5);
      if (System.nanoTime() - startNanos > 10_000_000_000L) throw new AssertionError("query still running after 10 s");
    }
    return (System.nanoTime() - startNanos) / 1_000_000;
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
      assertThat(untilIdle(t0)).isLessThan(1_000);
      try {
        s.close();
      } catch (Exception expected) {
        // a cancelled stream reports its cancellation on close
      }
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
        assertThat(untilIdle(t0)).isLessThan(1_000);
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
      assertThat(TestServer.rows(c, "SHOW ALL")).hasSize(5).contains(List.of("quiver.statement_timeout_ms", "0"),
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
      assertThat(untilIdle(t0)).isLessThan(1_000);
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
}
