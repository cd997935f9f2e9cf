package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import dev.quiver.server.ServerConfig;
import dev.quiver.server.Users;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * The server-wide memory limit ({@code --server-memory}) and the limit on running queries per user
 * ({@code --max-queries-per-user}): a query refused by either fails with RESOURCE_EXHAUSTED naming the
 * limit, the other queries keep running and answer in full, and nothing leaks (closing the server checks).
 * A query is kept running deterministically by not reading its stream: backpressure holds it, and its
 * memory, in the server.
 */
class ResourceLimitsTest {
  /**
   * A hash aggregation over 600k distinct comments: about 100 MiB of hash table and output, held until the
   * stream ends; its result is larger than what the transport buffers, so an unread stream keeps it running.
   */
  /**
   * ~600,000 groups held while they stream out; single-phase (an integer sum is not split into states), so it cannot
   * spill its groups as a final aggregation would.
   */
  /** A single-phase aggregation (an integer sum under two keys is not split) holding ~600k groups. */
  static final String HEAVY = "SELECT l_comment, l_linestatus, count(*), sum(l_linenumber) FROM lineitem "
      + "GROUP BY l_comment, l_linestatus";
  /** A long result: the server streams it only as fast as the client reads. */
  static final String LONG = "SELECT * FROM lineitem";
  static final long LINEITEM_ROWS = 600_572;

  private static FlightSqlClient client(BufferAllocator a, int port) {
    return new FlightSqlClient(FlightClient.builder(a, Location.forGrpcInsecure("127.0.0.1", port)).build());
  }

  /** Starts {@code sql} and reads its first batch: the query is now running in the server, held by backpressure. */
  private static FlightStream open(FlightSqlClient c, String sql, CallOption... options) {
    FlightStream s = c.getStream(c.execute(sql, options).getEndpoints().get(0).getTicket(), options);
    assertThat(s.next()).isTrue();
    return s;
  }

  private static long drain(FlightStream s) throws Exception {
    long rows = s.getRoot().getRowCount();
    while (s.next()) rows += s.getRoot().getRowCount();
    s.close();
    return rows;
  }

  private static void cancel(FlightStream s) {
    s.cancel("enough", null);
    try {
      s.close();
    } catch (Exception expected) {
      // a cancelled stream reports its cancellation on close
    }
  }

  private static void untilIdle(QuiverServer server) throws InterruptedException {
    long t0 = System.nanoTime();
    while (server.runningQueries() > 0 || server.allocatedBytes() > 0) {
      Thread.sleep(10);
      if (System.nanoTime() - t0 > 10_000_000_000L) throw new AssertionError("server still busy after 10 s");
    }
  }

