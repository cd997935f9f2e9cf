package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start-up warm-up: it runs the statement path, leaves nothing behind and never stands in a client's way. */
class WarmUpTest {
  @TempDir
  Path data;

  @Test
  void warmUpRunsTheQueryPathAndLeavesNothingBehind() throws Exception {
    Files.createDirectories(data);
    try (QuiverServer server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0))) {
      long before = server.plansBuilt();
      server.warmUp(20);
      assertThat(server.awaitWarmUp(60_000)).isTrue();
      // prepared (JDBC) and plain executions, each planned once: 20 x 2; its own calls are not a client's
      assertThat(server.plansBuilt() - before).isEqualTo(40);
      assertThat(server.warmUpExecutions()).isEqualTo(20);
      // a real query over the warm-up's own table after every fourth, through its own engine (not counted above)
      assertThat(server.warmUpDataExecutions()).isEqualTo(20 / WarmUp.DATA_EVERY);
      assertThat(server.warmUpDataDir()).isNotNull().doesNotExist(); // deleted at the end
      assertThat(server.runningQueries()).isZero();
      assertThat(server.allocatedBytes()).isZero();
    }
  }

  @Test
  void theWarmUpsQueriesAllRun() throws Exception {
    try (QuiverServer server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0))) {
      int executions = WarmUp.DATA_EVERY * WarmUpData.QUERIES.size();
      server.warmUp(executions);
      assertThat(server.awaitWarmUp(120_000)).isTrue();
      assertThat(server.warmUpExecutions()).isEqualTo(executions);
      assertThat(server.warmUpDataExecutions()).isEqualTo(WarmUpData.QUERIES.size()); // none failed
      assertThat(server.warmUpDataDir()).doesNotExist();
    }
  }

  @Test
  void theFirstClientCallStopsTheWarmUp() throws Exception {
    try (QuiverServer server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0))) {
      server.warmUp(1_000_000);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (server.warmUpExecutions() < 3 && System.nanoTime() < deadline) Thread.sleep(5);
      assertThat(server.warmUpExecutions()).isGreaterThanOrEqualTo(3);
      // a client's query is answered, and the warm-up gives way for good
      try (BufferAllocator a = new RootAllocator(); FlightSqlClient client = new FlightSqlClient(
          FlightClient.builder(a, Location.forGrpcInsecure("127.0.0.1", server.port())).build())) {
        FlightInfo info = client.execute("SELECT 41 + 1 AS answer");
        try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
          assertThat(s.next()).isTrue();
          assertThat(s.getRoot().getVector("answer").getObject(0)).isEqualTo(42);
        }
      }
      assertThat(server.awaitWarmUp(10_000)).isTrue();
      int done = server.warmUpExecutions();
      assertThat(done).isLessThan(1_000_000);
      Thread.sleep(100);
      assertThat(server.warmUpExecutions()).isEqualTo(done);
      // a warm-up asked for after a client came does not start
      server.warmUp(10);
      assertThat(server.warmUpExecutions()).isEqualTo(done);
      assertThat(server.allocatedBytes()).isZero();
    }
  }

  @Test
  void closeStopsAWarmUpUnderWay() throws Exception {
    QuiverServer server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0));
    server.warmUp(1_000_000);
    Thread.sleep(200);
    CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
      try {
        server.close(); // the root allocator's close fails if the warm-up left a buffer behind
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    closed.get(30, TimeUnit.SECONDS);
    assertThat(server.awaitWarmUp(0)).isTrue();
  }

  @Test
  void withOneQueryPerUserOnlyTheEngineIsWarmed() throws Exception {
    try (QuiverServer server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0)
        .withMaxQueriesPerUser(1, 0))) {
      long before = server.plansBuilt();
      server.warmUp(10);
      assertThat(server.awaitWarmUp(60_000)).isTrue();
      assertThat(server.plansBuilt() - before).isEqualTo(10); // engine: one plan per execution, no Flight call
    }
  }
}
