package dev.quiver.server;

import static com.google.protobuf.Any.pack;
import static dev.quiver.server.ResultStreaming.*;

import com.google.protobuf.ByteString;
import dev.quiver.planner.PreparedQuery;
import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QueryExecution;
import dev.quiver.planner.sql.Statement;
import dev.quiver.planner.sql.StatementClassifier;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
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
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Statements and prepared statements: planned at prepare (or GetFlightInfo) time, with self-describing
 * handles, the plan handed to the DoGet that follows (plan once per execution); parameter binding; the
 * update path (SET only: Quiver is read-only); and the run of a query under admission, cancellation and
 * the statement timeout, each in its own child allocator with a memory limit.
 */
final class StatementExecution {
  private final QueryEngine engine;
  private final BufferAllocator root;
  private final Supplier<BufferAllocator> allocators;
  private final Function<Throwable, FlightRuntimeException> errors;
  private final QueryAdmission admission;
  private final Sessions sessions;
  private final RunningQueries running;
  private final StatementHandles handles = new StatementHandles();
  /** Plans handed from CreatePreparedStatement / GetFlightInfo to the call that follows (plan once per execution). */
  private final dev.quiver.planner.PlanCache plans = new dev.quiver.planner.PlanCache();

  StatementExecution(QueryEngine engine, BufferAllocator root, Supplier<BufferAllocator> allocators,
      Function<Throwable, FlightRuntimeException> errors, QueryAdmission admission, Sessions sessions,
      RunningQueries running) {
    this.engine = engine;
    this.root = root;
    this.allocators = allocators;
    this.errors = errors;
    this.admission = admission;
    this.sessions = sessions;
    this.running = running;
  }

  /** Where endpoints of a split query are fetched: self and the peers, round-robin; empty: no location (this connection). */
  private volatile List<org.apache.arrow.flight.Location> locations = List.of();

  /** Endpoints of split queries go to {@code all} in turn (self first); empty: endpoints carry no location. */
  void locations(List<org.apache.arrow.flight.Location> all) {
    this.locations = List.copyOf(all);
  }

  /** Handles and tickets are signed with a key from {@code secret}, shared by replicas (see {@link StatementHandles#useSecret}). */
  void useSecret(byte[] secret) {
    handles.useSecret(secret);
  }

  /** First byte of a fragment ticket's handle: a signed {@link StatementHandles.Fragment} follows. */
  static final byte FRAGMENT = (byte) 'F';

  private static boolean isFragment(ByteString handle) {
    return handle.size() > 1 && handle.byteAt(0) == FRAGMENT;
  }

  private StatementHandles.Fragment fragment(ByteString handle, CallContext context) {
    return handles.readFragment(handle.substring(1).toByteArray(), user(context));
  }

