package dev.quiver.server;

import com.google.protobuf.ByteString;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cancellation registry: queries running under each ticket handle, and tickets cancelled before (or
 * while) their DoGet runs. Ticket handles carry a fresh execution id before the statement's handle.
 */
final class RunningQueries {
  /**
   * Running queries by ticket handle, each with its own cancellation flag: DoGet registers, CancelFlightInfo
   * flags them. A ticket names one FlightInfo (see {@link #ticketHandle}), but may be redeemed more than once.
   */
  private final java.util.concurrent.ConcurrentHashMap<ByteString, java.util.Set<java.util.concurrent.atomic.AtomicBoolean>>
      running = new java.util.concurrent.ConcurrentHashMap<>();
  /** Tickets cancelled by CancelFlightInfo, with when: a DoGet of one later is cancelled at once. Kept 10 minutes. */
  private final java.util.concurrent.ConcurrentHashMap<ByteString, Long> cancelledTickets =
      new java.util.concurrent.ConcurrentHashMap<>();
  private static final long CANCELLED_TICKETS_NANOS = 600_000_000_000L;
  private static final int MAX_CANCELLED_TICKETS = 100_000;
  /** First byte of a ticket handle: an execution id follows, then the statement's handle (which starts with its version). */
  static final byte TICKET = (byte) 'T';
  private final AtomicLong executionIds = new AtomicLong();

  /**
   * The handle of a new FlightInfo's ticket: a fresh execution id, then the statement's handle. Handles are
   * deterministic (the same SQL of the same user is the same handle), so without the id concurrent runs of
   * one statement could not be told apart: cancelling one would cancel the others, and a CancelFlightInfo
   * arriving after its query ended would cancel the next run of the same statement.
   */
  ByteString ticketHandle(ByteString statementHandle) {
    return ByteString.copyFrom(java.nio.ByteBuffer.allocate(9).put(TICKET).putLong(executionIds.incrementAndGet()).array())
        .concat(statementHandle);
  }

  /** The statement handle a ticket's handle ends with (or {@code handle} itself). */
  static ByteString statementHandle(ByteString handle) {
    return handle.size() > 9 && handle.byteAt(0) == TICKET ? handle.substring(9) : handle;
  }

  /** Registers a run under ticket handle {@code key}: its flag, set already if the ticket was cancelled before. */
  java.util.concurrent.atomic.AtomicBoolean register(ByteString key) {
    java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
    running.compute(key, (k, runs) -> {
      java.util.Set<java.util.concurrent.atomic.AtomicBoolean> r = runs != null ? runs
          : java.util.concurrent.ConcurrentHashMap.newKeySet();
      r.add(cancelled);
      return r;
    });
    // after registering: a CancelFlightInfo either is remembered by now or will find the flag
    if (cancelledTickets.containsKey(key)) cancelled.set(true);
    return cancelled;
  }

  /** The run of {@code key} with flag {@code cancelled} has ended. */
  void unregister(ByteString key, java.util.concurrent.atomic.AtomicBoolean cancelled) {
    running.computeIfPresent(key, (k, runs) -> {
      runs.remove(cancelled);
      return runs.isEmpty() ? null : runs;
    });
  }

  /** Remembers {@code key} as cancelled and flags its runs: they stop at their next batch. */
  void cancel(ByteString key) {
    // remembered first, so that a DoGet starting now sees it either way
    long now = System.nanoTime();
    cancelledTickets.values().removeIf(at -> now - at > CANCELLED_TICKETS_NANOS);
    if (cancelledTickets.size() < MAX_CANCELLED_TICKETS) cancelledTickets.put(key, now);
    running.computeIfPresent(key, (k, runs) -> {
      runs.forEach(flag -> flag.set(true));
      return runs;
    });
  }

  /** Flags every run there is: they stop at their next batch (the server is closing). */
  void cancelAll() {
    running.forEach((key, runs) -> runs.forEach(flag -> flag.set(true)));
  }

  /** Flags every run of the prepared statement {@code statementHandle} (of any of its tickets), now. */
  void cancelStatement(ByteString statementHandle) {
    running.forEach((key, runs) -> {
      if (statementHandle(key).equals(statementHandle)) runs.forEach(flag -> flag.set(true));
    });
  }

  /**
   * Flags the runs registered under {@code key} now (nothing is remembered for later runs); false if none is.
   * The web console cancels by its client-chosen query id, which a later run may reuse.
   */
  boolean cancelRunning(ByteString key) {
    boolean[] found = {false};
    running.computeIfPresent(key, (k, runs) -> {
      runs.forEach(flag -> flag.set(true));
      found[0] = !runs.isEmpty();
      return runs;
    });
    return found[0];
  }

  /** Queries now streaming, or waiting for their user's turn. */
  int count() {
    return running.values().stream().mapToInt(java.util.Set::size).sum();
  }
}
