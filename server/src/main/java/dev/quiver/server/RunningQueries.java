package dev.quiver.server;

import static com.google.protobuf.Any.pack;
import static dev.quiver.server.ResultStreaming.*;

import com.google.protobuf.ByteString;
import dev.quiver.planner.PreparedQuery;
import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QueryExecution;
import dev.quiver.planner.sql.Analyzer;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import dev.quiver.scan.table.ParquetTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

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

  /** Queries now streaming, or waiting for their user's turn. */
  int count() {
    return running.values().stream().mapToInt(java.util.Set::size).sum();
  }
}
