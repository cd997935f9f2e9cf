package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.Events;
import dev.quiver.server.QuiverServer;
import dev.quiver.server.ServerConfig;
import dev.quiver.server.Users;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import sqlline.SqlLine;

/**
 * A server with TLS (a certificate generated here) and users: every client — JDBC, FlightSqlClient, sqlline (ADBC:
 * AdbcTest) — runs a query, a parameterized query and a metadata listing; wrong credentials, foreign
 * handles and DML each get their own error.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureServerTest {
  static final int ROWS = 3_000;

  @TempDir
  static Path dir;
  QuiverServer server;
  SelfSignedCertificate cert;
  long expectedSmallIds;

  @BeforeAll
  void start() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Events.write(data.resolve("events.parquet"), ROWS, 5, 1_000);
    Random r = new Random(5);
    for (long i = 0; i < ROWS; i++) if ((Long) Events.row(r, i)[0] < 100) expectedSmallIds++;
    cert = SelfSignedCertificate.create(dir);
    Path usersFile = dir.resolve("users");
    Files.writeString(usersFile, "# test users\nalice:" + Users.hash("s3cret", 1_000) + "\n");
    server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0)
        .withUsers(Users.none().load(usersFile).with("bob", "hunter2"))
        .withTls(cert.cert(), cert.key()));
  }

  @AfterAll
  void stop() throws Exception {
    server.close();
  }

  private String url(String user, String password) {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=true&tlsRootCerts=" + cert.cert()
        + "&user=" + user + "&password=" + password;
  }

  @Test
  void jdbcQueryParametersAndMetadata() throws Exception {
    try (Connection c = DriverManager.getConnection(url("alice", "s3cret"))) {
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM events")).isEqualTo(ROWS);
      try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM events WHERE event_id < ?")) {
        ps.setLong(1, 100);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getLong(1)).isEqualTo(expectedSmallIds);
        }
      }
      try (ResultSet rs = c.getMetaData().getColumns(null, null, "events", "event_%")) {
        List<String> cols = new ArrayList<>();
        while (rs.next()) cols.add(rs.getString("COLUMN_NAME"));
        assertThat(cols).containsExactly("event_id", "event_time");
      }
      assertThatThrownBy(() -> c.createStatement().executeUpdate("INSERT INTO events VALUES (1)"))
          .isInstanceOf(SQLException.class).hasMessageContaining("read-only");
    }
  }

  @Test
  void wrongCredentialsAndNoCredentialsAreRejected() throws Exception {
    assertThatThrownBy(() -> DriverManager.getConnection(url("alice", "wrong")).close())
        .isInstanceOf(SQLException.class).hasMessageContaining("invalid user name or password");
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient anonymous = client(a)) {
      assertThatThrownBy(() -> anonymous.execute("SELECT 1"))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    }
  }

  private FlightSqlClient client(BufferAllocator a) throws Exception {
    try (InputStream in = Files.newInputStream(cert.cert())) {
      return new FlightSqlClient(FlightClient.builder(a, Location.forGrpcTls("127.0.0.1", server.port()))
          .trustedCertificates(in).build());
    }
  }

  @Test
  void flightSqlClientEveryPathAndHandlesStayWithTheirUser() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightClient raw = rawClient(a); FlightSqlClient sql = new FlightSqlClient(raw)) {
      CallOption alice = raw.authenticateBasicToken("alice", "s3cret").orElseThrow();
      FlightInfo info = sql.execute("SELECT count(*) FROM events", alice);
      try (FlightStream s = sql.getStream(info.getEndpoints().get(0).getTicket(), alice)) {
        assertThat(s.next()).isTrue();
        assertThat(s.getRoot().getVector(0).getObject(0)).isEqualTo((long) ROWS);
      }
      try (FlightStream s = sql.getStream(sql.getTables(null, null, "%", null, false, alice).getEndpoints().get(0).getTicket(), alice)) {
        assertThat(s.next()).isTrue();
        assertThat(s.getRoot().getRowCount()).isEqualTo(1);
      }
      FlightSqlClient.PreparedStatement p = sql.prepare("SELECT count(*) FROM events WHERE event_id < ?", alice);
      try (VectorSchemaRoot params = VectorSchemaRoot.create(p.getParameterSchema(), a)) {
        BigIntVector v = (BigIntVector) params.getVector(0);
        v.allocateNew(1);
        v.set(0, 100);
        params.setRowCount(1);
        p.setParameters(params);
        FlightInfo bound = p.execute(alice);
        try (FlightStream s = sql.getStream(bound.getEndpoints().get(0).getTicket(), alice)) {
          assertThat(s.next()).isTrue();
          assertThat(s.getRoot().getVector(0).getObject(0)).isEqualTo(expectedSmallIds);
        }
        CallOption bob = raw.authenticateBasicToken("bob", "hunter2").orElseThrow();
        assertThatThrownBy(() -> {
          try (FlightStream s = sql.getStream(bound.getEndpoints().get(0).getTicket(), bob)) {
            s.next();
          }
        }).isInstanceOf(FlightRuntimeException.class)
            .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.NOT_FOUND));
      } finally {
        p.close(alice); // every call needs the caller's credentials, closing too
      }
      assertThatThrownBy(() -> sql.executeUpdate("DELETE FROM events", alice))
          .isInstanceOf(FlightRuntimeException.class).hasMessageContaining("read-only")
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED));
    }
  }

  private FlightClient rawClient(BufferAllocator a) throws Exception {
    try (InputStream in = Files.newInputStream(cert.cert())) {
      return FlightClient.builder(a, Location.forGrpcTls("127.0.0.1", server.port())).trustedCertificates(in).build();
    }
  }

  @Test
  void sqllineOneShot() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SqlLine sqlline = new SqlLine();
    sqlline.setOutputStream(new PrintStream(out, true, StandardCharsets.UTF_8));
    sqlline.setErrorStream(new PrintStream(out, true, StandardCharsets.UTF_8));
    SqlLine.Status status = sqlline.begin(new String[] {"-u", url("alice", "s3cret"), "-n", "alice", "-p", "s3cret",
        "--outputformat=csv", "-e", "SELECT count(*) AS n FROM events WHERE event_id < 100"}, null, false);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(status).as(text).isEqualTo(SqlLine.Status.OK);
    assertThat(text).contains("'n'\n'" + expectedSmallIds + "'");
  }
}
