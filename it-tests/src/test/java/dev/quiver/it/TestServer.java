package dev.quiver.it;

import dev.quiver.server.QuiverServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;

/** A real Quiver server on a free loopback port, and real clients for it. Closing it fails on leaks. */
final class TestServer implements AutoCloseable {
  private final QuiverServer server;

  private TestServer(QuiverServer server) {
    this.server = server;
  }

  static TestServer start(Path data) throws Exception {
    return start(data, QuiverServer.DEFAULT_QUERY_MEMORY);
  }

  static TestServer start(Path data, long queryMemory) throws Exception {
    return new TestServer(QuiverServer.start(data.toString(), "127.0.0.1", 0, queryMemory));
  }

  /** A server on a data location as {@code --data} takes it: a local path or a Hadoop URI ({@code hdfs://...}). */
  static TestServer start(String data) throws Exception {
    return new TestServer(QuiverServer.start(data, "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY));
  }

  /** A server as {@code config} says (e.g. {@code ServerConfig.of(...).withUsers(...)}). */
  static TestServer start(dev.quiver.server.ServerConfig config) throws Exception {
    return new TestServer(QuiverServer.start(config));
  }

  /**
   * Two replicas of {@code data} on free loopback ports, each with the other as its peer (--peers), one shared
   * ticket secret (--token-secret-file) and {@code maxEndpoints} (--max-endpoints): both start first, then learn
   * each other's port.
   */
  static TestServer[] replicas(Path data, int maxEndpoints) throws Exception {
    return replicas(dev.quiver.server.ServerConfig.of(data.toString(), "127.0.0.1", 0), maxEndpoints);
  }

  /** As above, each replica as {@code config} says (its port 0: a free one). */
  static TestServer[] replicas(dev.quiver.server.ServerConfig config, int maxEndpoints) throws Exception {
    TestServer a = start(config);
    TestServer b;
    try {
      b = start(config);
    } catch (Exception e) {
      a.close();
      throw e;
    }
    byte[] secret = "replicas-test-secret".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    a.server.scaleOut(new QuiverServer.ScaleOut(maxEndpoints, List.of(b.location()), null, secret));
    b.server.scaleOut(new QuiverServer.ScaleOut(maxEndpoints, List.of(a.location()), null, secret));
    return new TestServer[] {a, b};
  }

  /** One server without peers splitting into up to {@code maxEndpoints} endpoints without locations (--max-endpoints). */
  static TestServer splitting(Path data, int maxEndpoints) throws Exception {
    TestServer s = start(data);
    s.server.scaleOut(new QuiverServer.ScaleOut(maxEndpoints, List.of(), null, null));
    return s;
  }

  /** The server's Flight location, grpc://127.0.0.1:PORT. */
  Location location() {
    return server.location();
  }

  /** A server on {@code data} with the web console on a free loopback port: {@link #consoleUrl()}. */
  static TestServer startWithConsole(Path data) throws Exception {
    return start(dev.quiver.server.ServerConfig.of(data.toString(), "127.0.0.1", 0).withConsole("127.0.0.1", 0));
  }

  /** The web console's base URL, {@code http://127.0.0.1:PORT/} (null when started without the console). */
  String consoleUrl() {
    return server.consoleUrl();
  }

  int port() {
    return server.port();
  }

  /** The Hadoop configuration the server reads its files through. */
  org.apache.hadoop.conf.Configuration hadoopConf() {
    return server.fileSystems().conf();
  }

  /** Queries streaming right now. */
  int runningQueries() {
    return server.runningQueries();
  }

  /** Statements parsed, analyzed and optimized so far (a test hook: plan once per execution). */
  long plansBuilt() {
    return server.plansBuilt();
  }

  Connection jdbc() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl());
  }

  /** A connection whose session has pruning off ({@code quiver.scan.pruning = false}): the same answers, read whole. */
  Connection jdbcWithoutPruning() throws SQLException {
    Connection c = jdbc();
    try (java.sql.Statement s = c.createStatement()) {
      s.execute("SET quiver.scan.pruning = false");
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  String jdbcUrl() {
    return server.jdbcUrl();
  }

  FlightSqlClient flightSql(BufferAllocator allocator) {
    return new FlightSqlClient(FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", port())).build());
  }

  /** A client that keeps the server's session cookie, so {@code SET} values hold for its later calls. */
  FlightSqlClient flightSqlSession(BufferAllocator allocator) {
    return new FlightSqlClient(FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", port()))
        .intercept(new org.apache.arrow.flight.client.ClientCookieMiddleware.Factory()).build());
  }

  /** All rows of a query as lists of {@code getObject} values. */
  static List<List<Object>> rows(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      List<List<Object>> out = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          // the 18.3.0 driver's getObject is "not implemented" for TIMESTAMP WITH TIME ZONE; getTimestamp works
          boolean zoned = rs.getMetaData().getColumnType(i) == java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
          row.add(zoned ? rs.getTimestamp(i) : rs.getObject(i));
        }
        out.add(row);
      }
      return out;
    }
  }

  static long scalarLong(Connection c, String sql) throws SQLException {
    List<List<Object>> rows = rows(c, sql);
    return ((Number) rows.get(0).get(0)).longValue();
  }

  /** The plan lines of {@code EXPLAIN ...}. */
  static List<String> explain(Connection c, String sql) throws SQLException {
    List<String> lines = new ArrayList<>();
    for (List<Object> r : rows(c, sql)) lines.add(r.get(0).toString());
    return lines;
  }

  /** The {@code key=value} metrics of the ParquetScanExec line of an EXPLAIN ANALYZE. */
  static Map<String, Long> scanMetrics(Connection c, String query) throws SQLException {
    String line = explain(c, "EXPLAIN ANALYZE " + query).stream().filter(l -> l.contains("ParquetScanExec")).findFirst()
        .orElseThrow(() -> new AssertionError("no ParquetScanExec line for " + query));
    Map<String, Long> m = new LinkedHashMap<>();
    Matcher matcher = Pattern.compile("(\\w+)=(\\d+)(?=\\s|$)").matcher(line);
    while (matcher.find()) m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
    return m;
  }

  @Override
  public void close() throws Exception {
    server.close();
  }
}
