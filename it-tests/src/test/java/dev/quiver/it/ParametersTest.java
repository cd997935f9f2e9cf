package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.quiver.sample.Events;
import dev.quiver.sample.Lineitem;
import io.trino.tpch.LineItem;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** {@code ?} parameters through the JDBC driver: every bindable type, NULL, pruning as for literals, handles. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParametersTest {
  @TempDir
  static Path dir;
  TestServer server;
  Connection jdbc;
  List<LineItem> lineitems;
  List<Object[]> events = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    Lineitem.write(dir.resolve("lineitem.parquet"), 0.01, Lineitem.Order.SHIPDATE, 4096, b -> b);
    lineitems = Lineitem.generate(0.01);
    Events.write(dir.resolve("events.parquet"), 5_000, 3, 1_000);
    Random r = new Random(3);
    for (long i = 0; i < 5_000; i++) events.add(Events.row(r, i));
    server = TestServer.start(dir);
    jdbc = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    jdbc.close();
    server.close();
  }

  private static long count(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  @Test
  void dateParameterPrunesLikeTheLiteral() throws Exception {
    try (PreparedStatement ps = jdbc.prepareStatement("SELECT count(*) FROM lineitem WHERE l_shipdate < ?")) {
      assertThat(ps.getParameterMetaData().getParameterCount()).isEqualTo(1);
      assertThat(ps.getParameterMetaData().getParameterType(1)).isEqualTo(Types.DATE);
      for (String day : List.of("1992-03-01", "1995-06-17", "1998-12-31")) {
        ps.setDate(1, Date.valueOf(day));
        long expected = lineitems.stream().filter(li -> li.getShipDate() < LocalDate.parse(day).toEpochDay()).count();
        assertThat(count(ps)).as(day).isEqualTo(expected);
      }
    }
    Map<String, Long> literal = TestServer.scanMetrics(jdbc,
        "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'");
    try (PreparedStatement ps = jdbc.prepareStatement("EXPLAIN ANALYZE SELECT count(*) FROM lineitem WHERE l_shipdate < ?")) {
      ps.setDate(1, Date.valueOf("1992-03-01"));
      String scan = null;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) if (rs.getString(1).contains("ParquetScanExec")) scan = rs.getString(1);
      }
      assertThat(scan).contains("predicate=l_shipdate < DATE '1992-03-01'")
          .contains("row_groups_pruned=" + literal.get("row_groups_pruned") + " ");
      assertThat(literal.get("row_groups_pruned")).isPositive();
    }
  }

  @Test
  void everyBindableTypeAndNull() throws Exception {
    String sql = "SELECT count(*) FROM events WHERE event_id >= ? AND score < ? AND kind = ? AND is_mobile = ? "
        + "AND amount > ? AND event_time < ? AND user_id IS NOT DISTINCT FROM user_id";
    try (PreparedStatement ps = jdbc.prepareStatement(sql)) {
      var md = ps.getParameterMetaData();
      assertThat(md.getParameterCount()).isEqualTo(6);
      assertThat(List.of(md.getParameterType(1), md.getParameterType(2), md.getParameterType(3), md.getParameterType(4),
          md.getParameterType(5), md.getParameterType(6)))
          .containsExactly(Types.BIGINT, Types.DOUBLE, Types.VARCHAR, Types.BOOLEAN, Types.DECIMAL, Types.TIMESTAMP);
      long cutoffMicros = 1_704_067_200_000_000L + 7L * 86_400_000_000L;
      ps.setLong(1, 100);
      ps.setDouble(2, 5.0);
      ps.setString(3, "purchase");
      ps.setBoolean(4, true);
      ps.setBigDecimal(5, new BigDecimal("1000.00"));
      ps.setTimestamp(6, new Timestamp(cutoffMicros / 1000));
      long expected = events.stream().filter(r -> (Long) r[0] >= 100 && r[5] != null && ((Double) r[5]) < 5.0
          && !((Double) r[5]).isNaN() && r[2].equals("purchase") && (Boolean) r[7] && r[6] != null
          && (Long) r[6] > 100_000 && (Long) r[1] < cutoffMicros).count();
      assertThat(count(ps)).isEqualTo(expected).isPositive();
      ps.setNull(3, Types.VARCHAR);
      assertThat(count(ps)).isZero(); // kind = NULL is never TRUE
    }
  }

  @Test
  void unboundParametersAndForeignHandlesAreClearErrors() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient client = server.flightSql(a)) {
      // (the JDBC driver itself refuses to execute with unset parameters, so this goes through FlightSqlClient)
      try (FlightSqlClient.PreparedStatement unbound = client.prepare("SELECT count(*) FROM events WHERE event_id < ?")) {
        assertThatThrownBy(() -> {
          try (FlightStream s = client.getStream(unbound.execute().getEndpoints().get(0).getTicket())) {
            s.next();
          }
        }).isInstanceOf(FlightRuntimeException.class).hasMessageContaining("bind their values");
      }
      CommandPreparedStatementQuery forged = CommandPreparedStatementQuery.newBuilder()
          .setPreparedStatementHandle(ByteString.copyFromUtf8("SELECT * FROM events")).build();
      assertThatThrownBy(() -> {
        try (FlightStream s = client.getStream(new Ticket(Any.pack(forged).toByteArray()))) {
          s.next();
        }
      }).isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
          .hasMessageContaining("unknown or expired statement handle");
      // closing twice is fine
      FlightSqlClient.PreparedStatement p = client.prepare("SELECT 1");
      p.close();
      p.close();
    }
  }

  @Test
  void aBatchOfParameterSetsRunsOncePerSet() throws Exception {
    try (BufferAllocator a = new RootAllocator(); FlightSqlClient client = server.flightSql(a);
        FlightSqlClient.PreparedStatement p = client.prepare("SELECT event_id FROM events WHERE event_id = ?");
        var params = org.apache.arrow.vector.VectorSchemaRoot.create(p.getParameterSchema(), a)) {
      org.apache.arrow.vector.BigIntVector v = (org.apache.arrow.vector.BigIntVector) params.getVector(0);
      v.allocateNew(3);
      v.set(0, 7);
      v.set(1, 11);
      v.set(2, 4_999);
      params.setRowCount(3);
      p.setParameters(params);
      List<Long> ids = new ArrayList<>();
      try (FlightStream s = client.getStream(p.execute().getEndpoints().get(0).getTicket())) {
        while (s.next()) {
          for (int i = 0; i < s.getRoot().getRowCount(); i++) ids.add((Long) s.getRoot().getVector(0).getObject(i));
        }
      }
      assertThat(ids).containsExactly(7L, 11L, 4_999L);
    }
  }
}
