package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.RowWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The same predicates with the simplifier on and off (SET quiver.optimizer.simplify = false on a
 * second JDBC session): identical rows, and at least as many row groups pruned with it on — strictly
 * more for every cast-wrapped, rounded, out-of-range, temporal and constant-expression predicate on
 * the sorted columns of this table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SimplifierOnOffTest {
  static final int ROWS = 20_000;
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named("small")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named("tiny")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(32, false)).named("u32")
      .required(PrimitiveTypeName.FLOAT).named("r")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 9)).named("dec")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("d")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS)).named("ts")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .named("t");

  @TempDir
  static Path dir;
  TestServer server;
  Connection on;
  Connection off;

  @BeforeAll
  void start() throws Exception {
    try (ParquetWriter<Object[]> w = RowWriter.open(dir.resolve("t.parquet"), SCHEMA, b -> b.withRowGroupRowCountLimit(1_000))) {
      for (long id = 0; id < ROWS; id++) {
        w.write(new Object[] {id, (int) (id * 3 - 30_000), id % 97 == 0 ? null : (int) (id / 200 - 50),
            (int) (id * 200_000L), id / 7.0f, id * 37, (int) (19_000 + id / 50), 1_700_000_000_000L + id * 3_600_000L,
            String.format("k%05d", id)});
      }
    }
    server = TestServer.start(dir);
    on = server.jdbc();
    off = server.jdbc();
    try (Statement s = off.createStatement()) {
      s.execute("SET quiver.optimizer.simplify = false");
    }
  }

  @AfterAll
  void stop() throws Exception {
    on.close();
    off.close();
    server.close();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "small < -25000|strict",
      "small >= 1000.5|strict",
      "small = 70000|strict",
      "u32 > 3500000000|strict",
      "r > 2800.5|strict",
      "dec < 100|strict",
      "CAST(ts AS DATE) = DATE '2024-01-10'|strict",
      "ts < DATE '2023-12-01'|strict",
      "extract(year FROM d) = 2023|strict",
      "date_trunc('month', ts) = TIMESTAMP '2024-02-01 00:00:00+00:00'|strict",
      "CAST(d AS TIMESTAMP) < TIMESTAMP '2022-02-01 12:00:00'|strict",
      "id = 1 + 2 * 3|strict",
      "tiny IN (1, 2, 300)|strict",
      "tiny < -45 OR tiny > 45|strict",
      "regexp_like(s, '^k0001')|strict",
      "CAST(small AS BIGINT) IN (-29997, 99999)|strict",
      "s LIKE 'k001%'|equal",
      "id BETWEEN 100 AND 2000|strict",
      "r > 10 AND small < 0 AND NOT (id <> 5)|strict",
  })
  void sameRowsAndAtLeastAsMuchPruning(String predicate, String expectation) throws Exception {
    String q = "SELECT id, small, tiny, dec, d, ts, s FROM t WHERE " + predicate;
    List<List<Object>> a = TestServer.rows(on, q);
    List<List<Object>> b = TestServer.rows(off, q);
    assertThat(a).as("rows with the simplifier on and off").isEqualTo(b);
    Map<String, Long> withIt = metrics(on, q);
    Map<String, Long> without = metrics(off, q);
    assertThat(withIt.get("row_groups_total")).isEqualTo(20);
    if (expectation.equals("strict")) {
      assertThat(withIt.get("row_groups_pruned")).as(q).isGreaterThan(without.get("row_groups_pruned"));
    } else {
      assertThat(withIt.get("row_groups_pruned")).as(q).isEqualTo(without.get("row_groups_pruned")).isPositive();
    }
    String scan = TestServer.explain(on, "EXPLAIN " + q).stream()
        .filter(l -> l.contains("ParquetScanExec") || l.contains("EmptyExec")).findFirst().orElseThrow();
    assertThat(scan).as("pushed predicate on bare columns").doesNotContain("predicate=none").doesNotContain("predicate=CAST");
  }

  /** Scan metrics; a predicate that can never be TRUE reads nothing at all (every group skipped). */
  private static Map<String, Long> metrics(Connection c, String q) throws Exception {
    if (TestServer.explain(c, "EXPLAIN " + q).stream().anyMatch(l -> l.contains("EmptyExec"))) {
      return Map.of("row_groups_total", 20L, "row_groups_pruned", 20L);
    }
    return TestServer.scanMetrics(c, q);
  }
}
