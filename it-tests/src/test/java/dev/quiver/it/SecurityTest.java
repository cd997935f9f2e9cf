package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.quiver.sample.Events;
import dev.quiver.server.QuiverServer;
import dev.quiver.server.ServerConfig;
import dev.quiver.server.Users;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlUtils;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.flight.sql.util.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security with users on: every RPC a Flight SQL client can make is UNAUTHENTICATED without (or with wrong or
 * forged) credentials; one user's prepared statements, tickets and FlightInfos are NOT_FOUND for another (a
 * handle is signed and names its user); no table name reaches a file outside the data directory (names are
 * looked up among the tables listed at start, never resolved as paths), while a symbolic link the
 * administrator placed in the data directory is served like the file or directory it points to; and error
 * messages show neither a Java stack nor Java class names (SQL errors) nor the data directory's path.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityTest {
  static final int ROWS = 200;

  @TempDir
  static Path dir;
  Path data;
  QuiverServer server;
  BufferAllocator allocator;
  FlightClient raw;
  FlightSqlClient sql;
  CallOption alice;
  CallOption bob;

  @BeforeAll
  void start() throws Exception {
    data = Files.createDirectories(dir.resolve("data"));
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Events.write(data.resolve("events.parquet"), ROWS, 3, 100);
    Events.write(outside.resolve("secret.parquet"), 7, 4, 100);
    Files.createDirectories(outside.resolve("secretdir"));
    Events.write(outside.resolve("secretdir/part.parquet"), 5, 5, 100);
    // placed by the administrator: links in the served directory to data kept elsewhere
    Files.createSymbolicLink(data.resolve("linked.parquet"), outside.resolve("secret.parquet"));
    Files.createSymbolicLink(data.resolve("linkeddir"), outside.resolve("secretdir"));
    Files.write(data.resolve("broken.parquet"), "PAR1 this is no Parquet file PAR1".getBytes(StandardCharsets.UTF_8));
    server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0)
        .withUsers(Users.none().with("alice", "s3cret").with("bob", "hunter2")));
    allocator = new RootAllocator();
    raw = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
    sql = new FlightSqlClient(raw);
    alice = raw.authenticateBasicToken("alice", "s3cret").orElseThrow();
    bob = raw.authenticateBasicToken("bob", "hunter2").orElseThrow();
  }

  @AfterAll
  void stop() throws Exception {
    sql.close();
    allocator.close();
    server.close();
  }

  private static FlightStatusCode status(Runnable call) {
    Throwable t = catchThrowable(call::run);
    assertThat(t).isInstanceOf(FlightRuntimeException.class);
    return ((FlightRuntimeException) t).status().code();
  }

  private FlightRuntimeException error(Runnable call) {
    Throwable t = catchThrowable(call::run);
    assertThat(t).isInstanceOf(FlightRuntimeException.class);
    return (FlightRuntimeException) t;
  }

  /** Reads a stream to its end (errors of a DoGet surface while reading). */
  private long drain(Ticket ticket, CallOption... options) {
    long rows = 0;
    try (FlightStream s = sql.getStream(ticket, options)) {
      while (s.next()) rows += s.getRoot().getRowCount();
    } catch (FlightRuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return rows;
  }

  private long count(String query, CallOption who) {
    FlightInfo info = sql.execute(query, who);
    try (FlightStream s = sql.getStream(info.getEndpoints().get(0).getTicket(), who)) {
      assertThat(s.next()).isTrue();
      return ((Number) s.getRoot().getVector(0).getObject(0)).longValue();
    } catch (Exception e) {
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }

  /** The raw handle of a prepared statement, through the DoAction a Flight SQL client makes. */
  private ByteString prepareRaw(String query, CallOption who) throws Exception {
    Any request = Any.pack(FlightSql.ActionCreatePreparedStatementRequest.newBuilder().setQuery(query).build());
    Iterator<Result> results = raw.doAction(new Action(FlightSqlUtils.FLIGHT_SQL_CREATE_PREPARED_STATEMENT.getType(),
        request.toByteArray()), who);
    ByteString handle = Any.parseFrom(results.next().getBody()).unpack(FlightSql.ActionCreatePreparedStatementResult.class)
        .getPreparedStatementHandle();
    while (results.hasNext()) results.next();
    return handle;
  }

  private static FlightDescriptor preparedDescriptor(ByteString handle) {
    return FlightDescriptor.command(Any.pack(FlightSql.CommandPreparedStatementQuery.newBuilder()
        .setPreparedStatementHandle(handle).build()).toByteArray());
  }

  @Test
  void everyRpcWithoutCredentialsIsUnauthenticated() throws Exception {
    // what alice legitimately holds, which an anonymous caller then tries to use
    FlightInfo info = sql.execute("SELECT count(*) FROM events", alice);
    Ticket ticket = info.getEndpoints().get(0).getTicket();
    FlightSqlClient.PreparedStatement prepared = sql.prepare("SELECT count(*) FROM events WHERE event_id < ?", alice);
    TableRef events = TableRef.of(null, null, "events");
    List<Runnable> calls = new ArrayList<>(List.of(
        () -> sql.execute("SELECT 1"),                                   // GetFlightInfo(CommandStatementQuery)
        () -> sql.getExecuteSchema("SELECT 1"),                          // GetSchema
        () -> sql.prepare("SELECT 1"),                                   // DoAction(CreatePreparedStatement)
        () -> prepared.fetchSchema(),                                    // GetSchema(CommandPreparedStatementQuery)
        () -> prepared.execute(),                                        // GetFlightInfo(CommandPreparedStatementQuery)
        () -> drain(ticket),                                             // DoGet with alice's ticket
        () -> sql.getSqlInfo(FlightSql.SqlInfo.FLIGHT_SQL_SERVER_NAME),   // GetFlightInfo(CommandGetSqlInfo)
        () -> sql.getTables(null, null, "%", null, true),
        () -> sql.getCatalogs(),
        () -> sql.getSchemas(null, null),
        () -> sql.getTableTypes(),
        () -> sql.getXdbcTypeInfo(),
        () -> sql.getPrimaryKeys(events),
        () -> sql.getExportedKeys(events),
        () -> sql.getImportedKeys(events),
        () -> sql.getCrossReference(events, events),
        () -> sql.executeUpdate("SET quiver.statement_timeout_ms = 1"),  // DoPut(CommandStatementUpdate)
        () -> sql.cancelFlightInfo(new CancelFlightInfoRequest(info)),   // DoAction(CancelFlightInfo)
        () -> sql.setSessionOptions(new SetSessionOptionsRequest(java.util.Map.of("quiver.scan.pruning",
            SessionOptionValueFactory.makeSessionOptionValue("false")))),
        () -> sql.getSessionOptions(new GetSessionOptionsRequest()),
        () -> sql.closeSession(new CloseSessionRequest()),
        () -> raw.listActions().forEach(a -> { }),
        () -> raw.listFlights(Criteria.ALL).forEach(f -> { }),
        () -> raw.getInfo(FlightDescriptor.command(info.getDescriptor().getCommand())),
        () -> raw.doAction(new Action("CancelFlightInfo", new byte[0])).hasNext()));
    // DoPut of parameter values into alice's prepared statement
    try (VectorSchemaRoot params = VectorSchemaRoot.create(prepared.getParameterSchema(), allocator)) {
      BigIntVector v = (BigIntVector) params.getVector(0);
      v.allocateNew(1);
      v.set(0, 10);
      params.setRowCount(1);
      prepared.setParameters(params);
      calls.add(() -> prepared.execute());
      for (int i = 0; i < calls.size(); i++) {
        assertThat(status(calls.get(i))).as("call %d", i).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
      }
      // nothing of it touched alice's statements, which still work for her
      assertThat(drain(prepared.execute(alice).getEndpoints().get(0).getTicket(), alice)).isEqualTo(1);
      // DoAction(ClosePreparedStatement) last: the client marks the statement closed whatever the answer
      assertThat(status(() -> prepared.close())).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
    }
    assertThat(drain(ticket, alice)).isEqualTo(1);
  }

  @Test
  void garbageTicketsAndCommandsAreRefusedCleanly() {
    byte[] junk = "not a protobuf at all \u0000\u00ff".getBytes(StandardCharsets.UTF_8);
    byte[] foreign = Any.pack(FlightSql.CommandGetCatalogs.getDefaultInstance()).toByteArray();
    List<Runnable> calls = List.of(
        () -> drain(new Ticket(junk), alice),
        () -> drain(new Ticket(new byte[0]), alice),
        () -> drain(new Ticket(Any.pack(FlightSql.TicketStatementQuery.newBuilder()
            .setStatementHandle(ByteString.copyFromUtf8("forged")).build()).toByteArray()), alice),
        () -> raw.getInfo(FlightDescriptor.command(junk), alice),
        () -> raw.getInfo(FlightDescriptor.path("events"), alice),
        () -> raw.getSchema(FlightDescriptor.path("events"), alice),
        () -> {
          try (VectorSchemaRoot empty = VectorSchemaRoot.create(new org.apache.arrow.vector.types.pojo.Schema(List.of()), allocator)) {
            FlightClient.ClientStreamListener put = raw.startPut(FlightDescriptor.path("events"), empty,
                new org.apache.arrow.flight.AsyncPutListener(), alice);
            put.completed();
            put.getResult();
          }
        },
        () -> raw.getSchema(FlightDescriptor.command(junk), alice),
        () -> sql.cancelFlightInfo(new CancelFlightInfoRequest(new FlightInfo(new org.apache.arrow.vector.types.pojo.Schema(
            List.of()), FlightDescriptor.command(junk), List.of(new org.apache.arrow.flight.FlightEndpoint(new Ticket(junk))),
            -1, -1)), alice),
        () -> sql.cancelFlightInfo(new CancelFlightInfoRequest(new FlightInfo(new org.apache.arrow.vector.types.pojo.Schema(
            List.of()), FlightDescriptor.command(junk), List.of(new org.apache.arrow.flight.FlightEndpoint(new Ticket(foreign))),
            -1, -1)), alice),
        () -> raw.doAction(new Action(FlightSqlUtils.FLIGHT_SQL_CREATE_PREPARED_STATEMENT.getType(), junk), alice).hasNext(),
        () -> raw.doAction(new Action(FlightSqlUtils.FLIGHT_SQL_CLOSE_PREPARED_STATEMENT.getType(), junk), alice).hasNext(),
        () -> raw.doAction(new Action("no-such-action", junk), alice).hasNext());
    for (int i = 0; i < calls.size(); i++) {
      FlightRuntimeException e = error(calls.get(i));
      assertThat(e.status().code()).as("call %d: %s", i, e.getMessage())
          .isNotIn(FlightStatusCode.INTERNAL, FlightStatusCode.UNKNOWN, FlightStatusCode.UNAVAILABLE);
      assertThat(e.status().description()).as("call %d", i).doesNotContain("\tat ");
    }
  }

  @Test
  void wrongOrForgedCredentialsAreUnauthenticated() {
    assertThat(status(() -> raw.authenticateBasicToken("alice", "wrong"))).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
    assertThat(status(() -> raw.authenticateBasicToken("mallory", "s3cret"))).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
    assertThat(status(() -> raw.authenticateBasicToken("", ""))).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
    CallOption forged = new CredentialCallOption(new BearerCredentialWriter("a-token-the-server-never-issued"));
    assertThat(status(() -> sql.execute("SELECT 1", forged))).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
    assertThat(status(() -> sql.getTables(null, null, null, null, false, forged))).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
  }

  @Test
  void preparedStatementsTicketsAndFlightInfosStayWithTheirUser() throws Exception {
    FlightSqlClient.PreparedStatement mine = sql.prepare("SELECT count(*) FROM events WHERE event_id < ?", alice);
    try (VectorSchemaRoot params = VectorSchemaRoot.create(mine.getParameterSchema(), allocator)) {
      BigIntVector v = (BigIntVector) params.getVector(0);
      v.allocateNew(1);
      v.set(0, 1_000_000);
      params.setRowCount(1);
      // bob replays alice's handle: fetching its schema, executing it, binding parameters into it (DoPut)
      assertThat(status(() -> mine.fetchSchema(bob))).isEqualTo(FlightStatusCode.NOT_FOUND);
      mine.setParameters(params);
      assertThat(status(() -> mine.execute(bob))).isEqualTo(FlightStatusCode.NOT_FOUND);
      FlightInfo hers = mine.execute(alice);
      Ticket ticket = hers.getEndpoints().get(0).getTicket();
      // bob redeems alice's ticket, or cancels her query
      assertThat(status(() -> drain(ticket, bob))).isEqualTo(FlightStatusCode.NOT_FOUND);
      assertThat(status(() -> sql.cancelFlightInfo(new CancelFlightInfoRequest(hers), bob))).isEqualTo(FlightStatusCode.NOT_FOUND);
      assertThat(drain(ticket, alice)).isEqualTo(1); // not cancelled
      mine.close(alice);
    }
    // a statement's ticket, and the raw handle itself, the same way
    Ticket statementTicket = sql.execute("SELECT count(*) FROM events", alice).getEndpoints().get(0).getTicket();
    assertThat(status(() -> drain(statementTicket, bob))).isEqualTo(FlightStatusCode.NOT_FOUND);
    ByteString handle = prepareRaw("SELECT count(*) FROM events", alice);
    assertThat(raw.getInfo(preparedDescriptor(handle), alice).getEndpoints()).hasSize(1);
    FlightRuntimeException e = error(() -> raw.getInfo(preparedDescriptor(handle), bob));
    assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
    assertThat(e.getMessage()).contains("unknown or expired statement handle").doesNotContain("SELECT").doesNotContain("alice");
    // a handle alice alters (to claim bob's name, or to change its SQL) is no handle at all: it is signed
    for (int at : new int[] {1, 3, handle.size() / 2, handle.size() - 1}) {
      byte[] forged = handle.toByteArray();
      forged[at] ^= 0x20;
      assertThat(status(() -> raw.getInfo(preparedDescriptor(ByteString.copyFrom(forged)), alice)))
          .isEqualTo(FlightStatusCode.NOT_FOUND);
    }
    assertThat(status(() -> raw.getInfo(preparedDescriptor(ByteString.copyFromUtf8("x")), alice)))
        .isEqualTo(FlightStatusCode.NOT_FOUND);
  }

  @Test
  void tableNamesCannotReachFilesOutsideTheDataDirectory() {
    for (String name : List.of("\"../outside/secret\"", "\"../outside/secret.parquet\"", "\"../data/events\"",
        "quiver.main.\"../outside/secret\"", "main.\"../outside/secret\"", "\"" + dir.resolve("outside/secret") + "\"",
        "\"" + dir.resolve("outside/secret.parquet") + "\"", "\"/etc/passwd\"", "\"file:///etc/passwd\"",
        "\"..\\\\outside\\\\secret\"", "\"events/../../outside/secret\"", "\"./events\"", "\"events.parquet\"",
        "\"%2e%2e%2foutside%2fsecret\"", "`../outside/secret`", "secret", "secretdir", "outside", "\"..\"", "\".\"",
        "\"\"", "\"linkeddir/part\"", "\"linkeddir/../secret\"", "\"" + data + "\"", "quiver.\"..\".events",
        "\"..\".main.events", "\"../outside\".secret")) {
      FlightRuntimeException e = error(() -> count("SELECT count(*) FROM " + name, alice));
      assertThat(e.status().code()).as(name).isIn(FlightStatusCode.NOT_FOUND, FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.status().description()).as(name).doesNotContain("\tat ");
      if (!name.contains(dir.toString())) assertThat(e.status().description()).as(name).doesNotContain(dir.toString());
    }
    // the metadata calls list only the tables of the data directory
    List<String> tables = new ArrayList<>();
    try (FlightStream s = sql.getStream(sql.getTables(null, null, "%", null, false, alice).getEndpoints().get(0).getTicket(),
        alice)) {
      while (s.next()) {
        for (int i = 0; i < s.getRoot().getRowCount(); i++) tables.add(s.getRoot().getVector("table_name").getObject(i).toString());
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    assertThat(tables).containsExactlyInAnyOrder("broken", "events", "linked", "linkeddir");
    assertThat(drain(sql.getTables(null, null, "../%", null, false, alice).getEndpoints().get(0).getTicket(), alice))
        .isZero();
  }

  @Test
  void symbolicLinksTheAdministratorPlacedInTheDataDirectoryAreServed() {
    // decided: the data directory is what the administrator serves, links included; a name never leaves it
    assertThat(count("SELECT count(*) FROM linked", alice)).isEqualTo(7);
    assertThat(count("SELECT count(*) FROM linkeddir", bob)).isEqualTo(5);
    assertThat(count("SELECT count(*) FROM events", bob)).isEqualTo(ROWS);
  }

  @Test
  void errorMessagesShowNoInternalsNorTheDataDirectory() {
    String[] paths = {dir.toString(), data.toString(), data.toUri().toString()};
    Function<String, FlightRuntimeException> failing = q -> error(() -> count(q, alice));
    for (String q : List.of("SELEC 1", "SELECT 'unclosed", "SELECT nope FROM events", "SELECT * FROM nope",
        "SELECT event_id + 'x' FROM events", "SELECT sum(kind) FROM events", "SELECT first_value(kind IGNORE NULLS) OVER () FROM events",
        "SELECT CAST('x' AS INTEGER)", "SELECT 1/0", "SELECT regexp_like('a', '(')", "SELECT " + "(".repeat(300) + "1" + ")".repeat(300),
        "SELECT " + "x".repeat(2_000_000), "INSERT INTO events VALUES (1)", "SELECT * FROM broken")) {
      FlightRuntimeException e = failing.apply(q);
      String d = e.status().description();
      String shown = q.length() > 100 ? q.substring(0, 100) : q;
      assertThat(e.status().code()).as(shown).isNotIn(FlightStatusCode.INTERNAL, FlightStatusCode.UNAVAILABLE);
      assertThat(d).as(shown).isNotBlank().doesNotContain("\tat ").hasSizeLessThan(4_000);
      for (String p : paths) assertThat(d).as(shown).doesNotContain(p);
      if (e.status().code() != FlightStatusCode.UNKNOWN) {
        // SQL errors name no Java class; a corrupt file's error may quote its reader's (parquet-java's) exception
        assertThat(d).as(shown).doesNotContainPattern("\\w(Exception|Error):|\\b(java|org\\.apache|net\\.sf)\\.[a-z]+\\.");
      }
    }
    FlightRuntimeException corrupt = failing.apply("SELECT * FROM broken");
    assertThat(corrupt.status().code()).isEqualTo(FlightStatusCode.UNKNOWN);
    assertThat(corrupt.status().description()).contains("broken.parquet").contains("table broken cannot be read");
    // the statement size limit answers before anything reads the statement
    FlightRuntimeException big = failing.apply("SELECT '" + "x".repeat(2 << 20) + "'");
    assertThat(big.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
    assertThat(big.status().description()).contains("over the limit of 1048576 bytes per statement");
  }
}
