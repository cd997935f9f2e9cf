package dev.quiver.server;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits at most {@code limit} running queries per user. A query over the limit waits, first come first
 * served, in a bounded queue (at most {@code maxQueued} waiting queries per user) for at most the queue
 * timeout, then is refused with RESOURCE_EXHAUSTED; a query that finds the queue full is refused at once.
 * The queue is long by default ({@link ServerConfig#DEFAULT_MAX_QUEUED_PER_USER}): a waiting query costs a
 * parked thread and no memory, and a BI tool's pool of 64 connections, all anonymous, must wait, not fail.
 * Without authentication every client is one user, {@link #ANONYMOUS}: the limit then caps the server.
 */
final class QueryAdmission {
  /** The user every client is when authentication is off. */
  static final String ANONYMOUS = "anonymous";
  /** How often a waiting query checks for its cancellation and deadline. */
  private static final long POLL_MS = 50;

  private final int limit;
  private final int maxQueued;
  private final long queueTimeoutMs;
  private final ConcurrentHashMap<String, Slots> users = new ConcurrentHashMap<>();

  /**
   * @param limit running queries per user, at least 1
   * @param maxQueued queries of one user that may wait at once (0: none wait)
   * @param queueTimeoutMs how long one may wait (0: never)
   */
  QueryAdmission(int limit, int maxQueued, long queueTimeoutMs) {
    if (limit < 1) throw new IllegalArgumentException("--max-queries-per-user must be at least 1, not " + limit);
    if (maxQueued < 0) throw new IllegalArgumentException("--max-queued-per-user must not be negative");
    if (queueTimeoutMs < 0) throw new IllegalArgumentException("--query-queue-timeout-ms must not be negative");
    this.limit = limit;
    this.maxQueued = maxQueued;
    this.queueTimeoutMs = queueTimeoutMs;
  }

  private static final class Slots {
    final Semaphore running;
    final AtomicInteger waiting = new AtomicInteger();

    Slots(int limit) {
      running = new Semaphore(limit, true);
    }
  }

  /** A held slot; closing it lets the next query of the same user run. Closing twice is harmless. */
  interface Ticket extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Waits for a slot of {@code user} (empty: {@link #ANONYMOUS}). {@code check} runs while waiting and
   * may throw (cancellation, statement timeout) to give up.
   */
  Ticket acquire(String user, Runnable check) {
    try {
      return acquireOrWait(user, check);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuiverException(ErrorCode.CANCELLED, "query cancelled while waiting to run: the server is stopping");
    }
  }

  private Ticket acquireOrWait(String user, Runnable check) throws InterruptedException {
    String name = user == null || user.isEmpty() ? ANONYMOUS : user;
    Slots s = users.computeIfAbsent(name, k -> new Slots(limit));
    if (!s.running.tryAcquire(0, TimeUnit.NANOSECONDS)) { // honours the queue's order, unlike tryAcquire()
      if (queueTimeoutMs == 0 || maxQueued == 0) throw refused(name, "");
      if (s.waiting.incrementAndGet() > maxQueued) {
        s.waiting.decrementAndGet();
        throw refused(name, "; " + maxQueued + " more are already waiting (--max-queued-per-user)");
      }
      try {
        long deadline = System.nanoTime() + queueTimeoutMs * 1_000_000L;
        while (true) {
          check.run();
          long left = deadline - System.nanoTime();
          if (left <= 0) throw refused(name, "; waited " + queueTimeoutMs + " ms for one to finish");
          if (s.running.tryAcquire(Math.min(left, POLL_MS * 1_000_000L), TimeUnit.NANOSECONDS)) break;
        }
      } finally {
        s.waiting.decrementAndGet();
      }
    }
    java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
    return () -> {
      if (released.compareAndSet(false, true)) s.running.release();
    };
  }

  private QuiverException refused(String user, String detail) {
    return new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "too many concurrent queries for user " + user
        + " (limit " + limit + ")" + detail + " (--max-queries-per-user"
        + (user.equals(ANONYMOUS) ? "; without authentication all clients are one user" : "") + ")");
  }

  /** Queries of {@code user} running now (for tests and operations). */
  int running(String user) {
    Slots s = users.get(user == null || user.isEmpty() ? ANONYMOUS : user);
    return s == null ? 0 : limit - s.running.availablePermits();
  }
}
