package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A final aggregation whose groups outgrow the query's memory writes them, and every later state and row passed
 * through, to 16 partitions on disk by key hash and aggregates one partition at a time (FinalAggregateExec,
 * AggregateSpill): under a small memory limit every answer equals, as a multiset, the in-memory one under a large
 * limit — string, integer, double and several keys with NULLs, every aggregate that splits into states — EXPLAIN
 * ANALYZE shows the bytes spilled, and the spill directory is empty after each query.
 */
class AggregationSpillTest extends SpillingQueries {
  @TempDir
  static Path dir;
  static final int ROWS = 300_000;
  static final long SMALL = 64L << 20;

  static final MessageType T = Types.buildMessage()
      .required(PrimitiveTypeName.INT32).named("id")
      .optional(PrimitiveTypeName.INT64).named("k")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("q")
      .named("t");

  @BeforeAll
  static void write() throws IOException {
    Random r = new Random(42);
    double[] specials = {Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY};
    SimpleGroupFactory g = new SimpleGroupFactory(T);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t.parquet")))
        .withType(T).withRowGroupRowCountLimit(50_000).withPageRowCountLimit(5_000).build()) {
      for (int i = 0; i < ROWS; i++) {
        Group row = g.newGroup();
        row.append("id", i);
        // mostly distinct keys at first (the tasks pass rows through), repeated ones later (states merge)
        int key = i < ROWS / 2 ? i : r.nextInt(ROWS / 2);
        if (r.nextInt(100) != 0) row.append("k", (long) key * 7919 % 1_000_003);
        if (r.nextInt(40) != 0) {
          row.append("d", r.nextInt(100) == 0 ? specials[r.nextInt(specials.length)] : r.nextGaussian() * 1e6);
        }
        if (r.nextInt(30) != 0) row.append("s", "group-key-" + key);
        if (r.nextInt(20) != 0) row.append("q", (long) r.nextInt(2_000_000) - 1_000_000);
        w.write(row);
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT);
  }

  static final List<String> QUERIES = List.of(
      "SELECT s, count(*), count(d), sum(d), avg(q), min(k), max(d) FROM t GROUP BY s",
      "SELECT k, count(*), sum(q), avg(d), bool_or(d > 0), min(s) FROM t GROUP BY k",
      "SELECT s, k % 3, count(*), sum(d) FROM t WHERE id % 5 <> 0 GROUP BY s, k % 3",
      "SELECT d, count(*) FROM t GROUP BY d");

  static List<String> sorted(List<List<Object>> rows) {
    return rows.stream().map(Object::toString).sorted().toList();
  }

  @Test
  void anAggregationOverItsMemorySpillsPartitionsAndAnswersAsInMemory() {
    for (String sql : QUERIES) {
      List<List<Object>> inMemory = run(sql, 1L << 30);
      assertThat(inMemory).as(sql).hasSizeGreaterThan(ROWS / 4);
      String plan = explain(sql, SMALL);
      assertThat(TestTables.metric(plan, "spilled_bytes")).as(plan).isGreaterThan(0);
      assertThat(plan).contains("spill_partitions=16");
      assertThat(sorted(run(sql, SMALL))).as(sql).isEqualTo(sorted(inMemory));
    }
  }

  @Test
  void withRoomItDoesNotSpill() {
    String plan = explain(QUERIES.get(0), 1L << 30);
    assertThat(plan).contains("AggregateExec: mode=final").doesNotContain("spilled_bytes");
  }
}