  @Test
  void aQueryThatFindsTheServerFullFailsNamingTheServerLimitAndTheOtherKeepsRunning() throws Exception {
    long groups;
    long heavyBytes;
    // how much the heavy query holds while it streams, measured on a server without a tight limit
    try (QuiverServer server = QuiverServer.start(SampleData.ensure().toString(), "127.0.0.1", 0, 256L << 20);
        BufferAllocator a = new RootAllocator(); FlightSqlClient c = client(a, server.port())) {
      FlightStream s = open(c, HEAVY);
      Thread.sleep(500); // until backpressure holds it
      heavyBytes = server.allocatedBytes();
      groups = drain(s);
      untilIdle(server);
    }
    assertThat(heavyBytes).isGreaterThan(8L << 20);
    // room for one heavy query, not for two; each query alone may use up to all of it
    long serverLimit = heavyBytes * 3 / 2;
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0)
        .withQueryMemory(serverLimit).withServerMemory(serverLimit);
    try (QuiverServer server = QuiverServer.start(config);
        BufferAllocator a = new RootAllocator(); FlightSqlClient first = client(a, server.port());
        FlightSqlClient second = client(a, server.port())) {
      assertThat(server.serverMemoryLimit()).isEqualTo(serverLimit);
      FlightStream running = open(first, HEAVY);
      Thread.sleep(500);
      assertThatThrownBy(() -> drain(open(second, HEAVY)))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED))
          .hasMessageContaining("the server's memory limit of " + (serverLimit >> 20) + " MiB (--server-memory) is reached");
      // the first query was not disturbed: it answers in full
      assertThat(drain(running)).isEqualTo(groups);
      // and the server keeps answering the second client
      assertThat(drain(open(second, "SELECT count(*) FROM orders GROUP BY o_orderpriority"))).isEqualTo(5);
      untilIdle(server);
      System.out.println("heavy query holds " + (heavyBytes >> 20) + " MiB; server limit " + (serverLimit >> 20) + " MiB");
    } // closing the server fails if a buffer leaked
  }

  @Test
  void queriesOverTheUserLimitWaitThenAreRefusedWhileOtherUsersRun() throws Exception {
    int limit = 2;
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0)
        .withUsers(Users.none().load(usersFile())).withMaxQueriesPerUser(limit, 1_500);
    try (QuiverServer server = QuiverServer.start(config);
        BufferAllocator a = new RootAllocator(); FlightClient raw = FlightClient.builder(a,
            Location.forGrpcInsecure("127.0.0.1", server.port())).build();
        FlightSqlClient c = new FlightSqlClient(raw)) {
      CallOption alice = raw.authenticateBasicToken("alice", "s3cret").orElseThrow();
      CallOption bob = raw.authenticateBasicToken("bob", "hunter2").orElseThrow();
      FlightStream[] held = new FlightStream[limit];
      for (int i = 0; i < limit; i++) held[i] = open(c, LONG, alice);

      // the N+1st waits in the queue, then is refused clearly
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> drain(open(c, "SELECT count(*) FROM region", alice)))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED))
          .hasMessageContaining("too many concurrent queries for user alice (limit 2)");
      assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(1_400);
      // another user is not affected
      assertThat(drain(open(c, "SELECT count(*) FROM region", bob))).isEqualTo(1);

      // a waiting query runs as soon as one of the user's queries ends
      CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> {
        try {
          FlightStream s = c.getStream(c.execute("SELECT r_name FROM region", alice).getEndpoints().get(0).getTicket(), alice);
          long rows = 0;
          while (s.next()) rows += s.getRoot().getRowCount();
          s.close();
          return rows;
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      Thread.sleep(300);
      assertThat(waiting).isNotDone();
      cancel(held[0]);
      assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo(5);

      // the query held all along still answers in full
      assertThat(drain(held[1])).isEqualTo(LINEITEM_ROWS);
      untilIdle(server);
    }
  }

  @Test
  void withoutAuthenticationAllClientsAreOneUser() throws Exception {
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0).withMaxQueriesPerUser(1, 0);
    try (QuiverServer server = QuiverServer.start(config);
        BufferAllocator a = new RootAllocator(); FlightSqlClient first = client(a, server.port());
        FlightSqlClient second = client(a, server.port())) {
      FlightStream held = open(first, LONG);
      // a queue timeout of 0 refuses at once
      assertThatThrownBy(() -> drain(open(second, "SELECT 1")))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED))
          .hasMessageContaining("too many concurrent queries for user anonymous (limit 1)");
      cancel(held);
      untilIdle(server);
      assertThat(drain(open(second, "SELECT 1"))).isEqualTo(1);
      untilIdle(server);
    }
  }

  private static java.nio.file.Path usersFile() throws java.io.IOException {
    java.nio.file.Path f = java.nio.file.Files.createTempFile("quiver-users", ".txt");
    f.toFile().deleteOnExit();
    java.nio.file.Files.writeString(f, "alice:" + Users.hash("s3cret", 1_000) + "\nbob:" + Users.hash("hunter2", 1_000) + "\n");
    return f;
  }
}
