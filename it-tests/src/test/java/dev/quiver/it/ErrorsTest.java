package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.Events;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input gets a clear message and the right Flight status; the server keeps serving. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorsTest {
  @TempDir
  static Path dir;
  TestServer server;
  BufferAllocator allocator;
  FlightSqlClient client;

  @BeforeAll
  void start() throws Exception {
    Events.write(dir.resolve("events.parquet"), 5_000, 7, 1_000);
    server = TestServer.start(dir);
    allocator = new RootAllocator();
    client = server.flightSql(allocator);
  }

  @AfterAll
  void stop() throws Exception {
    client.close();
    allocator.close();
    server.close();
  }

  /** Runs {@code sql} through the statement path to the end and returns the rows read. */
  private long run(String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    long n = 0;
    try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (s.next()) n += s.getRoot().getRowCount();
    }
    return n;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "SELEC 1|INVALID_ARGUMENT|syntax error at 1:1",
      "SELECT event_id FROM events WHERE|INVALID_ARGUMENT|syntax error at 1:",
      "SELECT event_id\\nFROM events\\nWHERE kind = = 'x'|INVALID_ARGUMENT|syntax error at 3:",
      "SELECT * FROM nope|NOT_FOUND|table nope does not exist at 1:15",
      "SELECT nope FROM events|NOT_FOUND|column nope does not exist in table events at 1:8",
      "SELECT x.event_id FROM events|NOT_FOUND|table or alias x is not in the FROM clause",
      "SELECT frobnicate(event_id) FROM events|NOT_FOUND|function frobnicate does not exist",
      "SELECT count(*) FROM events a NATURAL JOIN events b USING (kind)|INVALID_ARGUMENT|a NATURAL JOIN takes no ON or USING at 1:31",
      "SELECT string_agg(kind, kind) FROM events|NOT_IMPLEMENTED|string_agg with a separator that is not a string constant is not supported at 1:8",
      "SELECT (SELECT max(events.event_id)) FROM events|NOT_IMPLEMENTED|an aggregate of only the enclosing query's columns inside a subquery",
      "SELECT DISTINCT ON (kind) kind FROM events|NOT_IMPLEMENTED|DISTINCT ON is not supported",
      "SELECT * FROM events a JOIN events b ON a.nope = b.event_id|NOT_FOUND|column a.nope does not exist",
      "SELECT event_id FROM events a JOIN events b ON a.event_id = b.event_id|INVALID_ARGUMENT|column reference event_id is ambiguous at 1:8",
      "INSERT INTO events VALUES (1)|NOT_IMPLEMENTED|INSERT statement",
      "SELECT kind + 1 FROM events|INVALID_ARGUMENT|operator + is not defined for VARCHAR and INTEGER",
      "SELECT * FROM events WHERE kind = 5|INVALID_ARGUMENT|cannot compare VARCHAR with INTEGER",
      "SELECT * FROM events WHERE event_id|INVALID_ARGUMENT|WHERE must be a BOOLEAN expression",
      "SELECT event_id, count(*) FROM events|INVALID_ARGUMENT|column event_id must appear in the GROUP BY clause",
      "SELECT CAST('abc' AS INTEGER)|INVALID_ARGUMENT|invalid INTEGER value: 'abc'",
      "SELECT CAST(300 AS TINYINT)|INVALID_ARGUMENT|value 300 is out of range for TINYINT",
      "SELECT event_id / 0 FROM events|INVALID_ARGUMENT|division by zero",
      "SET quiver.nope = 1|NOT_FOUND|unknown setting quiver.nope",
      "SET quiver.optimizer.simplify = maybe|INVALID_ARGUMENT|must be true or false",
      "SELECT regexp_like(kind, '(a') FROM events|INVALID_ARGUMENT|invalid regular expression '(a'",
      "SELECT CAST(2147483000 AS INTEGER) + CAST(event_id AS INTEGER) FROM events|INVALID_ARGUMENT|INTEGER out of range",
  })
  void badInputGetsClearErrorAndServerKeepsServing(String sql, String status, String message) throws Exception {
    sql = sql.replace("\\n", "\n");
    String q = sql;
    FlightStatusCode code = status.equals("NOT_IMPLEMENTED") ? FlightStatusCode.UNIMPLEMENTED : FlightStatusCode.valueOf(status);
    assertThatThrownBy(() -> run(q))
        .isInstanceOf(FlightRuntimeException.class)
        .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(code))
        .hasMessageContaining(message);
    assertThat(run("SELECT event_id FROM events LIMIT 3")).isEqualTo(3);
  }

  @Test
  void invalidUtf8InAStatementIsAClearErrorWithoutClassNames() throws Exception {
    // protobuf's builder refuses invalid UTF-8: write a valid command, then put 0xC3 0x28 (invalid) over "QZ"
    org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery cmd =
        org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery.newBuilder().setQuery("SELECT 'QZ'").build();
    byte[] wire = com.google.protobuf.Any.pack(cmd).toByteArray();
    String latin = new String(wire, java.nio.charset.StandardCharsets.ISO_8859_1);
    int at = latin.indexOf("QZ");
    wire[at] = (byte) 0xC3;
    wire[at + 1] = (byte) 0x28;
    try (org.apache.arrow.flight.FlightClient raw = org.apache.arrow.flight.FlightClient.builder(allocator,
        org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      assertThatThrownBy(() -> raw.getInfo(org.apache.arrow.flight.FlightDescriptor.command(wire)))
          .isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().description())
              .contains("UTF-8").doesNotContainPattern("[a-z]+\\.[a-z]+\\.[A-Z]\\w*(Exception|Error)"));
    }
    assertThat(run("SELECT event_id FROM events LIMIT 3")).isEqualTo(3);
  }

  @Test
  void integerOverflowIsAnErrorNotAWrap() throws Exception {
    assertThatThrownBy(() -> run("SELECT 9223372036854775807 + event_id FROM events WHERE event_id > 0"))
        .isInstanceOf(FlightRuntimeException.class)
        .hasMessageContaining("BIGINT out of range");
  }

  @Test
  void jdbcSurfacesTheSameMessage() throws Exception {
    try (Connection c = server.jdbc()) {
      assertThatThrownBy(() -> TestServer.rows(c, "SELECT * FROM events WHERE"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("syntax error at 1:");
      assertThat(TestServer.rows(c, "SELECT count(*) FROM events")).hasSize(1);
    }
  }

  @Test
  void tinyQueryMemoryLimitGivesResourceExhausted(@TempDir Path other) throws Exception {
    Events.write(other.resolve("events.parquet"), 20_000, 7, 20_000);
    try (TestServer small = TestServer.start(other, 64 * 1024);
        BufferAllocator a = new RootAllocator();
        FlightSqlClient c = small.flightSql(a)) {
      assertThatThrownBy(() -> {
        FlightInfo info = c.execute("SELECT * FROM events");
        try (FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket())) {
          while (s.next()) { /* drain */ }
        }
      }).isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED));
      FlightInfo info = c.execute("SELECT count(*) FROM events");
      try (FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(s.next()).isTrue();
        assertThat(s.getRoot().getVector(0).getObject(0)).isEqualTo(20_000L);
      }
    }
  }
}