  /**
   * The FlightInfo of a planned statement: one endpoint with {@code ticket}, or, when the session allows more than one
   * endpoint and the plan splits (filters and projections over one scan, see {@link dev.quiver.planner.Fragments}),
   * one self-describing fragment ticket per endpoint, located round-robin over self and the peers.
   */
  private FlightInfo info(Planned planned, StatementHandles.Statement st, FlightDescriptor descriptor, byte[] ticket,
      CallContext context) {
    int max = sessions.maxEndpoints(context);
    List<dev.quiver.planner.Fragments.Fragment> split = planned.query() == null || st.rows().size() > 1 ? null
        : dev.quiver.planner.Fragments.split(planned.query(), max);
    if (split == null) return ResultStreaming.info(planned.schema(), descriptor, ticket);
    long execution = handles.newId();
    List<org.apache.arrow.flight.Location> at = locations;
    List<FlightEndpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < split.size(); i++) {
      byte[] f = handles.encodeFragment(new StatementHandles.Fragment(execution, user(context), st.sql(),
          st.rows().isEmpty() ? null : st.rows().get(0), planned.settings(), split.get(i).parts()));
      ByteString h = ByteString.copyFrom(new byte[] {FRAGMENT}).concat(ByteString.copyFrom(f));
      byte[] t = pack(TicketStatementQuery.newBuilder().setStatementHandle(h).build()).toByteArray();
      endpoints.add(at.isEmpty() ? new FlightEndpoint(new Ticket(t))
          : new FlightEndpoint(new Ticket(t), at.get(i % at.size())));
    }
    return new FlightInfo(planned.schema(), descriptor, endpoints, -1, -1);
  }

  /** A statement's result schema and, for a query (not SET/SHOW), its plan and the settings it was planned with. */
  private record Planned(Schema schema, PreparedQuery query, dev.quiver.planner.QuerySettings settings) {}

  private FlightRuntimeException error(Throwable t) {
    return errors.apply(t);
  }

  private BufferAllocator newQueryAllocator() {
    return allocators.get();
  }

  private static String user(CallContext context) {
    String u = context.peerIdentity();
    return u == null ? "" : u;
  }

  private StatementHandles.Statement statement(ByteString handle, CallContext context) {
    // a ticket already issued stays good after its prepared statement is closed (the JDBC driver may close
    // a statement before it has read all of a result); the statement's handle itself does not
    if (handle.size() > 9 && handle.byteAt(0) == RunningQueries.TICKET) return handles.read(handle.substring(9).toByteArray(), user(context));
    return handles.decode(handle.toByteArray(), user(context));
  }

  private ByteString handle(String sql, List<List<Object>> rows, CallContext context) {
    return handle(0, sql, rows, context);
  }

  /** A handle of prepared statement {@code id} (0: of the statement path). */
  private ByteString handle(long id, String sql, List<List<Object>> rows, CallContext context) {
    return ByteString.copyFrom(handles.encode(new StatementHandles.Statement(id, user(context), sql, rows)));
  }

  public void createPreparedStatement(ActionCreatePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    try {
      String sql = request.getQuery();
      engine.limits().checkLength(sql); // before anything reads it
      ByteString handle = handle(handles.newId(), sql, List.of(), context);
      ActionCreatePreparedStatementResult.Builder result = ActionCreatePreparedStatementResult.newBuilder()
          .setPreparedStatementHandle(handle);
      Statement kind = StatementClassifier.classify(sql); // once: SET and SHOW are answered here, not planned
      if (kind instanceof Statement.Show show) {
        SessionSettings.show(show.name()); // an unknown setting fails now
        result.setDatasetSchema(ByteString.copyFrom(Sessions.SHOW_SCHEMA.serializeAsMessage()));
      } else if (kind instanceof Statement.Set set) {
        SessionSettings.assignment(set.name(), set.value()); // a bad SET fails now
        Sessions.startSession(context); // its cookie comes back with the execution, if the client keeps cookies
        result.setDatasetSchema(ByteString.copyFrom(Sessions.NO_COLUMNS.serializeAsMessage()));
      } else {
        try (BufferAllocator allocator = newQueryAllocator()) {
          dev.quiver.planner.QuerySettings settings = sessions.settings(context);
          PreparedQuery q = engine.prepare(sql, allocator, settings, null, planning(context));
          plans.put(handle, settings, q);
          result.setDatasetSchema(ByteString.copyFrom(resultSchema(q).serializeAsMessage()));
          if (!q.parameterTypes().isEmpty()) {
            result.setParameterSchema(ByteString.copyFrom(parameterSchema(q.parameterTypes()).serializeAsMessage()));
          }
        }
      }
      listener.onNext(new Result(pack(result.build()).toByteArray()));
      listener.onCompleted();
    } catch (Throwable t) {
      listener.onError(error(t));
    }
  }

  public void closePreparedStatement(ActionClosePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    // handles are self-describing: nothing to free, only to refuse from now on; closing twice is fine
    if (handles.close(request.getPreparedStatementHandle().toByteArray(), user(context))) {
      // and its runs stop: the JDBC driver, when its query timeout fires, stops reading but leaves the stream open
      // until the statement is closed, so the server would work on for nobody
      running.cancelStatement(request.getPreparedStatementHandle());
    }
    listener.onCompleted();
  }

  public FlightInfo getFlightInfoPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      TicketStatementQuery ticket = TicketStatementQuery.newBuilder()
          .setStatementHandle(running.ticketHandle(command.getPreparedStatementHandle())).build();
      StatementHandles.Statement st = statement(command.getPreparedStatementHandle(), context);
      return info(plan(st, command.getPreparedStatementHandle(), context), st, descriptor, pack(ticket).toByteArray(),
          context);
    } catch (Throwable t) {
      throw error(t);
    }
  }

  public SchemaResult getSchemaPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      return new SchemaResult(plan(statement(command.getPreparedStatementHandle(), context),
          command.getPreparedStatementHandle(), context).schema());
    } catch (Throwable t) {
      throw error(t);
    }
  }

  public void getStreamPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      ServerStreamListener listener) {
    try {
      run(statement(command.getPreparedStatementHandle(), context), command.getPreparedStatementHandle(), context, listener);
    } catch (Throwable t) {
      listener.error(error(t));
    }
  }

  /**
   * Binding parameters: the rows of the DoPut stream (each a parameter set; a query runs once per set)
   * go into a new self-describing handle, returned as a raw DoPutPreparedStatementResult.
   */
  public Runnable acceptPutPreparedStatementQuery(CommandPreparedStatementQuery command, CallContext context,
      org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return () -> {
      try {
        StatementHandles.Statement st = statement(command.getPreparedStatementHandle(), context);
        List<ArrowType> types;
        dev.quiver.planner.QuerySettings settings = sessions.settings(context);
        PreparedQuery planned = st.rows().isEmpty()
            ? plans.peek(command.getPreparedStatementHandle(), settings, engine.snapshot()) : null;
        if (planned == null) {
          try (BufferAllocator allocator = newQueryAllocator()) {
            planned = engine.prepare(st.sql(), allocator, settings, null, planning(context));
          }
        }
        types = planned.parameterTypes();
        List<List<Object>> rows = new ArrayList<>();
        while (flightStream.next()) {
          VectorSchemaRoot root = flightStream.getRoot();
          if (root.getFieldVectors().size() != types.size()) {
            throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement has " + types.size()
                + " parameters but " + root.getFieldVectors().size() + " were bound");
          }
          for (int r = 0; r < root.getRowCount(); r++) {
            List<Object> row = new ArrayList<>();
            for (int c = 0; c < types.size(); c++) {
              FieldVector v = root.getVector(c);
              row.add(dev.quiver.planner.Sql.parameterValue(v, r, types.get(c)));
            }
            rows.add(row);
          }
        }
        byte[] result = org.apache.arrow.flight.sql.impl.FlightSql.DoPutPreparedStatementResult.newBuilder()
            .setPreparedStatementHandle(handle(st.id(), st.sql(), rows, context)).build().toByteArray();
        try (org.apache.arrow.memory.ArrowBuf buf = root.buffer(result.length)) {
          buf.writeBytes(result);
          ackStream.onNext(org.apache.arrow.flight.PutResult.metadata(buf));
        }
        ackStream.onCompleted();
      } catch (Throwable t) {
        ackStream.onError(error(t));
      }
    };
  }

  public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      engine.limits().checkLength(command.getQuery());
      StatementHandles.Statement st = new StatementHandles.Statement(user(context), command.getQuery(), List.of());
      ByteString handle = handle(command.getQuery(), List.of(), context);
      TicketStatementQuery ticket = TicketStatementQuery.newBuilder().setStatementHandle(running.ticketHandle(handle)).build();
      return info(plan(st, handle, context), st, descriptor, pack(ticket).toByteArray(), context);
    } catch (Throwable t) {
      throw error(t);
    }
  }

  public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      return new SchemaResult(plan(new StatementHandles.Statement(user(context), command.getQuery(), List.of()), null, context)
          .schema());
    } catch (Throwable t) {
      throw error(t);
    }
  }

  public void getStreamStatement(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    try {
      ByteString handle = ticket.getStatementHandle();
      if (isFragment(handle)) {
        StatementHandles.Fragment f = fragment(handle, context);
        run(new StatementHandles.Statement(f.user(), f.sql(), f.row() == null ? List.of() : List.of(f.row())), handle,
            context, listener, f);
        return;
      }
      run(statement(handle, context), handle, context, listener);
    } catch (Throwable t) {
      listener.error(error(t));
    }
  }

  /**
   * For planning outside DoGet (GetFlightInfo, prepare): planning many joins can take seconds, so it stops
   * when the client cancels the call or goes away, or at the session's statement timeout.
   */
  private dev.quiver.planner.Cancellation planning(CallContext context) {
    long timeoutMs = sessions.settings(context).statementTimeoutMs();
    long deadline = timeoutMs == 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
    return () -> {
      if (context.isCancelled()) throw new QuiverException(ErrorCode.CANCELLED, "query cancelled by the client");
      if (System.nanoTime() > deadline) {
        throw new QuiverException(ErrorCode.TIMED_OUT, "planning exceeded the statement timeout of " + timeoutMs + " ms ("
            + SessionSettings.TIMEOUT + ")");
      }
    };
  }

  /**
   * The schema a statement's results will have (none for a SET), planned with its first parameter row; the
   * plan is kept under {@code handle} (unless null) for the DoGet that follows.
   */
  private Planned plan(StatementHandles.Statement st, ByteString handle, CallContext context) {
    engine.limits().checkLength(st.sql());
    Statement kind = StatementClassifier.classify(st.sql()); // once: SET and SHOW are answered here, not planned
    if (kind instanceof Statement.Set set) {
      SessionSettings.assignment(set.name(), set.value()); // a bad SET fails now
      Sessions.startSession(context); // its cookie comes back with the DoGet, if the client keeps cookies
      return new Planned(Sessions.NO_COLUMNS, null, null);
    }
    if (kind instanceof Statement.Show show) {
      SessionSettings.show(show.name()); // an unknown setting fails now
      return new Planned(Sessions.SHOW_SCHEMA, null, null);
    }
    try (BufferAllocator allocator = newQueryAllocator()) {
      List<Object> first = st.rows().isEmpty() ? null : st.rows().get(0);
      dev.quiver.planner.QuerySettings settings = sessions.settings(context);
      dev.quiver.scan.table.Catalog snapshot = engine.snapshot();
      PreparedQuery q = handle == null || st.rows().size() > 1 ? null : plans.take(handle, settings, snapshot);
      if (q == null) q = engine.prepare(snapshot, st.sql(), allocator, settings, first, planning(context));
      if (handle != null && st.rows().size() <= 1) plans.put(handle, settings, q);
      return new Planned(resultSchema(q), q, settings);
    }
  }

  public Runnable acceptPutStatement(org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate command,
      CallContext context, org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return () -> update(command.getQuery(), false, context, flightStream, ackStream);
  }

  public Runnable acceptPutPreparedStatementUpdate(
      org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate command, CallContext context,
      org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return () -> {
      try {
        update(statement(command.getPreparedStatementHandle(), context).sql(), true, context, flightStream, ackStream);
      } catch (Throwable t) {
        ackStream.onError(error(t));
      }
    };
  }

  /** The update path: only SET is an update in read-only Quiver; it answers an unknown record count (-1). */
  private void update(String sql, boolean prepared, CallContext context, org.apache.arrow.flight.FlightStream in,
      StreamListener<org.apache.arrow.flight.PutResult> ack) {
    try {
      // answer at once: FlightSqlClient.executeUpdate reads the result before it ends its stream
      engine.limits().checkLength(sql);
      if (!sessions.applySet(sql, context, prepared)) {
        throw new QuiverException(ErrorCode.UNSUPPORTED,
            "Quiver is read-only: updates are not supported ('" + dev.quiver.planner.Sql.snippet(sql.strip()) + "')");
      }
      byte[] result = org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult.newBuilder().setRecordCount(-1).build()
          .toByteArray();
      try (org.apache.arrow.memory.ArrowBuf buf = root.buffer(result.length)) {
        buf.writeBytes(result);
        ack.onNext(org.apache.arrow.flight.PutResult.metadata(buf));
      }
      ack.onCompleted();
    } catch (Throwable t) {
      ack.onError(error(t));
    }
  }

  /** Runs a statement once per bound parameter row (once if it has none), streaming every batch. */
  private void run(StatementHandles.Statement st, ByteString key, CallContext context, ServerStreamListener listener) {
    run(st, key, context, listener, null);
  }

  /**
   * As above; a {@code fragment} ticket's statement runs with the ticket's settings over the ticket's row groups
   * only, after checking that its files are still the versions it was planned over.
   */
  private void run(StatementHandles.Statement st, ByteString key, CallContext context, ServerStreamListener listener,
      StatementHandles.Fragment fragment) {
    BufferAllocator allocator = null;
    QueryAdmission.Ticket slot = null;
    java.util.concurrent.atomic.AtomicBoolean cancelled = running.register(key);
    listener.setOnCancelHandler(() -> cancelled.set(true));
    try {
      allocator = newQueryAllocator();
      java.util.List<String> show = fragment != null ? null : SessionSettings.parseShow(st.sql());
      if (show != null) {
        sessions.show(show, context, allocator, listener);
        return;
      }
      if (fragment == null && sessions.applySet(st.sql(), context, true)) {
        try (VectorSchemaRoot empty = VectorSchemaRoot.create(Sessions.NO_COLUMNS, allocator)) {
          listener.start(empty);
        }
        listener.completed();
        return;
      }
      dev.quiver.planner.QuerySettings settings = fragment != null ? fragment.settings() : sessions.settings(context);
      dev.quiver.planner.Cancellation cancellation =
          cancellation(() -> cancelled.get() || listener.isCancelled(), settings.statementTimeoutMs());
      // at most --max-queries-per-user run at once; the wait counts against the statement timeout
      slot = admission.acquire(user(context), cancellation::check);
      org.apache.arrow.flight.BackpressureStrategy.CallbackBackpressureStrategy backpressure =
          new org.apache.arrow.flight.BackpressureStrategy.CallbackBackpressureStrategy();
      backpressure.register(listener);
      List<List<Object>> rows = st.rows().isEmpty() ? java.util.Collections.singletonList(null) : st.rows();
      VectorSchemaRoot out = null;
      // the files as they are now, one version for all parameter rows (never those of an earlier prepare)
      dev.quiver.scan.table.Catalog snapshot = engine.snapshot();
      // the plan of the GetFlightInfo before, if it reads the same files as this snapshot has
      PreparedQuery planned = rows.size() == 1 && fragment == null
          ? plans.take(RunningQueries.statementHandle(key), settings, snapshot) : null;
      try {
        for (List<Object> row : rows) {
          PreparedQuery query = planned != null ? planned
              : engine.prepare(snapshot, st.sql(), allocator, settings, row, cancellation);
          if (fragment != null) query = dev.quiver.planner.Fragments.restrict(query, fragment.parts());
          if (row == null && !query.parameterTypes().isEmpty()) {
            throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement has " + query.parameterTypes().size()
                + " parameters: bind their values before executing it");
          }
          if (out == null) {
            out = VectorSchemaRoot.create(resultSchema(query), allocator);
            listener.start(out);
          }
          try (QueryExecution execution = engine.execute(query, allocator, cancellation)) {
            VectorSchemaRoot batch;
            while ((batch = execution.next()) != null) {
              try (VectorSchemaRoot b = batch) {
                send(b, out, listener, backpressure, cancellation);
              }
            }
          }
        }
      } finally {
        if (out != null) out.close();
      }
      listener.completed();
    } catch (Throwable t) {
      listener.error(error(t));
    } finally {
      running.unregister(key, cancelled);
      try {
        if (allocator != null) closeWhenReleased(allocator);
      } finally {
        if (slot != null) slot.close();
      }
    }
  }

  /**
   * A query's cancellation from now: CANCELLED once {@code cancelled} says so, TIMED_OUT after {@code timeoutMs}
   * (0: never). Flight's DoGet and the web console's queries both stop through this one.
   */
  static dev.quiver.planner.Cancellation cancellation(java.util.function.BooleanSupplier cancelled, long timeoutMs) {
    long deadline = timeoutMs == 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
    return () -> {
      if (cancelled.getAsBoolean()) throw new QuiverException(ErrorCode.CANCELLED, "query cancelled by the client");
      if (System.nanoTime() > deadline) {
        throw new QuiverException(ErrorCode.TIMED_OUT, "query exceeded the statement timeout of " + timeoutMs + " ms ("
            + SessionSettings.TIMEOUT + ")");
      }
    };
  }

  /** CancelFlightInfo: flags the queries behind the info's tickets; they stop at their next batch. */
  public void cancelFlightInfo(org.apache.arrow.flight.CancelFlightInfoRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.CancelStatus> listener) {
    try {
      for (FlightEndpoint e : request.getInfo().getEndpoints()) {
        com.google.protobuf.Any any = com.google.protobuf.Any.parseFrom(e.getTicket().getBytes());
        ByteString key = any.is(TicketStatementQuery.class) ? any.unpack(TicketStatementQuery.class).getStatementHandle()
            : any.unpack(CommandPreparedStatementQuery.class).getPreparedStatementHandle();
        if (isFragment(key)) {
          fragment(key, context); // only the caller's own statements
        } else {
          statement(key, context); // only the caller's own statements
        }
        running.cancel(key);
      }
      listener.onNext(org.apache.arrow.flight.CancelStatus.CANCELLED);
      listener.onCompleted();
    } catch (Throwable t) {
      listener.onError(error(t));
    }
  }
}
