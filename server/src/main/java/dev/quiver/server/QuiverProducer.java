package dev.quiver.server;

import static com.google.protobuf.Any.pack;

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
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
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
 * Quiver's Flight SQL producer: statements and prepared statements (planned at prepare time, with
 * self-describing handles), and the metadata commands JDBC, ADBC and sqlline call. Every endpoint has
 * one ticket and no location. Each query runs in its own child allocator with a memory limit.
 */
public final class QuiverProducer extends NoOpFlightSqlProducer {
  /** Results are sent in batches of at most this many bytes of vector buffers. */
  static final long MAX_BATCH_BYTES = 4L << 20;

  /** The Flight session middleware: per-client settings live in its session (cookie). */
  static final org.apache.arrow.flight.FlightServerMiddleware.Key<org.apache.arrow.flight.ServerSessionMiddleware> SESSION =
      org.apache.arrow.flight.FlightServerMiddleware.Key.of("quiver-session");
  private static final Schema NO_COLUMNS = new Schema(List.of());
  private static final Schema SHOW_SCHEMA = new Schema(List.of(
      new Field("name", new FieldType(false, ArrowType.Utf8.INSTANCE, null), null),
      new Field("setting", new FieldType(false, ArrowType.Utf8.INSTANCE, null), null)));
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
  private static final byte TICKET = (byte) 'T';
  private final AtomicLong executionIds = new AtomicLong();

  private final QueryEngine engine;
  private final BufferAllocator root;
  private final long queryMemoryLimit;
  /** Built on first use: probing the planner's features costs a few hundred ms of planning (more when cold). */
  private volatile SqlInfos sqlInfo;
  private final AtomicLong queryIds = new AtomicLong();

  private final QueryAdmission admission;

  public QuiverProducer(QueryEngine engine, BufferAllocator root, long queryMemoryLimit) {
    this(engine, root, queryMemoryLimit, ServerConfig.DEFAULT_MAX_QUERIES_PER_USER, ServerConfig.DEFAULT_QUEUE_TIMEOUT_MS);
  }

  /** With at most {@code maxQueriesPerUser} running queries per user, others waiting up to {@code queueTimeoutMs}. */
  public QuiverProducer(QueryEngine engine, BufferAllocator root, long queryMemoryLimit, int maxQueriesPerUser,
      long queueTimeoutMs) {
    this(engine, root, queryMemoryLimit, maxQueriesPerUser, ServerConfig.DEFAULT_MAX_QUEUED_PER_USER, queueTimeoutMs);
  }

  /** ... and at most {@code maxQueuedPerUser} queries of one user waiting. */
  public QuiverProducer(QueryEngine engine, BufferAllocator root, long queryMemoryLimit, int maxQueriesPerUser,
      int maxQueuedPerUser, long queueTimeoutMs) {
    this.engine = engine;
    this.root = root;
    this.queryMemoryLimit = queryMemoryLimit;
    this.admission = new QueryAdmission(maxQueriesPerUser, maxQueuedPerUser, queueTimeoutMs);
  }

  /** The server's SqlInfo, from the planner's own answers to its feature probes. */
  private SqlInfos sqlInfo() {
    SqlInfos info = sqlInfo;
    if (info != null) return info;
    synchronized (this) {
      if (sqlInfo == null) {
        try (BufferAllocator probing = root.newChildAllocator("sql-features", 0, queryMemoryLimit)) {
          sqlInfo = SqlInfos.build(dev.quiver.planner.SqlFeatures.probe(engine, probing), engine.limits());
        }
      }
      return sqlInfo;
    }
  }

  /** The data location, whose path errors leave out (file paths relative to it); null: none known. */
  private volatile String dataLocation;

  /** Errors name files relative to {@code location} (the {@code --data} given), not by absolute path. */
  void dataLocation(String location) {
    this.dataLocation = location;
  }

  private org.apache.arrow.flight.FlightRuntimeException error(Throwable t) {
    return ErrorMapping.toFlight(t, dataLocation);
  }

  // ---- statements -----------------------------------------------------------------------------

  private final StatementHandles handles = new StatementHandles();
  /** Plans handed from CreatePreparedStatement / GetFlightInfo to the call that follows (plan once per execution). */
  private final dev.quiver.planner.PlanCache plans = new dev.quiver.planner.PlanCache();

  private static String user(CallContext context) {
    String u = context.peerIdentity();
    return u == null ? "" : u;
  }

  private StatementHandles.Statement statement(ByteString handle, CallContext context) {
    // a ticket already issued stays good after its prepared statement is closed (the JDBC driver may close
    // a statement before it has read all of a result); the statement's handle itself does not
    if (handle.size() > 9 && handle.byteAt(0) == TICKET) return handles.read(handle.substring(9).toByteArray(), user(context));
    return handles.decode(handle.toByteArray(), user(context));
  }

  /**
   * The handle of a new FlightInfo's ticket: a fresh execution id, then the statement's handle. Handles are
   * deterministic (the same SQL of the same user is the same handle), so without the id concurrent runs of
   * one statement could not be told apart: cancelling one would cancel the others, and a CancelFlightInfo
   * arriving after its query ended would cancel the next run of the same statement.
   */
  private ByteString ticketHandle(ByteString statementHandle) {
    return ByteString.copyFrom(java.nio.ByteBuffer.allocate(9).put(TICKET).putLong(executionIds.incrementAndGet()).array())
        .concat(statementHandle);
  }

