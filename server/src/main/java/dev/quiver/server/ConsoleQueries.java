package dev.quiver.server;

import com.google.protobuf.ByteString;
import dev.quiver.planner.Cancellation;
import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QuerySettings;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.BufferAllocator;

/**
 * How the web console ({@link dev.quiver.server.console.ConsoleServer}) reaches the server's query path: the
 * same users, the same {@link QueryAdmission} (per-user running limit and queue), the same cancellation
 * registry ({@link RunningQueries}), statement timeout, {@link dev.quiver.planner.sql.SqlLimits}, per-query
 * child allocator of the root allocator and {@link ErrorMapping} as a Flight query. So a console query is
 * exactly as limited as a JDBC query of the same user, and counts against the same slots.
 */
public final class ConsoleQueries {
  private final QuiverProducer producer;
  private final Users users;
  /** Set when the server closes: console queries still running stop. */
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Told of every console query (the warm-up gives way to the first). */
  private final Runnable arrived;

  ConsoleQueries(QuiverProducer producer, Users users, Runnable arrived) {
    this.producer = producer;
    this.users = users;
    this.arrived = arrived;
  }

  /** What a console request runs once admitted: with the query's own allocator and cancellation. */
  @FunctionalInterface
  public interface Work<T> {
    T run(BufferAllocator allocator, Cancellation cancellation);
  }

  public QueryEngine engine() {
    return producer.engine();
  }

  /** The settings a query gets without a session: the server's ({@code --statement-timeout-ms}, {@code --no-simplify}). */
  public QuerySettings defaults() {
    return producer.engine().defaults();
  }

  /** Whether users are configured (then every console call but login and info needs a token). */
  public boolean authRequired() {
    return !users.isEmpty();
  }

  /**
   * The user's name if {@code password} is right, by the same validation as Flight's basic authentication;
   * else UNAUTHENTICATED (a {@link FlightRuntimeException}, as Flight answers).
   */
  public String login(String user, String password) {
    return users.validate(user, password).getPeerIdentity();
  }

  /**
   * Runs {@code work} for {@code user} ("" without authentication: the anonymous user Flight clients are)
   * as a Flight DoGet runs a statement: SQL length checked, the user's admission slot held (the wait counts
   * against the statement timeout), registered under {@code queryId} for {@link #cancel}, in a fresh child
   * allocator with the per-query memory limit, closed afterwards.
   */
  public <T> T run(String user, String queryId, String sql, QuerySettings settings, Work<T> work) {
    arrived.run();
    producer.engine().limits().checkLength(sql); // before anything reads it
    RunningQueries running = producer.running();
    ByteString key = key(user, queryId);
    AtomicBoolean cancelled = running.register(key);
    BufferAllocator allocator = null;
    QueryAdmission.Ticket slot = null;
    try {
      Cancellation cancellation = StatementExecution.cancellation(
          () -> cancelled.get() || closed.get(), settings.statementTimeoutMs());
      slot = producer.admission().acquire(user, cancellation::check);
      allocator = producer.newQueryAllocator();
      return work.run(allocator, cancellation);
    } finally {
      running.unregister(key, cancelled);
      try {
        if (allocator != null) ResultStreaming.closeWhenReleased(allocator);
      } finally {
        if (slot != null) slot.close();
      }
    }
  }

  /** The server is closing: every running console query is cancelled. */
  void close() {
    closed.set(true);
  }

  /** Cancels {@code user}'s running console query {@code queryId}; false if none runs now. */
  public boolean cancel(String user, String queryId) {
    return producer.running().cancelRunning(key(user, queryId));
  }

  /** The Flight status {@code t} gets (the one {@link ErrorMapping}, data location left out of messages). */
  public FlightRuntimeException error(Throwable t) {
    return producer.error(t);
  }

  /** The longest SQL statement accepted, in UTF-8 bytes ({@code --max-statement-bytes}). */
  public long maxStatementBytes() {
    return producer.engine().limits().maxStatementBytes();
  }

  /** A console query's key in {@link RunningQueries}: its own prefix, the user, then the client's id. */
  private static ByteString key(String user, String queryId) {
    return ByteString.copyFrom("C\u0000" + (user == null ? "" : user) + "\u0000" + queryId, StandardCharsets.UTF_8);
  }
}
