package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.SampleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scaling out: two replicas of the sample data with each other as --peers. A scan/filter/project query with
 * {@code quiver.max_endpoints} 4 has 4 endpoints spread over both replicas; the JDBC driver and FlightSqlClient read
 * every endpoint from its location and get the one-endpoint answer; an aggregate keeps one endpoint; a file replaced
 * between GetFlightInfo and DoGet fails the fragment clearly and the servers keep serving. (ADBC: {@link AdbcTest}.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScaleOutTest {
  /** Row group 0 of lineitem (shipdates 1992-01-03..1992-11-17) is pruned; the other 9 survive. */
  static final String QUERY = "SELECT l_orderkey, l_linenumber, l_quantity, l_extendedprice * (1 - l_discount) AS rev,"
      + " l_shipmode FROM lineitem WHERE l_shipdate >= DATE '1993-01-01'";

  @TempDir
  static Path dir;
  Path data;
  TestServer[] replicas;

  @BeforeAll
  void start() throws Exception {
    Path sample = SampleData.ensure();
    data = Files.createDirectories(dir.resolve("data"));
    Files.copy(sample.resolve("lineitem.parquet"), data.resolve("lineitem.parquet"));
    replicas = TestServer.replicas(data, 1);
  }

  @AfterAll
  void stop() throws Exception {
    for (TestServer r : replicas) r.close();
  }

  private static Map<List<Object>, Integer> multiset(List<List<Object>> rows) {
    Map<List<Object>, Integer> m = new HashMap<>();
    for (List<Object> r : rows) m.merge(r, 1, Integer::sum);
    return m;
  }

  private Connection jdbc(TestServer s, int maxEndpoints) throws Exception {
    Connection c = DriverManager.getConnection(s.jdbcUrl());
    try (java.sql.Statement st = c.createStatement()) {
      st.execute("SET quiver.max_endpoints = " + maxEndpoints);
    }
    return c;
  }

  @Test
  void jdbcReadsFourEndpointsAcrossBothReplicasAndGetsTheOneEndpointAnswer() throws Exception {
    List<List<Object>> one;
    List<List<Object>> four;
    try (Connection c = jdbc(replicas[0], 1)) {
      one = TestServer.rows(c, QUERY);
    }
    try (Connection c = jdbc(replicas[0], 4)) {
      assertThat(TestServer.rows(c, "SHOW quiver.max_endpoints").get(0).get(1)).isEqualTo("4");
      long plannedByPeer = replicas[1].plansBuilt();
      four = TestServer.rows(c, QUERY);
      // the driver fetched endpoints 2 and 4 from the peer, which planned each fragment
      assertThat(replicas[1].plansBuilt() - plannedByPeer).isEqualTo(2);
    }
    long expected;
    try (Connection c = DriverManager.getConnection(replicas[1].jdbcUrl())) {
      expected = TestServer.scalarLong(c, "SELECT count(*) FROM lineitem WHERE l_shipdate >= DATE '1993-01-01'");
    }
    assertThat(one).hasSize((int) expected);
    assertThat(four).hasSize(one.size());
    assertThat(multiset(four)).isEqualTo(multiset(one));
  }

  @Test
  void flightInfoHasFourEndpointsRoundRobinOverBothReplicasEachReadFromItsLocation() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient client = replicas[0].flightSqlSession(a)) {
      client.executeUpdate("SET quiver.max_endpoints = 4");
      FlightInfo info = client.execute(QUERY);
      assertThat(info.getEndpoints()).hasSize(4);
      List<Location> locations = new ArrayList<>();
      for (FlightEndpoint e : info.getEndpoints()) {
        assertThat(e.getLocations()).hasSize(1);
        locations.add(e.getLocations().get(0));
      }
      assertThat(locations).containsExactly(replicas[0].location(), replicas[1].location(), replicas[0].location(),
          replicas[1].location());
      long total = 0;
      for (FlightEndpoint e : info.getEndpoints()) {
        // a fresh client per location, without the session: the ticket carries the statement and its settings
        try (FlightSqlClient at = new FlightSqlClient(FlightClient.builder(a, e.getLocations().get(0)).build());
            FlightStream s = at.getStream(e.getTicket())) {
          long rows = 0;
          while (s.next()) rows += s.getRoot().getRowCount();
          assertThat(rows).isPositive().isLessThan(600_572 / 2); // a fragment, not the whole result
          total += rows;
        }
      }
      try (Connection c = DriverManager.getConnection(replicas[1].jdbcUrl())) {
        assertThat(total).isEqualTo(TestServer.scalarLong(c,
            "SELECT count(*) FROM lineitem WHERE l_shipdate >= DATE '1993-01-01'"));
      }
      // a prepared statement (the JDBC driver's path) splits the same way
      try (FlightSqlClient.PreparedStatement ps = client.prepare(QUERY)) {
        assertThat(ps.execute().getEndpoints()).hasSize(4);
      }
      // an aggregate keeps one endpoint, without a location
      FlightInfo agg = client.execute("SELECT l_shipmode, count(*) FROM lineitem WHERE l_shipdate >= DATE '1993-01-01'"
          + " GROUP BY l_shipmode");
      assertThat(agg.getEndpoints()).hasSize(1);
      assertThat(agg.getEndpoints().get(0).getLocations()).isEmpty();
      // fewer surviving row groups than 4: fewer endpoints (groups 8 and 9; then group 9 only), never an empty one
      assertThat(client.execute("SELECT l_orderkey FROM lineitem WHERE l_shipdate >= DATE '1998-01-01'").getEndpoints())
          .hasSize(2);
      assertThat(client.execute("SELECT l_orderkey FROM lineitem WHERE l_shipdate >= DATE '1998-09-01'").getEndpoints())
          .hasSize(1);
      // a limit too
      assertThat(client.execute(QUERY + " LIMIT 10").getEndpoints()).hasSize(1);
    }
  }

  @Test
  void eachReplicaPrunesWithThePushedPredicate() throws Exception {
    for (TestServer r : replicas) {
      try (Connection c = r.jdbc()) {
        Map<String, Long> m = TestServer.scanMetrics(c, QUERY);
        assertThat(m.get("row_groups_total")).isEqualTo(10);
        assertThat(m.get("row_groups_pruned")).isEqualTo(1);
      }
    }
  }

  @Test
  void aFileReplacedBetweenGetFlightInfoAndDoGetFailsClearlyAndTheServersKeepServing() throws Exception {
    Path table = dir.resolve("stale");
    Files.createDirectories(table);
    Path file = table.resolve("lineitem.parquet");
    Files.copy(data.resolve("lineitem.parquet"), file);
    TestServer[] pair = TestServer.replicas(table, 4);
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient client = pair[0].flightSql(a)) {
      FlightInfo info = client.execute(QUERY);
      assertThat(info.getEndpoints()).hasSize(4);
      // an ETL job replaces the file (same bytes, a new file): the tickets name the old version
      Path next = table.resolve("next.tmp");
      Files.copy(file, next);
      Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      for (FlightEndpoint e : info.getEndpoints()) {
        try (FlightSqlClient at = new FlightSqlClient(FlightClient.builder(a, e.getLocations().get(0)).build())) {
          assertThatThrownBy(() -> {
            try (FlightStream s = at.getStream(e.getTicket())) {
              while (s.next()) { }
            }
          }).isInstanceOf(FlightRuntimeException.class)
              .hasMessageContaining("lineitem.parquet").hasMessageContaining("changed since")
              .hasMessageContaining("run the query again");
        }
      }
      // both keep serving: the query again gets endpoints of the new version, which read
      FlightInfo again = client.execute(QUERY);
      long total = 0;
      for (FlightEndpoint e : again.getEndpoints()) {
        try (FlightSqlClient at = new FlightSqlClient(FlightClient.builder(a, e.getLocations().get(0)).build());
            FlightStream s = at.getStream(e.getTicket())) {
          while (s.next()) total += s.getRoot().getRowCount();
        }
      }
      assertThat(total).isPositive();
    } finally {
      for (TestServer r : pair) r.close();
    }
  }

  /**
   * TLS and users on both replicas: endpoints are grpc+tls:// locations, and the JDBC driver opens a TLS connection
   * to the peer with the same root certificate and authenticates there with the same user and password.
   */
  @Test
  void jdbcWithTlsAndUsersReadsEndpointsFromBothReplicas() throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create(Files.createDirectories(dir.resolve("tls")));
    TestServer[] pair = TestServer.replicas(dev.quiver.server.ServerConfig.of(data.toString(), "127.0.0.1", 0)
        .withUsers(dev.quiver.server.Users.none().with("bob", "hunter2")).withTls(cert.cert(), cert.key()), 4);
    try {
      assertThat(pair[1].location().getUri().getScheme()).isEqualTo("grpc+tls");
      String url = "jdbc:arrow-flight-sql://127.0.0.1:" + pair[0].port() + "/?useEncryption=true&tlsRootCerts="
          + cert.cert() + "&user=bob&password=hunter2";
      long plannedByPeer = pair[1].plansBuilt();
      long rows;
      try (Connection c = DriverManager.getConnection(url)) {
        rows = TestServer.rows(c, QUERY).size();
      }
      assertThat(pair[1].plansBuilt() - plannedByPeer).isEqualTo(2);
      assertThat(rows).isEqualTo(524_164); // pyarrow.compute over the file: rows with l_shipdate >= 1993-01-01
    } finally {
      for (TestServer r : pair) r.close();
    }
  }

  /** One server, no peers: the 4 endpoints carry no location and the JDBC driver reads them over its connection. */
  @Test
  void withoutPeersEndpointsHaveNoLocationAndJdbcReadsThemAll() throws Exception {
    try (TestServer split = TestServer.splitting(data, 4); BufferAllocator a = new RootAllocator();
        FlightSqlClient client = split.flightSql(a)) {
      FlightInfo info = client.execute(QUERY);
      assertThat(info.getEndpoints()).hasSize(4);
      assertThat(info.getEndpoints()).allSatisfy(e -> assertThat(e.getLocations()).isEmpty());
      long plans = split.plansBuilt();
      List<List<Object>> rows;
      try (Connection c = split.jdbc()) {
        rows = TestServer.rows(c, QUERY);
      }
      assertThat(split.plansBuilt() - plans).isEqualTo(5); // the prepared statement, then each of the 4 fragments
      try (Connection c = jdbc(replicas[0], 1)) {
        assertThat(multiset(rows)).isEqualTo(multiset(TestServer.rows(c, QUERY)));
      }
    }
  }
}
