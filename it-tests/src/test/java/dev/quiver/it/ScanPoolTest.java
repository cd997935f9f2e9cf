package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A server owns its scans' reader pool: closing the server stops the pool's threads. */
class ScanPoolTest {
  private static Set<Thread> scanThreads() {
    Set<Thread> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().startsWith("quiver-scan")) out.add(t);
    return out;
  }

  @Test
  void closingTheServerStopsItsScanThreads() throws Exception {
    Set<Thread> before = scanThreads();
    QuiverServer server = QuiverServer.start(SampleData.ensure().toString(), "127.0.0.1", 0,
        QuiverServer.DEFAULT_QUERY_MEMORY);
    Set<Thread> mine;
    try (Connection c = DriverManager.getConnection(server.jdbcUrl())) {
      List<List<Object>> rows = TestServer.rows(c, "SELECT sum(l_quantity) FROM lineitem");
      assertThat(rows).hasSize(1);
      mine = scanThreads();
      mine.removeAll(before);
      assertThat(mine).as("the server's own scan threads read the query").isNotEmpty();
    } finally {
      server.close();
    }
    assertThat(server.scanOptions().executor().isTerminated()).isTrue();
    for (Thread t : mine) t.join(10_000);
    assertThat(mine).as("scan threads left after close").noneMatch(Thread::isAlive);
  }
}
