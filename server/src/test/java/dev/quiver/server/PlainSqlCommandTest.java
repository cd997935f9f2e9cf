package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A plain Arrow Flight client (as pyarrow's) sends SQL text as the command, and gets the Flight SQL answer. */
class PlainSqlCommandTest {
  @TempDir
  Path data;

  @Test
  void sqlTextAsTheCommandIsAStatement() throws Exception {
    try (QuiverServer server = QuiverServer.start(ServerConfig.of(data.toString(), "127.0.0.1", 0));
        BufferAllocator a = new RootAllocator();
        FlightClient client = FlightClient.builder(a, Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      FlightDescriptor d = FlightDescriptor.command("SELECT 41 + 1 AS answer, 'é' AS s".getBytes(StandardCharsets.UTF_8));
      assertThat(client.getSchema(d).getSchema().getFields()).extracting(f -> f.getName()).containsExactly("answer", "s");
      FlightInfo info = client.getInfo(d);
      try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(s.next()).isTrue();
        assertThat(s.getRoot().getVector("answer").getObject(0)).isEqualTo(42);
        assertThat(s.getRoot().getVector("s").getObject(0).toString()).isEqualTo("é");
      }
      // SQL errors are the statement's, with line:column
      assertThatThrownBy(() -> client.getInfo(FlightDescriptor.command("SELECT nope".getBytes(StandardCharsets.UTF_8))))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
            assertThat(e.getMessage()).contains("nope").contains("1:8");
          });
      // bytes that are neither a Flight SQL message nor UTF-8 text stay a malformed request
      assertThatThrownBy(() -> client.getInfo(FlightDescriptor.command(new byte[] {(byte) 0xff, (byte) 0xfe, 0x01})))
          .isInstanceOfSatisfying(FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
      // and a real Flight SQL command is still read as one
      byte[] packed = com.google.protobuf.Any.pack(FlightSql.CommandStatementQuery.newBuilder().setQuery("SELECT 7 AS x")
          .build()).toByteArray();
      assertThat(QuiverProducer.plainSql(packed)).isNull();
      try (FlightStream s = client.getStream(client.getInfo(FlightDescriptor.command(packed)).getEndpoints().get(0)
          .getTicket())) {
        assertThat(s.next()).isTrue();
        assertThat(s.getRoot().getVector("x").getObject(0)).isEqualTo(7);
      }
      // the server releases a stream's last batch after the client saw its end: give it a moment, then nothing may
      // be left
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (server.allocatedBytes() != 0 && System.nanoTime() < deadline) Thread.sleep(10);
      assertThat(server.allocatedBytes()).isZero();
    }
  }
}