  /** The statement handle a ticket's handle ends with (or {@code handle} itself). */
  private static ByteString statementHandle(ByteString handle) {
    return handle.size() > 9 && handle.byteAt(0) == TICKET ? handle.substring(9) : handle;
  }

  private ByteString handle(String sql, List<List<Object>> rows, CallContext context) {
    return handle(0, sql, rows, context);
  }

  /** A handle of prepared statement {@code id} (0: of the statement path). */
  private ByteString handle(long id, String sql, List<List<Object>> rows, CallContext context) {
    return ByteString.copyFrom(handles.encode(new StatementHandles.Statement(id, user(context), sql, rows)));
  }

  @Override
  public void createPreparedStatement(ActionCreatePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    try {
      String sql = request.getQuery();
      engine.limits().checkLength(sql); // before anything reads it
      ByteString handle = handle(handles.newId(), sql, List.of(), context);
      ActionCreatePreparedStatementResult.Builder result = ActionCreatePreparedStatementResult.newBuilder()
          .setPreparedStatementHandle(handle);
      if (SessionSettings.parseShow(sql) != null) {
        result.setDatasetSchema(ByteString.copyFrom(SHOW_SCHEMA.serializeAsMessage()));
      } else if (SessionSettings.parse(sql) == null) {
        try (BufferAllocator allocator = newQueryAllocator()) {
          dev.quiver.planner.QuerySettings settings = settings(context);
          PreparedQuery q = engine.prepare(sql, allocator, settings, null, planning(context));
          plans.put(handle, settings, q);
          result.setDatasetSchema(ByteString.copyFrom(resultSchema(q).serializeAsMessage()));
          if (!q.parameterTypes().isEmpty()) {
            result.setParameterSchema(ByteString.copyFrom(parameterSchema(q.parameterTypes()).serializeAsMessage()));
          }
        }
      } else {
        startSession(context); // its cookie comes back with the execution, if the client keeps cookies
        result.setDatasetSchema(ByteString.copyFrom(NO_COLUMNS.serializeAsMessage()));
      }
      listener.onNext(new Result(pack(result.build()).toByteArray()));
      listener.onCompleted();
    } catch (Throwable t) {
      listener.onError(error(t));
    }
  }

