package dev.quiver.server;

import dev.quiver.planner.QueryEngine;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
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

/**
 * Quiver's Flight SQL producer, the front door: routes each call to its part. Statements and prepared
 * statements ({@link StatementExecution}, results sent by {@link ResultStreaming}, cancelled through {@link
 * RunningQueries}), sessions, SET and SHOW ({@link Sessions}), and the metadata commands JDBC, ADBC and
 * sqlline call ({@link MetadataCommands}). A result has one endpoint without a location, or (scan/filter/project
 * plans, {@code quiver.max_endpoints} above 1) one per fragment, located over self and the peers. Each query runs in
 * its own child allocator with a memory limit. Errors become Flight statuses in one place, {@link ErrorMapping}.
 */
public final class QuiverProducer extends NoOpFlightSqlProducer {
  /** The Flight session middleware: per-client settings live in its session (cookie). */
  static final org.apache.arrow.flight.FlightServerMiddleware.Key<org.apache.arrow.flight.ServerSessionMiddleware> SESSION =
      org.apache.arrow.flight.FlightServerMiddleware.Key.of("quiver-session");

  private final QueryEngine engine;
  private final BufferAllocator root;
  private final long queryMemoryLimit;
  private final AtomicLong queryIds = new AtomicLong();
  private final RunningQueries running = new RunningQueries();
  private final Sessions sessions;
  private final StatementExecution statements;
  /** Per-user running-query limits, shared by Flight and the web console. */
  private final QueryAdmission admission;
  private final MetadataCommands metadata;

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
    this.sessions = new Sessions(engine, this::error);
    this.admission = new QueryAdmission(maxQueriesPerUser, maxQueuedPerUser, queueTimeoutMs);
    this.statements = new StatementExecution(engine, root, this::newQueryAllocator, this::error, admission, sessions,
        running);
    this.metadata = new MetadataCommands(engine, root, queryMemoryLimit, this::newQueryAllocator, this::error);
  }

  /** The data location, whose path errors leave out (file paths relative to it); null: none known. */
  private volatile String dataLocation;

  /** Errors name files relative to {@code location} (the {@code --data} given), not by absolute path. */
  void dataLocation(String location) {
    this.dataLocation = location;
  }

  org.apache.arrow.flight.FlightRuntimeException error(Throwable t) {
    return ErrorMapping.toFlight(t, dataLocation);
  }

  /** See {@link QuiverServer.ScaleOut}: endpoints per FlightInfo, their locations (empty: none), the signing secret. */
  void scaleOut(int maxEndpoints, List<org.apache.arrow.flight.Location> locations, byte[] secret) {
    sessions.defaultMaxEndpoints(maxEndpoints);
    statements.locations(locations);
    if (secret != null) statements.useSecret(secret);
  }

  BufferAllocator newQueryAllocator() {
    return root.newChildAllocator("query-" + queryIds.incrementAndGet(), 0, queryMemoryLimit);
  }

  QueryAdmission admission() {
    return admission;
  }

  RunningQueries running() {
    return running;
  }

  QueryEngine engine() {
    return engine;
  }

  /** Plans the engine has built (for operations and tests). */
  long plansBuilt() {
    return engine.plansBuilt();
  }

  /** Queries now streaming, or waiting for their user's turn (for operations and tests). */
  public int runningQueries() {
    return running.count();
  }

  // ---- statements -----------------------------------------------------------------------------

  @Override
  public void createPreparedStatement(ActionCreatePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    statements.createPreparedStatement(request, context, listener);
  }

  @Override
  public void closePreparedStatement(ActionClosePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    statements.closePreparedStatement(request, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    return statements.getFlightInfoPreparedStatement(command, context, descriptor);
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    return statements.getSchemaPreparedStatement(command, context, descriptor);
  }

  @Override
  public void getStreamPreparedStatement(CommandPreparedStatementQuery command, CallContext context,
      ServerStreamListener listener) {
    statements.getStreamPreparedStatement(command, context, listener);
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(CommandPreparedStatementQuery command, CallContext context,
      org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return statements.acceptPutPreparedStatementQuery(command, context, flightStream, ackStream);
  }

  @Override
  public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    return statements.getFlightInfoStatement(command, context, descriptor);
  }

  @Override
  public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    return statements.getSchemaStatement(command, context, descriptor);
  }

  @Override
  public void getStreamStatement(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    statements.getStreamStatement(ticket, context, listener);
  }

  @Override
  public Runnable acceptPutStatement(org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate command,
      CallContext context, org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return statements.acceptPutStatement(command, context, flightStream, ackStream);
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate command, CallContext context,
      org.apache.arrow.flight.FlightStream flightStream, StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    return statements.acceptPutPreparedStatementUpdate(command, context, flightStream, ackStream);
  }

  @Override
  public void cancelFlightInfo(org.apache.arrow.flight.CancelFlightInfoRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.CancelStatus> listener) {
    statements.cancelFlightInfo(request, context, listener);
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
          + dev.quiver.planner.Sql.snippet(type) + "' (ListActions lists those it does)").toRuntimeException());
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
    String sql = plainSql(descriptor.getCommand());
    if (sql != null) return getFlightInfoStatement(statement(sql), context, descriptor);
    try {
      return super.getFlightInfo(context, descriptor);
    } catch (org.apache.arrow.flight.FlightRuntimeException e) {
      throw withoutClassNames(e);
    }
  }

  @Override
  public SchemaResult getSchema(CallContext context, FlightDescriptor descriptor) {
    requireCommand(descriptor);
    String sql = plainSql(descriptor.getCommand());
    if (sql != null) return getSchemaStatement(statement(sql), context, descriptor);
    try {
      return super.getSchema(context, descriptor);
    } catch (org.apache.arrow.flight.FlightRuntimeException e) {
      throw withoutClassNames(e);
    }
  }

  @Override
  public Runnable acceptPut(CallContext context, org.apache.arrow.flight.FlightStream flightStream,
      StreamListener<org.apache.arrow.flight.PutResult> ackStream) {
    requireCommand(flightStream.getDescriptor());
    try {
      return super.acceptPut(context, flightStream, ackStream);
    } catch (org.apache.arrow.flight.FlightRuntimeException e) {
      throw withoutClassNames(e);
    }
  }

  /**
   * Arrow's "Provided message cannot be unpacked as org.apache…FlightSql$CommandStatementQuery:
   * com.google.protobuf.InvalidProtocolBufferException: Protocol message had invalid UTF-8." (a statement with
   * invalid UTF-8, or a command of the wrong shape) as a message for a person: what was wrong, no class names.
   */
  static org.apache.arrow.flight.FlightRuntimeException withoutClassNames(org.apache.arrow.flight.FlightRuntimeException e) {
    String d = e.status().description();
    if (d == null || !d.startsWith("Provided message cannot be unpacked")) return e;
    String reason = d.substring(d.lastIndexOf(": ") + 2).strip();
    if (reason.matches(".*\\b[a-z]+\\.[a-z]+\\..*")) reason = "not the message the Flight SQL protocol defines";
    return CallStatus.INVALID_ARGUMENT.withDescription("malformed request: " + (reason.contains("UTF-8")
        ? "the statement is not valid UTF-8 (" + reason + ")" : reason)).withCause(e).toRuntimeException();
  }

  /**
   * A command that is no Flight SQL message but UTF-8 text is read as a SQL statement, so that a plain Arrow Flight
   * client (pyarrow's {@code FlightClient}, which has no Flight SQL support) queries with
   * {@code get_flight_info(FlightDescriptor.for_command("SELECT …"))} and {@code do_get} of the returned ticket,
   * as several Flight servers allow; without this it got "Unable to parse command". A Flight SQL command is a
   * protobuf {@code Any} naming a {@code arrow.flight.protocol.sql} type: such bytes are never taken for SQL, and
   * SQL text never parses as one (its first byte would have to be 0x0A, a line feed, followed by a valid length
   * and type URL). Null: the command is a Flight SQL message (or neither, and the usual error follows).
   */
  static String plainSql(byte[] command) {
    try {
      com.google.protobuf.Any any = com.google.protobuf.Any.parseFrom(command);
      if (any.getTypeUrl().startsWith("type.googleapis.com/arrow.flight.protocol.sql.")) return null;
    } catch (com.google.protobuf.InvalidProtocolBufferException notAny) {
      // not a protobuf message: perhaps SQL text
    }
    java.nio.charset.CharsetDecoder utf8 = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
        .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
    try {
      String text = utf8.decode(java.nio.ByteBuffer.wrap(command)).toString();
      return text.isBlank() ? null : text;
    } catch (java.nio.charset.CharacterCodingException notText) {
      return null;
    }
  }

  private static org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery statement(String sql) {
    return org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery.newBuilder().setQuery(sql).build();
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
    try {
      super.getStream(context, ticket, listener);
    } catch (org.apache.arrow.flight.FlightRuntimeException e) {
      listener.error(withoutClassNames(e));
    }
  }

  // ---- sessions -------------------------------------------------------------------------------

  @Override
  public void setSessionOptions(org.apache.arrow.flight.SetSessionOptionsRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.SetSessionOptionsResult> listener) {
    sessions.setSessionOptions(request, context, listener);
  }

  @Override
  public void getSessionOptions(org.apache.arrow.flight.GetSessionOptionsRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.GetSessionOptionsResult> listener) {
    sessions.getSessionOptions(request, context, listener);
  }

  @Override
  public void closeSession(org.apache.arrow.flight.CloseSessionRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.CloseSessionResult> listener) {
    sessions.closeSession(request, context, listener);
  }

  // ---- metadata -------------------------------------------------------------------------------

  @Override
  public FlightInfo getFlightInfoTypeInfo(org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoTypeInfo(request, context, descriptor);
  }

  @Override
  public void getStreamTypeInfo(org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo request, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamTypeInfo(request, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoSqlInfo(CommandGetSqlInfo request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoSqlInfo(request, context, descriptor);
  }

  @Override
  public void getStreamSqlInfo(CommandGetSqlInfo command, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamSqlInfo(command, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(CommandGetCatalogs request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoCatalogs(request, context, descriptor);
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    metadata.getStreamCatalogs(context, listener);
  }

  @Override
  public FlightInfo getFlightInfoSchemas(CommandGetDbSchemas request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoSchemas(request, context, descriptor);
  }

  @Override
  public void getStreamSchemas(CommandGetDbSchemas command, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamSchemas(command, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoTables(CommandGetTables request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoTables(request, context, descriptor);
  }

  @Override
  public void getStreamTables(CommandGetTables command, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamTables(command, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(CommandGetTableTypes request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoTableTypes(request, context, descriptor);
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    metadata.getStreamTableTypes(context, listener);
  }

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(CommandGetPrimaryKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoPrimaryKeys(request, context, descriptor);
  }

  @Override
  public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamPrimaryKeys(command, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoExportedKeys(CommandGetExportedKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoExportedKeys(request, context, descriptor);
  }

  @Override
  public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamExportedKeys(command, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoImportedKeys(CommandGetImportedKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoImportedKeys(request, context, descriptor);
  }

  @Override
  public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamImportedKeys(command, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoCrossReference(CommandGetCrossReference request, CallContext context,
      FlightDescriptor descriptor) {
    return metadata.getFlightInfoCrossReference(request, context, descriptor);
  }

  @Override
  public void getStreamCrossReference(CommandGetCrossReference command, CallContext context,
      ServerStreamListener listener) {
    metadata.getStreamCrossReference(command, context, listener);
  }

  /** SQL LIKE of a metadata name filter (see {@link MetadataCommands#like}). */
  static boolean like(String pattern, String value) {
    return MetadataCommands.like(pattern, value);
  }
}
