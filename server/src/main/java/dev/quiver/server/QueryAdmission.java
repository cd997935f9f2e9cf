package dev.quiver.server;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.concurrent.ConcurrentHashMap;

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
  /** How often a waiting query checks for its cancellation and deadline (a slot's release wakes it at once). */
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

  /** One user's running count and FIFO queue of waiting queries, guarded by {@code lock}. */
  private static final class Slots {
    final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    final java.util.concurrent.locks.Condition changed = lock.newCondition();
    final java.util.ArrayDeque<Object> queue = new java.util.ArrayDeque<>();
    int running;
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
    Slots s = users.computeIfAbsent(name, k -> new Slots());
    s.lock.lock();
    try {
      if (s.running < limit && s.queue.isEmpty()) { // nobody is ahead: run at once
        s.running++;
        return ticket(s);
      }
      if (queueTimeoutMs == 0 || maxQueued == 0) throw refused(name, "");
      if (s.queue.size() >= maxQueued) {
        throw refused(name, "; " + maxQueued + " more are already waiting (--max-queued-per-user)");
      }
      // first come, first served: a waiting query runs only from the head of the queue
      Object me = new Object();
      s.queue.addLast(me);
      boolean admitted = false;
      try {
        long deadline = System.nanoTime() + queueTimeoutMs * 1_000_000L;
        while (true) {
          check.run();
          if (s.queue.peekFirst() == me && s.running < limit) {
            s.running++;
            admitted = true;
            return ticket(s);
          }
          long left = deadline - System.nanoTime();
          if (left <= 0) throw refused(name, "; waited " + queueTimeoutMs + " ms for one to finish");
          s.changed.awaitNanos(Math.min(left, POLL_MS * 1_000_000L));
        }
      } finally {
        s.queue.remove(me);
        if (!admitted) s.changed.signalAll(); // the next one may be the head now
        else if (s.running < limit && !s.queue.isEmpty()) s.changed.signalAll();
      }
    } finally {
      s.lock.unlock();
    }
  }

  private static Ticket ticket(Slots s) {
    java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
    return () -> {
      if (!released.compareAndSet(false, true)) return;
      s.lock.lock();
      try {
        s.running--;
        s.changed.signalAll();
      } finally {
        s.lock.unlock();
      }
    };
  }

  private QuiverException refused(String user, String detail) {
    return new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "too many concurrent queries for user " + user
        + " (limit " + limit + ")" + detail + " (--max-queries-per-user"
        + (user.equals(ANONYMOUS) ? "; without authentication all clients are one user" : "") + ")");
  }

  /** Queries of {@code user} waiting for their turn now (for tests and operations). */
  int waiting(String user) {
    Slots s = users.get(user == null || user.isEmpty() ? ANONYMOUS : user);
    if (s == null) return 0;
    s.lock.lock();
    try {
      return s.queue.size();
    } finally {
      s.lock.unlock();
    }
  }

  /** Queries of {@code user} running now (for tests and operations). */
  int running(String user) {
    Slots s = users.get(user == null || user.isEmpty() ? ANONYMOUS : user);
    if (s == null) return 0;
    s.lock.lock();
    try {
      return s.running;
    } finally {
      s.lock.unlock();
    }
  }
}
