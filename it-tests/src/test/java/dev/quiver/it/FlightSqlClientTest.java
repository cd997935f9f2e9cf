package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.Events;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The statement path (CommandStatementQuery / TicketStatementQuery) and the prepared path through the
 * raw FlightSqlClient, over the synthetic events table with NULLs and NaN; expected values recomputed
 * from the generator.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FlightSqlClientTest {
  static final long ROWS = 20_000;
  static final long SEED = 99;

  @TempDir
  static Path dir;
  TestServer server;
  BufferAllocator allocator;
  FlightSqlClient client;
  List<Object[]> rows = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    Events.write(dir.resolve("events.parquet"), ROWS, SEED, 2_000);
    Random r = new Random(SEED);
    for (long i = 0; i < ROWS; i++) rows.add(Events.row(r, i));
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

  private List<List<Object>> statement(String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    assertThat(info.getEndpoints()).hasSize(1);
    assertThat(info.getEndpoints().get(0).getLocations()).isEmpty();
    Schema declared = client.getExecuteSchema(sql).getSchema();
    assertThat(info.getSchemaOptional().orElseThrow()).isEqualTo(declared);
    List<List<Object>> out = new ArrayList<>();
    try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(s.getSchema()).isEqualTo(declared);
      while (s.next()) collect(s.getRoot(), out);
    }
    return out;
  }

  private List<List<Object>> prepared(String sql) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (FlightSqlClient.PreparedStatement ps = client.prepare(sql)) {
      Schema declared = ps.getResultSetSchema();
      FlightInfo info = ps.execute();
      try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(s.getSchema()).isEqualTo(declared);
        while (s.next()) collect(s.getRoot(), out);
      }
    }
    return out;
  }

  private static void collect(VectorSchemaRoot root, List<List<Object>> out) {
    for (int i = 0; i < root.getRowCount(); i++) {
      List<Object> row = new ArrayList<>();
      for (var v : root.getFieldVectors()) row.add(v.getObject(i));
      out.add(row);
    }
  }

  @Test
  void nullsAndThreeValuedLogic() throws Exception {
    long nullUsers = rows.stream().filter(r -> r[3] == null).count();
    assertThat(statement("SELECT count(*) FROM events WHERE user_id IS NULL").get(0).get(0)).isEqualTo(nullUsers);
    assertThat(statement("SELECT count(user_id), count(*) FROM events").get(0))
        .containsExactly(ROWS - nullUsers, ROWS);
    // NOT (user_id < 100) is UNKNOWN for NULL user_id: those rows are not returned
    long notSmall = rows.stream().filter(r -> r[3] != null && (Integer) r[3] >= 100).count();
    assertThat(statement("SELECT count(*) FROM events WHERE NOT (user_id < 100)").get(0).get(0)).isEqualTo(notSmall);
    // x IN (..., NULL) is TRUE on a match, else UNKNOWN
    long in = rows.stream().filter(r -> r[4] != null && r[4].equals("DE")).count();
    assertThat(statement("SELECT count(*) FROM events WHERE country IN ('DE', NULL)").get(0).get(0)).isEqualTo(in);
    assertThat(statement("SELECT count(*) FROM events WHERE country NOT IN ('DE', NULL)").get(0).get(0)).isEqualTo(0L);
    long orTrue = rows.stream().filter(r -> r[3] == null || (Integer) r[3] < 10).count();
    assertThat(statement("SELECT count(*) FROM events WHERE user_id < 10 OR user_id IS NULL").get(0).get(0)).isEqualTo(orTrue);
  }

  @Test
  void nanEqualsNanAndIsLargest() throws Exception {
    long nan = rows.stream().filter(r -> r[5] != null && Double.isNaN((Double) r[5])).count();
    long above = rows.stream().filter(r -> r[5] != null && ((Double) r[5] > 5.0 || Double.isNaN((Double) r[5]))).count();
    assertThat(nan).isPositive();
    assertThat(statement("SELECT count(*) FROM events WHERE score = CAST('NaN' AS DOUBLE)").get(0).get(0)).isEqualTo(nan);
    assertThat(statement("SELECT count(*) FROM events WHERE score > 5.0").get(0).get(0)).isEqualTo(above);
    assertThat(statement("SELECT max(score) FROM events").get(0).get(0)).isEqualTo(Double.NaN);
  }

  @Test
  void timestampsBooleansAndUnsigned() throws Exception {
    long start = 1_704_067_200_000_000L + 30L * 86_400_000_000L; // 2024-01-31
    long later = rows.stream().filter(r -> (Long) r[1] >= start).count();
    assertThat(statement("SELECT count(*) FROM events WHERE event_time >= TIMESTAMP '2024-01-31 00:00:00'").get(0).get(0))
        .isEqualTo(later);
    long mobile = rows.stream().filter(r -> (Boolean) r[7]).count();
    assertThat(statement("SELECT count(*) FROM events WHERE is_mobile").get(0).get(0)).isEqualTo(mobile);
    long highRetries = rows.stream().filter(r -> (Integer) r[8] > 200).count();
    assertThat(statement("SELECT count(*) FROM events WHERE retries > 200").get(0).get(0)).isEqualTo(highRetries);
    long retrySum = rows.stream().mapToLong(r -> (Integer) r[8]).sum();
    assertThat(statement("SELECT sum(retries) FROM events").get(0).get(0)).isEqualTo(retrySum);
  }

  @Test
  void preparedAndStatementPathsAgreeWithJdbc() throws Exception {
    String sql = "SELECT event_id, kind, amount, score FROM events WHERE kind = 'purchase' AND amount > 5000.00 LIMIT 50";
    List<List<Object>> a = statement(sql);
    List<List<Object>> b = prepared(sql);
    assertThat(a).hasSize(50).isEqualTo(b);
    try (Connection c = server.jdbc()) {
      List<List<Object>> j = TestServer.rows(c, sql);
      assertThat(j).hasSize(50);
      for (int i = 0; i < j.size(); i++) assertThat(j.get(i).get(0)).isEqualTo(a.get(i).get(0));
    }
  }

  @Test
  void explainShowsPushedPredicateAndResidual() throws Exception {
    List<String> plan = statement("EXPLAIN SELECT event_id FROM events WHERE user_id = 7 AND user_id + 1 > 3")
        .stream().map(r -> r.get(0).toString()).toList();
    String scan = plan.stream().filter(l -> l.contains("ParquetScanExec")).findFirst().orElseThrow();
    assertThat(scan).contains("predicate=user_id = 7").contains("residual=(user_id + 1) > 3");
    assertThat(plan).contains("== Optimized Logical Plan ==", "== Physical Plan ==");
    List<String> verbose = statement("EXPLAIN VERBOSE SELECT event_id FROM events WHERE event_id < CAST('5' AS BIGINT)")
        .stream().map(r -> r.get(0).toString()).toList();
    assertThat(verbose).contains("== After SimplifyExpressions [FoldConstants] ==", "== After PushFilterIntoScan ==",
        "== After PruneColumns ==");
  }
}
