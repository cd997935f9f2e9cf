package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.quiver.planner.SqlFeatures;
import dev.quiver.planner.SqlFeatures.Feature;
import dev.quiver.planner.sql.FunctionCatalog;
import dev.quiver.planner.sql.SqlLimits;
import dev.quiver.sample.Lineitem;
import dev.quiver.server.QuiverServer;
import dev.quiver.server.ServerConfig;
import dev.quiver.server.Users;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the server tells clients about itself is true: SqlInfo's capability flags and function lists match
 * what queries do (through the JDBC driver), result metadata names the table columns, ListActions lists what
 * works, and errors of the protocol's edges are clear.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrustTest {
  @TempDir
  static Path dir;
  TestServer server;
  Connection jdbc;
  BufferAllocator allocator;
  FlightSqlClient client;

  @BeforeAll
  void start() throws Exception {
    Lineitem.write(dir.resolve("lineitem.parquet"), 0.001, Lineitem.Order.NATURAL, 1000, b -> b);
    server = TestServer.start(dir);
    jdbc = server.jdbc();
    allocator = new RootAllocator();
    client = server.flightSql(allocator);
  }

  @AfterAll
  void stop() throws Exception {
    client.close();
    jdbc.close();
    allocator.close();
    server.close();
  }

  /** Whether {@code sql} runs through JDBC and returns {@code expected} (as strings: JDBC's types vary). */
  private boolean works(String sql, List<List<Object>> expected) {
    try (Statement s = jdbc.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<List<String>> rows = new ArrayList<>();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) row.add(String.valueOf(rs.getObject(i)));
        rows.add(row);
      }
      List<List<String>> want = expected.stream().map(r -> r.stream().map(String::valueOf).toList()).toList();
      assertThat(rows).as("a query that runs gives the right rows: " + sql).isEqualTo(want);
      return true;
    } catch (SQLException e) {
      assertThat(e.getMessage()).as(sql).contains("not supported");
      return false;
    }
  }

  @Test
  void capabilityFlagsMatchWhatQueriesDo() throws Exception {
    DatabaseMetaData md = jdbc.getMetaData();
    Map<Feature, Boolean> claimed = new java.util.EnumMap<>(Feature.class);
    claimed.put(Feature.GROUP_BY_UNRELATED, md.supportsGroupByUnrelated());
    claimed.put(Feature.OUTER_JOIN, md.supportsLimitedOuterJoins());
    claimed.put(Feature.FULL_OUTER_JOIN, md.supportsFullOuterJoins());
    claimed.put(Feature.UNION, md.supportsUnion());
    claimed.put(Feature.UNION_ALL, md.supportsUnionAll());
    claimed.put(Feature.SUBQUERY_IN_COMPARISON, md.supportsSubqueriesInComparisons());
    claimed.put(Feature.SUBQUERY_IN_EXISTS, md.supportsSubqueriesInExists());
    claimed.put(Feature.SUBQUERY_IN_IN, md.supportsSubqueriesInIns());
    claimed.put(Feature.SUBQUERY_IN_QUANTIFIED, md.supportsSubqueriesInQuantifieds());
    claimed.put(Feature.CORRELATED_SUBQUERY, md.supportsCorrelatedSubqueries());
    claimed.put(Feature.EXPRESSION_IN_ORDER_BY, md.supportsExpressionsInOrderBy());
    claimed.put(Feature.ORDER_BY_UNRELATED, md.supportsOrderByUnrelated());
    claimed.put(Feature.LIKE_ESCAPE, md.supportsLikeEscapeClause());
    claimed.put(Feature.COLUMN_ALIASING, md.supportsColumnAliasing());
    for (var e : claimed.entrySet()) {
      Feature f = e.getKey();
      assertThat(e.getValue()).as(f + " is claimed exactly when it works: " + f.probe()).isEqualTo(works(f.probe(), f.expected()));
    }
    // the same over a real table, the way a BI tool would write it
    assertThat(md.supportsGroupBy()).isTrue();
    assertThat(works("SELECT count(*) FROM lineitem GROUP BY l_returnflag, l_linestatus HAVING count(*) < 0", List.of())).isTrue();
    assertThat(md.supportsOuterJoins()).isTrue();
    assertThat(md.supportsCorrelatedSubqueries()).isTrue();
    assertThat(md.supportsSubqueriesInExists() && md.supportsSubqueriesInIns() && md.supportsSubqueriesInComparisons()).isTrue();
    assertThat(md.supportsResultSetType(ResultSet.TYPE_FORWARD_ONLY)).isTrue();
    assertThat(md.supportsResultSetType(ResultSet.TYPE_SCROLL_SENSITIVE)).isFalse();
    assertThat(md.supportsTransactionIsolationLevel(java.sql.Connection.TRANSACTION_NONE)).isTrue();
    assertThat(md.supportsTransactionIsolationLevel(java.sql.Connection.TRANSACTION_SERIALIZABLE)).isFalse();
    assertThat(md.getMaxTablesInSelect()).isEqualTo(SqlLimits.DEFAULT.maxRelations());
    assertThat(md.getMaxStatementLength()).isEqualTo((int) SqlLimits.DEFAULT.maxStatementBytes());
    assertThat(works("SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey"
        + " WHERE a.l_orderkey < 0", List.of(List.of(0L)))).isTrue();
  }

  @Test
  void functionListsAreTheFunctionsThatBind() throws Exception {
    DatabaseMetaData md = jdbc.getMetaData();
    Map<FunctionCatalog.Category, String> lists = Map.of(FunctionCatalog.Category.NUMERIC, md.getNumericFunctions(),
        FunctionCatalog.Category.STRING, md.getStringFunctions(), FunctionCatalog.Category.DATETIME, md.getTimeDateFunctions(),
        FunctionCatalog.Category.SYSTEM, md.getSystemFunctions());
    for (var e : lists.entrySet()) {
      assertThat(e.getValue()).as(e.getKey().toString()).isNotEmpty();
      for (String name : e.getValue().split("\\s*,\\s*")) {
        FunctionCatalog.Entry entry = FunctionCatalog.ENTRIES.stream().filter(x -> x.name().equalsIgnoreCase(name))
            .findFirst().orElseThrow(() -> new AssertionError("listed but unknown: " + name));
        assertThat(entry.category()).isEqualTo(e.getKey());
        // the listed name works where a client would use it: in a query over a table
        String sql = "SELECT " + entry.example() + " FROM lineitem LIMIT 1";
        try (Statement s = jdbc.createStatement(); ResultSet rs = s.executeQuery(sql)) {
          assertThat(rs.next()).as(sql).isTrue();
        }
      }
    }
    assertThat(md.getNumericFunctions().split("\\s*,\\s*")).contains("ABS", "ROUND");
    assertThat(md.getStringFunctions().split("\\s*,\\s*")).contains("LOWER", "SUBSTRING", "TRIM");
    assertThat(md.getTimeDateFunctions().split("\\s*,\\s*")).contains("DATE_TRUNC", "EXTRACT", "CURRENT_DATE");
    assertThat(md.getSystemFunctions().split("\\s*,\\s*")).contains("COALESCE", "NULLIF");
  }

  /** The SqlInfo rows of a GetSqlInfo call with {@code ids}: info name to the value's union member. */
  private Map<Integer, Object> sqlInfo(int... ids) throws Exception {
    FlightInfo info = client.getSqlInfo(ids);
    Map<Integer, Object> out = new java.util.LinkedHashMap<>();
    try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (s.next()) {
        var names = (org.apache.arrow.vector.UInt4Vector) s.getRoot().getVector("info_name");
        DenseUnionVector values = (DenseUnionVector) s.getRoot().getVector("value");
        for (int i = 0; i < s.getRoot().getRowCount(); i++) {
          assertThat(out.put(names.get(i), values.getObject(i))).as("info " + names.get(i) + " once").isNull();
        }
      }
    }
    return out;
  }

  @Test
  void sqlInfoAnswersWhatIsAskedAndSaysCancelWorks() throws Exception {
    Map<Integer, Object> all = sqlInfo();
    assertThat(all.size()).isGreaterThan(69);
    assertThat(sqlInfo(99_999)).isEmpty(); // an id Quiver does not know: no row, not all of them
    assertThat(sqlInfo(99_999, SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE).keySet()).containsExactly(SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE);
    for (int id : all.keySet()) assertThat(sqlInfo(id).keySet()).containsExactly(id);
    assertThat(all.get(SqlInfo.FLIGHT_SQL_SERVER_CANCEL_VALUE)).isEqualTo(true);
    // and cancelling works: a CancelFlightInfo for a statement's FlightInfo is answered CANCELLED
    FlightInfo info = client.execute("SELECT * FROM lineitem");
    assertThat(client.cancelFlightInfo(new org.apache.arrow.flight.CancelFlightInfoRequest(info)).getStatus())
        .isEqualTo(org.apache.arrow.flight.CancelStatus.CANCELLED);
    assertThatThrownBy(() -> {
      try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
        while (s.next()) { /* drain */ }
      }
    }).isInstanceOf(FlightRuntimeException.class).hasMessageContaining("cancelled");
  }

  @Test
  void resultMetadataNamesTheTableColumnsAndTheirTypes() throws Exception {
    String sql = "SELECT l_orderkey, l_comment AS note, l_quantity, l_extendedprice * 2 AS twice, l_shipdate"
        + " FROM lineitem WHERE l_orderkey < 100 ORDER BY l_orderkey LIMIT 5";
    try (Statement s = jdbc.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData m = rs.getMetaData();
      assertThat(m.getColumnCount()).isEqualTo(5);
      for (int c : new int[] {1, 2, 3, 5}) {
        assertThat(m.getTableName(c)).as("column " + c).isEqualTo("lineitem");
        assertThat(m.getSchemaName(c)).isEqualTo("main");
        assertThat(m.getCatalogName(c)).isEqualTo("quiver");
      }
      assertThat(m.getTableName(4)).isNullOrEmpty(); // computed
      assertThat(m.getColumnLabel(2)).isEqualTo("note");
      assertThat(m.getPrecision(1)).isEqualTo(19);
      assertThat(m.getPrecision(3)).isEqualTo(12);
      assertThat(m.getScale(3)).isEqualTo(2);
      assertThat(m.getPrecision(5)).isEqualTo(10);
      assertThat(m.isNullable(1)).isEqualTo(ResultSetMetaData.columnNoNulls);
      assertThat(m.isCaseSensitive(2)).isTrue();
      assertThat(m.isCaseSensitive(1)).isFalse();
      assertThat(rs.next()).isTrue();
    }
    // prepare, GetFlightInfo, GetSchema and DoGet send the same schema, metadata included
    try (FlightSqlClient.PreparedStatement ps = client.prepare(sql)) {
      Schema prepared = ps.getResultSetSchema();
      FlightInfo info = ps.execute();
      assertThat(info.getSchemaOptional().orElseThrow()).isEqualTo(prepared);
      try (FlightStream st = client.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(st.getSchema()).isEqualTo(prepared);
      }
      assertThat(client.getExecuteSchema(sql).getSchema()).isEqualTo(prepared);
      Field orderkey = prepared.getFields().get(0);
      assertThat(new FlightSqlColumnMetadata(orderkey.getMetadata()).getTableName()).isEqualTo("lineitem");
      assertThat(new FlightSqlColumnMetadata(prepared.getFields().get(3).getMetadata()).getTableName()).isNull();
    }
  }

  @Test
  void listActionsListsWhatIsImplementedAndNothingElse() throws Exception {
    try (FlightClient raw = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      Set<String> listed = new TreeSet<>();
      for (ActionType t : raw.listActions()) listed.add(t.getType());
      assertThat(listed).containsExactlyInAnyOrder("CreatePreparedStatement", "ClosePreparedStatement", "CancelFlightInfo",
          "CancelQuery", "SetSessionOptions", "GetSessionOptions", "CloseSession");
      Set<String> every = new HashSet<>(listed);
      for (ActionType t : org.apache.arrow.flight.sql.FlightSqlUtils.FLIGHT_SQL_ACTIONS) every.add(t.getType());
      every.addAll(List.of("RenewFlightEndpoint", "CreatePreparedSubstraitPlan", "BeginTransaction", "frobnicate"));
      for (String type : every) {
        FlightStatusCode code = call(raw, type, new byte[] {1, 2, 3});
        if (listed.contains(type)) {
          assertThat(code).as(type + " with a garbage body").isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
        } else {
          assertThat(code).as(type + " is not listed, so it is not implemented").isEqualTo(FlightStatusCode.UNIMPLEMENTED);
        }
      }
    }
  }

  private static FlightStatusCode call(FlightClient raw, String type, byte[] body) {
    try {
      raw.doAction(new Action(type, body)).forEachRemaining(r -> { });
      return FlightStatusCode.OK;
    } catch (FlightRuntimeException e) {
      assertThat(e.getMessage()).as(type).doesNotContain("com.google").doesNotContain("Exception").isNotBlank();
      return e.status().code();
    }
  }

  @Test
  void cancelFlightInfoWithAMalformedBodyIsInvalidArgument() throws Exception {
    try (FlightClient raw = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      assertThatThrownBy(() -> raw.doAction(new Action("CancelFlightInfo", "garbage, not a protobuf".getBytes()))
          .forEachRemaining(r -> { }))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("malformed CancelFlightInfo request")
          .message().doesNotContain("com.google").doesNotContain("protobuf");
    }
  }

  @Test
  void aClosedPreparedStatementHandleIsRefused() throws Exception {
    try (FlightClient raw = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      String sql = "SELECT count(*) FROM lineitem";
      ByteString first = prepare(raw, sql);
      ByteString second = prepare(raw, sql); // the same SQL: another statement, closed separately
      assertThat(first).isNotEqualTo(second);
      FlightDescriptor d1 = command(first);
      FlightInfo before = raw.getInfo(d1);
      close(raw, first);
      assertThatThrownBy(() -> raw.getInfo(d1))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
          .hasMessageContaining("was closed");
      close(raw, first); // closing twice is fine
      assertThat(raw.getInfo(command(second)).getEndpoints()).hasSize(1);
      // a ticket issued before the close is still good: the result was already asked for
      try (FlightStream s = raw.getStream(before.getEndpoints().get(0).getTicket())) {
        assertThat(s.next()).isTrue();
      }
      close(raw, second);
    }
  }

  private static ByteString prepare(FlightClient raw, String sql) throws Exception {
    var request = FlightSql.ActionCreatePreparedStatementRequest.newBuilder().setQuery(sql).build();
    var results = raw.doAction(new Action("CreatePreparedStatement", Any.pack(request).toByteArray()));
    Result r = results.next();
    results.forEachRemaining(x -> { });
    return Any.parseFrom(r.getBody()).unpack(FlightSql.ActionCreatePreparedStatementResult.class).getPreparedStatementHandle();
  }

  private static void close(FlightClient raw, ByteString handle) {
    var request = FlightSql.ActionClosePreparedStatementRequest.newBuilder().setPreparedStatementHandle(handle).build();
    raw.doAction(new Action("ClosePreparedStatement", Any.pack(request).toByteArray())).forEachRemaining(x -> { });
  }

  private static FlightDescriptor command(ByteString handle) {
    return FlightDescriptor.command(Any.pack(FlightSql.CommandPreparedStatementQuery.newBuilder()
        .setPreparedStatementHandle(handle).build()).toByteArray());
  }

  @Test
  void setFromAClientThatKeepsNoCookieSaysItHasNoEffect() throws Exception {
    // FlightSqlClient without cookie middleware, as pyarrow's and ADBC's default clients: the SET's DoGet comes
    // without the session cookie its GetFlightInfo was answered with
    FlightInfo info = client.execute("SET quiver.batch_rows = 7");
    assertThatThrownBy(() -> {
      try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
        while (s.next()) { /* drain */ }
      }
    }).isInstanceOf(FlightRuntimeException.class)
        .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("SET would have no effect").hasMessageContaining("cookie");
    // a client that keeps the cookie: the SET holds (SHOW sees it), on the statement path as on the prepared one
    try (FlightSqlClient withCookies = server.flightSqlSession(allocator)) {
      FlightInfo set = withCookies.execute("SET quiver.batch_rows = 7");
      try (FlightStream s = withCookies.getStream(set.getEndpoints().get(0).getTicket())) {
        while (s.next()) { /* drain */ }
      }
      FlightInfo show = withCookies.execute("SHOW quiver.batch_rows");
      try (FlightStream s = withCookies.getStream(show.getEndpoints().get(0).getTicket())) {
        assertThat(s.next()).isTrue();
        assertThat(s.getRoot().getVector("setting").getObject(0).toString()).isEqualTo("7");
      }
    }
    try (Statement s = jdbc.createStatement()) {
      s.execute("SET quiver.batch_rows = 9");
      assertThat(TestServer.rows(jdbc, "SHOW quiver.batch_rows").get(0).get(1).toString()).isEqualTo("9");
      s.execute("SET quiver.batch_rows = 32768");
    }
  }

  @Test
  void unauthenticatedCallsAreToldWhatToSend() throws Exception {
    Path data = dir.resolve("lineitem.parquet");
    try (QuiverServer secured = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0)
            .withUsers(Users.none().with("alice", "s3cret")));
        BufferAllocator a = new RootAllocator();
        FlightClient raw = FlightClient.builder(a, Location.forGrpcInsecure("127.0.0.1", secured.port())).build()) {
      FlightSqlClient anonymous = new FlightSqlClient(raw);
      assertThatThrownBy(() -> anonymous.execute("SELECT 1"))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED))
          .hasMessageContaining("authentication required").hasMessageContaining("user name and password");
      assertThatThrownBy(() -> raw.handshake())
          .isInstanceOf(FlightRuntimeException.class)
          .hasMessageContaining("authentication required");
      var bearer = new org.apache.arrow.flight.grpc.CredentialCallOption(
          new org.apache.arrow.flight.auth2.BearerCredentialWriter("not-a-token"));
      assertThatThrownBy(() -> anonymous.execute("SELECT 1", bearer))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED))
          .hasMessageContaining("bearer token");
    }
  }
}
