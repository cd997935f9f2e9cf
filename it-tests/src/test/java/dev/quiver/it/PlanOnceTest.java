package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A query is parsed, analyzed and optimized once per execution (the plan of CreatePreparedStatement or
 * GetFlightInfo is reused by the calls that follow), and a reused plan never reads files that changed since
 * it was built: the plan is checked against the data directory as it is when the query runs.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PlanOnceTest {
  @TempDir
  Path dir;

  @Test
  void jdbcExecuteQueryPlansOnce() throws Exception {
    FileChangesTest.writeLongs(dir.resolve("t.parquet"), 0, 1000, 250);
    try (TestServer server = TestServer.start(dir); Connection c = server.jdbc()) {
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t")).isEqualTo(1000); // warm-up
      for (int i = 0; i < 3; i++) {
        long before = server.plansBuilt();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT sum(x) FROM t WHERE x < 10")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getLong(1)).isEqualTo(45);
        }
        assertThat(server.plansBuilt() - before).as("plans built by one executeQuery").isEqualTo(1);
      }
    }
  }

  @Test
  void preparedStatementExecutionPlansOnceAndSeesReplacedFiles() throws Exception {
    Path t = dir.resolve("t.parquet");
    FileChangesTest.writeLongs(t, 0, 1000, 250);
    try (TestServer server = TestServer.start(dir); Connection c = server.jdbc();
        PreparedStatement p = c.prepareStatement("SELECT count(*) FROM t WHERE x >= ?")) {
      p.setLong(1, 500);
      assertThat(count(p)).isEqualTo(500);
      for (int i = 0; i < 3; i++) {
        long before = server.plansBuilt();
        p.setLong(1, 900 + i);
        assertThat(count(p)).isEqualTo(100 - i);
        assertThat(server.plansBuilt() - before).as("plans built by one prepared execution").isEqualTo(1);
      }
      // the same statement with the same value, after the file was replaced: the new answer
      p.setLong(1, 900);
      assertThat(count(p)).isEqualTo(100);
      replace(t, 1_000_000);
      assertThat(count(p)).isEqualTo(1000);
    }
  }

  /** A plan cached by GetFlightInfo is not used by the DoGet after its file was replaced. */
  @Test
  void planCachedBeforeAFileChangeIsNotReused() throws Exception {
    Path t = dir.resolve("t.parquet");
    FileChangesTest.writeLongs(t, 0, 1000, 250);
    try (TestServer server = TestServer.start(dir); BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = server.flightSql(allocator)) {
      FlightInfo info = client.execute("SELECT count(*) FROM t WHERE x >= 1000000");
      long before = server.plansBuilt();
      replace(t, 1_000_000);
      assertThat(countOf(client, info)).isEqualTo(1000);
      assertThat(server.plansBuilt() - before).as("the DoGet planned again").isEqualTo(1);
      FlightInfo again = client.execute("SELECT count(*) FROM t WHERE x >= 1000000");
      before = server.plansBuilt();
      assertThat(countOf(client, again)).isEqualTo(1000);
      assertThat(server.plansBuilt() - before).as("the DoGet reused the plan of its GetFlightInfo").isZero();
    }
  }

  private void replace(Path t, long first) throws Exception {
    Path next = dir.resolve(".t.parquet.tmp"); // hidden: not a table while it is written
    FileChangesTest.writeLongs(next, first, 1000, 250);
    Files.move(next, t, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static long countOf(FlightSqlClient client, FlightInfo info) throws Exception {
    try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
      long n = -1;
      while (s.next()) {
        if (s.getRoot().getRowCount() > 0) n = ((BigIntVector) s.getRoot().getVector(0)).get(0);
      }
      return n;
    }
  }

  private static long count(PreparedStatement p) throws SQLException {
    try (ResultSet rs = p.executeQuery()) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }
}
