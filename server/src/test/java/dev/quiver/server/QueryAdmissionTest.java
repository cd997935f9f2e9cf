package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QueryAdmissionTest {
  private static final Runnable NEVER = () -> { };

  @Test
  void aUserRunsUpToTheLimitAndTheNextWaitsForOneToEnd() throws Exception {
    QueryAdmission a = new QueryAdmission(2, 8, 5_000);
    QueryAdmission.Ticket t1 = a.acquire("alice", NEVER);
    QueryAdmission.Ticket t2 = a.acquire("alice", NEVER);
    assertThat(a.running("alice")).isEqualTo(2);
    // another user is not affected
    try (QueryAdmission.Ticket bob = a.acquire("bob", NEVER)) {
      assertThat(a.running("bob")).isEqualTo(1);
    }
    CompletableFuture<QueryAdmission.Ticket> third = CompletableFuture.supplyAsync(() -> a.acquire("alice", NEVER));
    Thread.sleep(200);
    assertThat(third).isNotDone();
    t1.close();
    t1.close(); // twice is harmless
    third.get(5, TimeUnit.SECONDS).close();
    t2.close();
    assertThat(a.running("alice")).isZero();
  }

  @Test
  void waitingQueriesRunInTheOrderTheyArrived() throws Exception {
    QueryAdmission a = new QueryAdmission(1, 64, 30_000);
    QueryAdmission.Ticket held = a.acquire("u", NEVER);
    java.util.List<Integer> order = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool();
    java.util.List<CompletableFuture<Void>> waiting = new java.util.ArrayList<>();
    int n = 16;
    for (int i = 0; i < n; i++) {
      int arrival = i;
      waiting.add(CompletableFuture.runAsync(() -> {
        try (QueryAdmission.Ticket t = a.acquire("u", NEVER)) {
          order.add(arrival);
        }
      }, pool));
      // the next one arrives only once this one is in the queue: a known order, whatever the machine's load
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (a.waiting("u") < i + 1) {
        if (System.nanoTime() > deadline) throw new AssertionError("waiter " + i + " never queued");
        Thread.sleep(1);
      }
    }
    held.close();
    for (var w : waiting) w.get(10, TimeUnit.SECONDS);
    pool.shutdown();
    java.util.List<Integer> expected = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) expected.add(i);
    assertThat(order).as("first come, first served").isEqualTo(expected);
  }

  @Test
  void waitingEndsWithResourceExhaustedAfterTheQueueTimeout() {
    QueryAdmission a = new QueryAdmission(1, 8, 100);
    QueryAdmission.Ticket held = a.acquire("", NEVER);
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> a.acquire(null, NEVER)).isInstanceOf(QuiverException.class)
        .satisfies(e -> assertThat(((QuiverException) e).code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED))
        .hasMessageContaining("too many concurrent queries for user anonymous (limit 1)")
        .hasMessageContaining("without authentication all clients are one user");
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(100_000_000L);
    held.close();
  }

  @Test
  void aZeroTimeoutRefusesAtOnceAndAFullQueueToo() throws Exception {
    QueryAdmission refuse = new QueryAdmission(1, 8, 0);
    try (QueryAdmission.Ticket held = refuse.acquire("u", NEVER)) {
      assertThatThrownBy(() -> refuse.acquire("u", NEVER)).hasMessageContaining("(limit 1)");
    }
    QueryAdmission a = new QueryAdmission(1, 4, 10_000);
    QueryAdmission.Ticket held = a.acquire("u", NEVER);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool();
    java.util.List<CompletableFuture<Void>> waiting = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      // each runs when its turn comes, then lets the next one run
      waiting.add(CompletableFuture.runAsync(() -> a.acquire("u", NEVER).close(), pool));
    }
    Thread.sleep(300);
    assertThatThrownBy(() -> a.acquire("u", NEVER)).hasMessageContaining("more are already waiting");
    held.close();
    for (var w : waiting) w.get(10, TimeUnit.SECONDS);
    pool.shutdown();
    assertThat(a.running("u")).isZero();
  }

  @Test
  void aWaitingQueryStopsWhenItsCheckThrows() {
    QueryAdmission a = new QueryAdmission(1, 4, 10_000);
    try (QueryAdmission.Ticket held = a.acquire("u", NEVER)) {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> a.acquire("u", () -> {
        if (System.nanoTime() - t0 > 100_000_000L) throw new QuiverException(ErrorCode.CANCELLED, "cancelled");
      })).hasMessage("cancelled");
    }
    assertThat(a.running("u")).isZero();
  }
}