  /** One typed, nullable field per {@code ?}, named parameter_1 … as the JDBC binder expects. */
  static Schema parameterSchema(List<ArrowType> types) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) fields.add(new Field("parameter_" + (i + 1), FieldType.nullable(types.get(i)), null));
    return new Schema(fields);
  }

  @Override
  public void closePreparedStatement(ActionClosePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    // handles are self-describing: nothing to free, only to refuse from now on; closing twice is fine
    handles.close(request.getPreparedStatementHandle().toByteArray(), user(context));
    listener.onCompleted();
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      TicketStatementQuery ticket = TicketStatementQuery.newBuilder()
          .setStatementHandle(ticketHandle(command.getPreparedStatementHandle())).build();
      return info(plan(statement(command.getPreparedStatementHandle(), context), command.getPreparedStatementHandle(), context),
          descriptor, pack(ticket).toByteArray());
    } catch (Throwable t) {
      throw error(t);
    }
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      return new SchemaResult(plan(statement(command.getPreparedStatementHandle(), context),
          command.getPreparedStatementHandle(), context));
    } catch (Throwable t) {
      throw error(t);
    }
  }

  @Override
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
  @Override
  public Runnable acceptPutPreparedStatementQuery(CommandPreparedStatementQuery command, CallContext context,
      org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return () -> {
      try {
        StatementHandles.Statement st = statement(command.getPreparedStatementHandle(), context);
        List<ArrowType> types;
        dev.quiver.planner.QuerySettings settings = settings(context);
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
              Object value = new dev.quiver.planner.kernel.VectorValues(v, false).getObject(r);
              row.add(dev.quiver.planner.kernel.Casts.cast(value, v.getField().getType(), types.get(c)));
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

  @Override
  public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      engine.limits().checkLength(command.getQuery());
      StatementHandles.Statement st = new StatementHandles.Statement(user(context), command.getQuery(), List.of());
      ByteString handle = handle(command.getQuery(), List.of(), context);
      TicketStatementQuery ticket = TicketStatementQuery.newBuilder().setStatementHandle(ticketHandle(handle)).build();
      return info(plan(st, handle, context), descriptor, pack(ticket).toByteArray());
    } catch (Throwable t) {
      throw error(t);
    }
  }

  @Override
  public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    try {
      return new SchemaResult(plan(new StatementHandles.Statement(user(context), command.getQuery(), List.of()), null, context));
    } catch (Throwable t) {
      throw error(t);
    }
  }

  // ---- actions --------------------------------------------------------------------------------

  /** The actions Quiver implements, as ListActions lists them; any other action is UNIMPLEMENTED. */
  static final List<org.apache.arrow.flight.ActionType> ACTIONS = List.of(
      org.apache.arrow.flight.sql.FlightSqlUtils.FLIGHT_SQL_CREATE_PREPARED_STATEMENT,
      org.apache.arrow.flight.sql.FlightSqlUtils.FLIGHT_SQL_CLOSE_PREPARED_STATEMENT,
      org.apache.arrow.flight.FlightConstants.CANCEL_FLIGHT_INFO,
      org.apache.arrow.flight.sql.FlightSqlUtils.FLIGHT_SQL_CANCEL_QUERY, // the deprecated form of CancelFlightInfo
      org.apache.arrow.flight.FlightConstants.SET_SESSION_OPTIONS,
      org.apache.arrow.flight.FlightConstants.GET_SESSION_OPTIONS,
      org.apache.arrow.flight.FlightConstants.CLOSE_SESSION);

  @Override
  public void listActions(CallContext context, StreamListener<org.apache.arrow.flight.ActionType> listener) {
    ACTIONS.forEach(listener::onNext);
    listener.onCompleted();
  }

  /**
   * Refuses actions Quiver does not implement, and bodies that are not the action's message, before the
   * base class (which answers INTERNAL naming a protobuf class for some of them) reads them.
   */
  @Override
  public void doAction(CallContext context, org.apache.arrow.flight.Action action, StreamListener<Result> listener) {
    String type = action.getType();
    if (ACTIONS.stream().noneMatch(a -> a.getType().equals(type))) {
      listener.onError(CallStatus.UNIMPLEMENTED.withDescription("Quiver does not implement the action '"
          + dev.quiver.planner.sql.SqlPositions.snippet(type) + "' (ListActions lists those it does)").toRuntimeException());
      return;
    }
    byte[] body = action.getBody() == null ? new byte[0] : action.getBody();
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(body);
    try {
      switch (type) {
        case "CancelFlightInfo" -> org.apache.arrow.flight.CancelFlightInfoRequest.deserialize(buffer);
        case "SetSessionOptions" -> org.apache.arrow.flight.SetSessionOptionsRequest.deserialize(buffer);
        case "GetSessionOptions" -> org.apache.arrow.flight.GetSessionOptionsRequest.deserialize(buffer);
        case "CloseSession" -> org.apache.arrow.flight.CloseSessionRequest.deserialize(buffer);
        case "CancelQuery" -> org.apache.arrow.flight.FlightInfo.deserialize(com.google.protobuf.Any.parseFrom(body)
            .unpack(org.apache.arrow.flight.sql.impl.FlightSql.ActionCancelQueryRequest.class).getInfo().asReadOnlyByteBuffer());
        case "CreatePreparedStatement" -> com.google.protobuf.Any.parseFrom(body).unpack(ActionCreatePreparedStatementRequest.class);
        case "ClosePreparedStatement" -> com.google.protobuf.Any.parseFrom(body).unpack(ActionClosePreparedStatementRequest.class);
        default -> { }
      }
    } catch (Exception malformed) {
      listener.onError(CallStatus.INVALID_ARGUMENT.withDescription("malformed " + type + " request: the action's body"
          + " is not the message the Flight SQL protocol defines for it").withCause(malformed).toRuntimeException());
      return;
    }
    super.doAction(context, action, listener);
  }

  /** A path descriptor is the client's error (the base class reads its command, null, and answers INTERNAL). */
  @Override
  public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
    requireCommand(descriptor);
    return super.getFlightInfo(context, descriptor);
  }

  @Override
  public SchemaResult getSchema(CallContext context, FlightDescriptor descriptor) {
    requireCommand(descriptor);
    return super.getSchema(context, descriptor);
  }

  @Override
  public Runnable acceptPut(CallContext context, org.apache.arrow.flight.FlightStream flightStream,
      StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    requireCommand(flightStream.getDescriptor());
    return super.acceptPut(context, flightStream, ackStream);
  }

  private static void requireCommand(FlightDescriptor descriptor) {
    if (descriptor == null || !descriptor.isCommand() || descriptor.getCommand() == null) {
      throw CallStatus.INVALID_ARGUMENT.withDescription("Quiver answers Flight SQL commands, not path descriptors")
          .toRuntimeException();
    }
  }

  /** A ticket that is no protobuf message is the client's error (the base class would answer INTERNAL). */
  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    try {
      com.google.protobuf.Any.parseFrom(ticket.getBytes());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      listener.error(error(e));
      return;
    }
    super.getStream(context, ticket, listener);
  }

  @Override
  public void getStreamStatement(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    try {
      run(statement(ticket.getStatementHandle(), context), ticket.getStatementHandle(), context, listener);
    } catch (Throwable t) {
      listener.error(error(t));
    }
  }

  private static FlightInfo info(Schema schema, FlightDescriptor descriptor, byte[] ticket) {
    return new FlightInfo(schema, descriptor, List.of(new FlightEndpoint(new Ticket(ticket))), -1, -1);
  }

  /**
   * For planning outside DoGet (GetFlightInfo, prepare): planning many joins can take seconds, so it stops
   * when the client cancels the call or goes away, or at the session's statement timeout.
   */
  private dev.quiver.planner.Cancellation planning(CallContext context) {
    long timeoutMs = settings(context).statementTimeoutMs();
    long deadline = timeoutMs == 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
    return () -> {
      if (context.isCancelled()) throw new QuiverException(ErrorCode.CANCELLED, "query cancelled by the client");
      if (System.nanoTime() > deadline) {
        throw new QuiverException(ErrorCode.TIMED_OUT, "planning exceeded the statement timeout of " + timeoutMs + " ms ("
            + SessionSettings.TIMEOUT + ")");
      }
    };
  }

  private BufferAllocator newQueryAllocator() {
    return root.newChildAllocator("query-" + queryIds.incrementAndGet(), 0, queryMemoryLimit);
  }

  /**
   * The schema a statement's results will have (none for a SET), planned with its first parameter row; the
   * plan is kept under {@code handle} (unless null) for the DoGet that follows.
   */
  private Schema plan(StatementHandles.Statement st, ByteString handle, CallContext context) {
    engine.limits().checkLength(st.sql());
    if (SessionSettings.parse(st.sql()) != null) {
      startSession(context); // its cookie comes back with the DoGet, if the client keeps cookies
      return NO_COLUMNS;
    }
    if (SessionSettings.parseShow(st.sql()) != null) return SHOW_SCHEMA;
    try (BufferAllocator allocator = newQueryAllocator()) {
      List<Object> first = st.rows().isEmpty() ? null : st.rows().get(0);
      dev.quiver.planner.QuerySettings settings = settings(context);
      dev.quiver.scan.table.Catalog snapshot = engine.snapshot();
      PreparedQuery q = handle == null || st.rows().size() > 1 ? null : plans.take(handle, settings, snapshot);
      if (q == null) q = engine.prepare(snapshot, st.sql(), allocator, settings, first, planning(context));
      if (handle != null && st.rows().size() <= 1) plans.put(handle, settings, q);
      return resultSchema(q);
    }
  }

  /** The session's settings over the server's defaults. */
  private dev.quiver.planner.QuerySettings settings(CallContext context) {
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    return SessionSettings.of(m != null && m.hasSession() ? m.getSession() : null, engine.defaults());
  }

  /** Makes sure the caller has a session: a new one's cookie goes out with this call's response headers. */
  private static void startSession(CallContext context) {
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    if (m != null) m.getSession();
  }

  /**
   * Applies a SET statement to the caller's session; false if {@code sql} is no SET. With {@code
   * cookieExpected}, the statement was planned by an earlier call that started the session, so a call
   * without the session's cookie comes from a client that does not keep cookies: the SET would have no
   * effect on its later calls, and fails saying so. Otherwise (a one-call DoPut update) a new session is
   * started and its cookie sent.
   */
  private boolean applySet(String sql, CallContext context, boolean cookieExpected) {
    SessionSettings.Assignment a = SessionSettings.parse(sql);
    if (a == null) return false;
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    if (m == null) throw new QuiverException(ErrorCode.UNSUPPORTED, "SET without sessions");
    if (cookieExpected && !m.hasSession()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "SET would have no effect: settings live in the session"
          + " that the cookie " + org.apache.arrow.flight.ServerSessionMiddleware.sessionCookieName
          + " names, and this client did not send back the cookie it was given when the statement was planned."
          + " Use a client that keeps cookies (the JDBC driver; ADBC with adbc.flight.sql.rpc.with_cookie_middleware=true)"
          + " or the server's defaults (--statement-timeout-ms, --no-simplify)");
    }
    SessionSettings.apply(m.getSession(), a);
    return true;
  }

  @Override
  public Runnable acceptPutStatement(org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate command,
      CallContext context, org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return () -> update(command.getQuery(), false, context, flightStream, ackStream);
  }

  @Override
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
      if (!applySet(sql, context, prepared)) {
        throw new QuiverException(ErrorCode.UNSUPPORTED,
            "Quiver is read-only: updates are not supported ('" + dev.quiver.planner.sql.SqlPositions.snippet(sql.strip()) + "')");
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
    BufferAllocator allocator = null;
    QueryAdmission.Ticket slot = null;
    java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
    running.compute(key, (k, runs) -> {
      java.util.Set<java.util.concurrent.atomic.AtomicBoolean> r = runs != null ? runs
          : java.util.concurrent.ConcurrentHashMap.newKeySet();
      r.add(cancelled);
      return r;
    });
    // after registering: a CancelFlightInfo either is remembered by now or will find the flag
    if (cancelledTickets.containsKey(key)) cancelled.set(true);
    listener.setOnCancelHandler(() -> cancelled.set(true));
    try {
      allocator = newQueryAllocator();
      java.util.List<String> show = SessionSettings.parseShow(st.sql());
      if (show != null) {
        dev.quiver.planner.QuerySettings current = settings(context);
        try (VectorSchemaRoot r = VectorSchemaRoot.create(SHOW_SCHEMA, allocator)) {
          r.allocateNew();
          for (int i = 0; i < show.size(); i++) {
            setString(r, "name", i, show.get(i));
            setString(r, "setting", i, SessionSettings.value(show.get(i), current));
          }
          r.setRowCount(show.size());
          listener.start(r);
          listener.putNext();
        }
        listener.completed();
        return;
      }
      if (applySet(st.sql(), context, true)) {
        try (VectorSchemaRoot empty = VectorSchemaRoot.create(NO_COLUMNS, allocator)) {
          listener.start(empty);
        }
        listener.completed();
        return;
      }
      dev.quiver.planner.QuerySettings settings = settings(context);
      long deadline = settings.statementTimeoutMs() == 0 ? Long.MAX_VALUE
          : System.nanoTime() + settings.statementTimeoutMs() * 1_000_000L;
      dev.quiver.planner.Cancellation cancellation = () -> {
        if (cancelled.get() || listener.isCancelled()) {
          throw new QuiverException(ErrorCode.CANCELLED, "query cancelled by the client");
        }
        if (System.nanoTime() > deadline) {
          throw new QuiverException(ErrorCode.TIMED_OUT, "query exceeded the statement timeout of "
              + settings.statementTimeoutMs() + " ms (" + SessionSettings.TIMEOUT + ")");
        }
      };
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
      PreparedQuery planned = rows.size() == 1 ? plans.take(statementHandle(key), settings, snapshot) : null;
      try {
        for (List<Object> row : rows) {
          PreparedQuery query = planned != null ? planned
              : engine.prepare(snapshot, st.sql(), allocator, settings, row, cancellation);
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
      running.computeIfPresent(key, (k, runs) -> {
        runs.remove(cancelled);
        return runs.isEmpty() ? null : runs;
      });
      try {
        if (allocator != null) closeWhenReleased(allocator);
      } finally {
        if (slot != null) slot.close();
      }
    }
  }

  /**
   * Closes a query's allocator once the transport has let go of the last batch it sent: gRPC may still
   * hold a message's buffers for a moment after {@code completed()}. A real leak still fails the close.
   */
  private static void closeWhenReleased(BufferAllocator allocator) {
    long deadline = System.nanoTime() + 2_000_000_000L;
    while (allocator.getAllocatedMemory() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    allocator.close();
  }

  /** Queries now streaming, or waiting for their user's turn (for operations and tests). */
  long plansBuilt() {
    return engine.plansBuilt();
  }

  public int runningQueries() {
    return running.values().stream().mapToInt(java.util.Set::size).sum();
  }

  /** CancelFlightInfo: flags the queries behind the info's tickets; they stop at their next batch. */
  @Override
  public void cancelFlightInfo(org.apache.arrow.flight.CancelFlightInfoRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.CancelStatus> listener) {
    try {
      for (FlightEndpoint e : request.getInfo().getEndpoints()) {
        com.google.protobuf.Any any = com.google.protobuf.Any.parseFrom(e.getTicket().getBytes());
        ByteString key = any.is(TicketStatementQuery.class) ? any.unpack(TicketStatementQuery.class).getStatementHandle()
            : any.unpack(CommandPreparedStatementQuery.class).getPreparedStatementHandle();
        statement(key, context); // only the caller's own statements
        // remembered first, so that a DoGet starting now sees it either way
        long now = System.nanoTime();
        cancelledTickets.values().removeIf(at -> now - at > CANCELLED_TICKETS_NANOS);
        if (cancelledTickets.size() < MAX_CANCELLED_TICKETS) cancelledTickets.put(key, now);
        running.computeIfPresent(key, (k, runs) -> {
          runs.forEach(flag -> flag.set(true));
          return runs;
        });
      }
      listener.onNext(org.apache.arrow.flight.CancelStatus.CANCELLED);
      listener.onCompleted();
    } catch (Throwable t) {
      listener.onError(error(t));
    }
  }

  /** Sends {@code batch} through {@code out}, split so that no message exceeds {@link #MAX_BATCH_BYTES}. */
  private static void send(VectorSchemaRoot batch, VectorSchemaRoot out, ServerStreamListener listener,
      org.apache.arrow.flight.BackpressureStrategy backpressure, dev.quiver.planner.Cancellation cancellation) {
    int rows = batch.getRowCount();
    if (rows == 0) return;
    long bytes = 0;
    for (FieldVector v : batch.getFieldVectors()) bytes += v.getBufferSize();
    int chunks = (int) Math.max(1, (bytes + MAX_BATCH_BYTES - 1) / MAX_BATCH_BYTES);
    int perChunk = (rows + chunks - 1) / chunks;
    for (int start = 0; start < rows; start += perChunk) {
      // wait while the client is slow, instead of buffering the result in the server
      while (backpressure.waitForListener(200) == org.apache.arrow.flight.BackpressureStrategy.WaitResult.TIMEOUT) {
        cancellation.check();
      }
      cancellation.check();
      int len = Math.min(perChunk, rows - start);
      for (int i = 0; i < batch.getFieldVectors().size(); i++) {
        batch.getVector(i).makeTransferPair(out.getVector(i)).splitAndTransfer(start, len);
      }
      out.setRowCount(len);
      listener.putNext();
      out.clear();
    }
  }

  // ---- sessions -------------------------------------------------------------------------------

  /**
   * Flight SQL session options: {@code catalog} and {@code schema} (the JDBC driver sends them for a
   * {@code catalog=} URL key; only Quiver's one catalog and schema are valid) and Quiver's own settings,
   * which SET changes too.
   */
  @Override
  public void setSessionOptions(org.apache.arrow.flight.SetSessionOptionsRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.SetSessionOptionsResult> listener) {
    try {
      java.util.Map<String, org.apache.arrow.flight.SetSessionOptionsResult.Error> errors = new java.util.HashMap<>();
      org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
      for (var e : request.getSessionOptions().entrySet()) {
        String name = e.getKey().toLowerCase(Locale.ROOT);
        String value = SessionSettings.text(e.getValue());
        boolean ok;
        if (name.equals("catalog")) {
          ok = value.equalsIgnoreCase(Analyzer.CATALOG);
        } else if (name.equals("schema")) {
          ok = value.equalsIgnoreCase(Analyzer.SCHEMA);
        } else {
          try {
            SessionSettings.apply(m.getSession(), SessionSettings.assignment(name, value));
            continue;
          } catch (RuntimeException bad) {
            boolean known = SessionSettings.ALL.contains(name) || name.equals("time_zone");
            errors.put(e.getKey(), new org.apache.arrow.flight.SetSessionOptionsResult.Error(known
                ? org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue.INVALID_VALUE
                : org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue.INVALID_NAME));
            continue;
          }
        }
        if (!ok) {
          errors.put(e.getKey(), new org.apache.arrow.flight.SetSessionOptionsResult.Error(
              org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue.INVALID_VALUE));
        }
      }
      listener.onNext(new org.apache.arrow.flight.SetSessionOptionsResult(errors));
      listener.onCompleted();
    } catch (Throwable t) {
      listener.onError(error(t));
    }
  }

  @Override
  public void getSessionOptions(org.apache.arrow.flight.GetSessionOptionsRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.GetSessionOptionsResult> listener) {
    dev.quiver.planner.QuerySettings current = settings(context);
    java.util.Map<String, org.apache.arrow.flight.SessionOptionValue> options = new java.util.LinkedHashMap<>();
    options.put("catalog", org.apache.arrow.flight.SessionOptionValueFactory.makeSessionOptionValue(Analyzer.CATALOG));
    options.put("schema", org.apache.arrow.flight.SessionOptionValueFactory.makeSessionOptionValue(Analyzer.SCHEMA));
    for (String name : SessionSettings.ALL) {
      options.put(name, org.apache.arrow.flight.SessionOptionValueFactory.makeSessionOptionValue(
          SessionSettings.value(name, current)));
    }
    listener.onNext(new org.apache.arrow.flight.GetSessionOptionsResult(options));
    listener.onCompleted();
  }

  @Override
  public void closeSession(org.apache.arrow.flight.CloseSessionRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.CloseSessionResult> listener) {
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    if (m != null && m.hasSession()) m.closeSession();
    listener.onNext(new org.apache.arrow.flight.CloseSessionResult(org.apache.arrow.flight.CloseSessionResult.Status.CLOSED));
    listener.onCompleted();
  }

  // ---- metadata -------------------------------------------------------------------------------

  @Override
  public FlightInfo getFlightInfoTypeInfo(org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo request,
      CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_TYPE_INFO_SCHEMA, descriptor, pack(request).toByteArray());
  }

  /** One row per SQL type Quiver has (XDBC / JDBC getTypeInfo), optionally filtered by data type. */
  @Override
  public void getStreamTypeInfo(org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo request,
      CallContext context, ServerStreamListener listener) {
    record T(String name, int dataType, int size, String prefix, boolean caseSensitive, boolean unsigned, boolean fixed) {}
    List<T> types = List.of(
        new T("BOOLEAN", java.sql.Types.BOOLEAN, 1, null, false, false, false),
        new T("TINYINT", java.sql.Types.TINYINT, 3, null, false, false, false),
        new T("SMALLINT", java.sql.Types.SMALLINT, 5, null, false, false, false),
        new T("INTEGER", java.sql.Types.INTEGER, 10, null, false, false, false),
        new T("BIGINT", java.sql.Types.BIGINT, 19, null, false, false, false),
        new T("REAL", java.sql.Types.REAL, 7, null, false, false, false),
        new T("DOUBLE", java.sql.Types.DOUBLE, 15, null, false, false, false),
        new T("DECIMAL", java.sql.Types.DECIMAL, 38, null, false, false, true),
        new T("VARCHAR", java.sql.Types.VARCHAR, Integer.MAX_VALUE, "'", true, false, false),
        new T("VARBINARY", java.sql.Types.VARBINARY, Integer.MAX_VALUE, "X'", false, false, false),
        new T("DATE", java.sql.Types.DATE, 10, "DATE '", false, false, false),
        new T("TIMESTAMP", java.sql.Types.TIMESTAMP, 29, "TIMESTAMP '", false, false, false),
        new T("TIMESTAMP WITH TIME ZONE", java.sql.Types.TIMESTAMP_WITH_TIMEZONE, 35, "TIMESTAMP '", false, false, false));
    List<T> selected = types.stream()
        .filter(t -> !request.hasDataType() || request.getDataType() == t.dataType()).toList();
    stream(Schemas.GET_TYPE_INFO_SCHEMA, listener, r -> {
      for (int i = 0; i < selected.size(); i++) {
        T t = selected.get(i);
        setString(r, "type_name", i, t.name());
        ((org.apache.arrow.vector.IntVector) r.getVector("data_type")).setSafe(i, t.dataType());
        ((org.apache.arrow.vector.IntVector) r.getVector("column_size")).setSafe(i, t.size());
        if (t.prefix() != null) {
          setString(r, "literal_prefix", i, t.prefix());
          setString(r, "literal_suffix", i, "'");
        }
        ((org.apache.arrow.vector.IntVector) r.getVector("nullable")).setSafe(i, java.sql.DatabaseMetaData.typeNullable);
        ((org.apache.arrow.vector.BitVector) r.getVector("case_sensitive")).setSafe(i, t.caseSensitive() ? 1 : 0);
        ((org.apache.arrow.vector.IntVector) r.getVector("searchable")).setSafe(i, java.sql.DatabaseMetaData.typeSearchable);
        ((org.apache.arrow.vector.BitVector) r.getVector("unsigned_attribute")).setSafe(i, t.unsigned() ? 1 : 0);
        ((org.apache.arrow.vector.BitVector) r.getVector("fixed_prec_scale")).setSafe(i, t.fixed() ? 1 : 0);
        ((org.apache.arrow.vector.BitVector) r.getVector("auto_increment")).setSafe(i, 0);
        setString(r, "local_type_name", i, t.name());
        ((org.apache.arrow.vector.IntVector) r.getVector("sql_data_type")).setSafe(i, t.dataType());
      }
      r.setRowCount(selected.size());
    });
  }

  @Override
  public FlightInfo getFlightInfoSqlInfo(CommandGetSqlInfo request, CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_SQL_INFO_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamSqlInfo(CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    if (command.getInfoList().isEmpty()) {
      sqlInfo().builder().send(List.of(), listener); // no ids: all of them
      return;
    }
    // ids Quiver does not know are left out (SqlInfoBuilder fails on them); none known: no rows, not all
    SqlInfos info = sqlInfo();
    List<Integer> ids = command.getInfoList().stream().filter(info.ids()::contains).distinct().toList();
    if (ids.isEmpty()) {
      stream(Schemas.GET_SQL_INFO_SCHEMA, listener, r -> r.setRowCount(0));
    } else {
      info.builder().send(ids, listener);
    }
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(CommandGetCatalogs request, CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_CATALOGS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_CATALOGS_SCHEMA, listener, r -> {
      setString(r, "catalog_name", 0, Analyzer.CATALOG);
      r.setRowCount(1);
    });
  }

  @Override
  public FlightInfo getFlightInfoSchemas(CommandGetDbSchemas request, CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_SCHEMAS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamSchemas(CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    boolean match = catalogMatches(command.hasCatalog() ? command.getCatalog() : null)
        && like(command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null, Analyzer.SCHEMA);
    stream(Schemas.GET_SCHEMAS_SCHEMA, listener, r -> {
      if (match) {
        setString(r, "catalog_name", 0, Analyzer.CATALOG);
        setString(r, "db_schema_name", 0, Analyzer.SCHEMA);
      }
      r.setRowCount(match ? 1 : 0);
    });
  }

  @Override
  public FlightInfo getFlightInfoTables(CommandGetTables request, CallContext context, FlightDescriptor descriptor) {
    Schema schema = request.getIncludeSchema() ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    return info(schema, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamTables(CommandGetTables command, CallContext context, ServerStreamListener listener) {
    List<ParquetTable> tables = new ArrayList<>();
    boolean typeOk = command.getTableTypesCount() == 0
        || command.getTableTypesList().stream().anyMatch(t -> t.equalsIgnoreCase("TABLE"));
    if (typeOk && catalogMatches(command.hasCatalog() ? command.getCatalog() : null)
        && like(command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null, Analyzer.SCHEMA)) {
      List<ParquetTable> current;
      try {
        current = engine.snapshot().tables(); // the data directory as it is now
      } catch (Throwable t) {
        listener.error(error(t));
        return;
      }
      for (ParquetTable t : current) {
        if (like(command.hasTableNameFilterPattern() ? command.getTableNameFilterPattern() : null, t.name())) tables.add(t);
      }
    }
    Schema schema = command.getIncludeSchema() ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    stream(schema, listener, r -> {
      for (int i = 0; i < tables.size(); i++) {
        ParquetTable t = tables.get(i);
        setString(r, "catalog_name", i, Analyzer.CATALOG);
        setString(r, "db_schema_name", i, Analyzer.SCHEMA);
        setString(r, "table_name", i, t.name());
        setString(r, "table_type", i, "TABLE");
        if (command.getIncludeSchema()) {
          ((VarBinaryVector) r.getVector("table_schema")).setSafe(i, columnSchema(t).serializeAsMessage());
        }
      }
      r.setRowCount(tables.size());
    });
  }

  /** A table's schema with the Flight SQL column metadata JDBC's getColumns reads. */
  static Schema columnSchema(ParquetTable t) {
    List<dev.quiver.planner.ColumnOrigins.Origin> origins = t.schema().getFields().stream()
        .map(f -> new dev.quiver.planner.ColumnOrigins.Origin(t.name(), f.getName())).toList();
    return withColumnMetadata(t.schema(), origins);
  }

  /**
   * The schema of a query's results as every call sends it (prepare, GetFlightInfo, GetSchema, DoGet): a
   * column that is a table's column unchanged names its catalog, schema and table (ResultSetMetaData's
   * getTableName …); computed columns and EXPLAIN lines name none.
   */
  static Schema resultSchema(PreparedQuery q) {
    List<dev.quiver.planner.ColumnOrigins.Origin> origins = q.explain() == PreparedQuery.ExplainMode.NONE
        ? dev.quiver.planner.ColumnOrigins.of(q.plan()) : java.util.Collections.nCopies(q.schema().getFields().size(), null);
    return withColumnMetadata(q.schema(), origins);
  }

  /**
   * {@code schema} with Flight SQL column metadata on every field (SQL type name, precision, scale, case
   * sensitivity, and for a column of a table its catalog, schema and table), as JDBC's ResultSetMetaData
   * and getColumns read it; {@code origins} has one entry per field, null for a computed column.
   */
  static Schema withColumnMetadata(Schema schema, List<dev.quiver.planner.ColumnOrigins.Origin> origins) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < schema.getFields().size(); i++) {
      Field f = schema.getFields().get(i);
      ArrowType type = f.getType();
      FlightSqlColumnMetadata.Builder m = new FlightSqlColumnMetadata.Builder()
          .typeName(SqlTypes.sqlName(type)).isReadOnly(true).isAutoIncrement(false)
          .isCaseSensitive(type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8)
          .isSearchable(true);
      dev.quiver.planner.ColumnOrigins.Origin origin = origins.get(i);
      if (origin != null) m.catalogName(Analyzer.CATALOG).schemaName(Analyzer.SCHEMA).tableName(origin.table());
      Integer precision = precision(type);
      if (precision != null) m.precision(precision);
      Integer scale = scale(type);
      if (scale != null) m.scale(scale);
      fields.add(new Field(f.getName(), new FieldType(f.isNullable(), type, null, m.build().getMetadataMap()), null));
    }
    return new Schema(fields);
  }

  /** JDBC's precision: decimal digits of a number, characters of a date or time's text; null if unbounded. */
  static Integer precision(ArrowType type) {
    if (type instanceof ArrowType.Decimal d) return d.getPrecision();
    if (type instanceof ArrowType.Int i) {
      return switch (i.getBitWidth()) {
        case 8 -> 3;
        case 16 -> 5;
        case 32 -> 10;
        default -> i.getIsSigned() ? 19 : 20;
      };
    }
    if (type instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE ? 15 : 7;
    }
    if (type instanceof ArrowType.Bool) return 1;
    if (type instanceof ArrowType.Date) return 10; // 2024-01-31
    if (type instanceof ArrowType.Timestamp t) {
      Integer fraction = scale(type);
      return 19 + (fraction > 0 ? 1 + fraction : 0) + (t.getTimezone() != null ? 6 : 0); // 2024-01-31 12:00:00.123456+00:00
    }
    return null;
  }

  /** JDBC's scale: digits after the decimal point (of a number, or of a timestamp's seconds); null if none apply. */
  static Integer scale(ArrowType type) {
    if (type instanceof ArrowType.Decimal d) return d.getScale();
    if (type instanceof ArrowType.Int) return 0;
    if (type instanceof ArrowType.Timestamp t) {
      return switch (t.getUnit()) {
        case SECOND -> 0;
        case MILLISECOND -> 3;
        case MICROSECOND -> 6;
        case NANOSECOND -> 9;
      };
    }
    return null;
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(CommandGetTableTypes request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_TABLE_TYPES_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_TABLE_TYPES_SCHEMA, listener, r -> {
      setString(r, "table_type", 0, "TABLE");
      r.setRowCount(1);
    });
  }

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(CommandGetPrimaryKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_PRIMARY_KEYS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_PRIMARY_KEYS_SCHEMA, listener, r -> r.setRowCount(0));
  }

  @Override
  public FlightInfo getFlightInfoExportedKeys(CommandGetExportedKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_EXPORTED_KEYS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_EXPORTED_KEYS_SCHEMA, listener, r -> r.setRowCount(0));
  }

  @Override
  public FlightInfo getFlightInfoImportedKeys(CommandGetImportedKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_IMPORTED_KEYS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_IMPORTED_KEYS_SCHEMA, listener, r -> r.setRowCount(0));
  }

  @Override
  public FlightInfo getFlightInfoCrossReference(CommandGetCrossReference request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_CROSS_REFERENCE_SCHEMA, descriptor, pack(request).toByteArray());
  }

  @Override
  public void getStreamCrossReference(CommandGetCrossReference command, CallContext context,
      ServerStreamListener listener) {
    stream(Schemas.GET_CROSS_REFERENCE_SCHEMA, listener, r -> r.setRowCount(0));
  }

  private void stream(Schema schema, ServerStreamListener listener, Consumer<VectorSchemaRoot> fill) {
    BufferAllocator allocator = newQueryAllocator();
    try (VectorSchemaRoot r = VectorSchemaRoot.create(schema, allocator)) {
      r.allocateNew();
      fill.accept(r);
      listener.start(r);
      listener.putNext();
      listener.completed();
    } catch (Throwable t) {
      listener.error(error(t));
    } finally {
      closeWhenReleased(allocator);
    }
  }

  private static void setString(VectorSchemaRoot r, String column, int i, String value) {
    ((VarCharVector) r.getVector(column)).setSafe(i, value.getBytes(StandardCharsets.UTF_8));
  }

  private static boolean catalogMatches(String catalog) {
    return catalog == null || catalog.isEmpty() || catalog.equalsIgnoreCase(Analyzer.CATALOG);
  }

  /** SQL LIKE ({@code %}, {@code _}, backslash escapes) of a metadata name filter; null matches all. */
  static boolean like(String pattern, String value) {
    if (pattern == null) return true;
    // RE2/J, not java.util.regex: "%%%%…x" as ".*.*.*…x" backtracks in time exponential in the '%'s
    return dev.quiver.planner.kernel.Functions.compile("(?i)" + dev.quiver.planner.kernel.Kernels.likeToRegex(pattern))
        .matcher(value).matches();
  }

}
