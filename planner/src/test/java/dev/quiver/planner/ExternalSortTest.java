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
 * A sort whose input outgrows the query's memory writes sorted runs under the spill directory and merges them
 * (SortExec, SortSpill): under a small memory limit every answer equals, row for row, the in-memory sort's under a
 * large one — ties in input order (the {@code id} column tells), NULLs first and last, NaN and -0.0, strings sharing
 * their first 8 bytes, computed keys — EXPLAIN ANALYZE shows the runs, and the directory is empty after each query.
 */
class ExternalSortTest extends SpillingQueries {
  @TempDir
  static Path dir;
  static final int ROWS = 240_000;
  static final long SMALL = 24L << 20;

  static final MessageType T = Types.buildMessage()
      .required(PrimitiveTypeName.INT32).named("id")
      .optional(PrimitiveTypeName.INT64).named("k")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("pad")
      .named("t");

  @BeforeAll
  static void write() throws IOException {
    Random r = new Random(41);
    double[] specials = {Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY};
    SimpleGroupFactory g = new SimpleGroupFactory(T);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t.parquet")))
        .withType(T).withRowGroupRowCountLimit(20_000).withPageRowCountLimit(5_000).build()) {
      for (int i = 0; i < ROWS; i++) {
        Group row = g.newGroup();
        row.append("id", i);
        if (r.nextInt(50) != 0) row.append("k", (long) r.nextInt(5_000) - 2_500);
        if (r.nextInt(40) != 0) {
          row.append("d", r.nextInt(100) == 0 ? specials[r.nextInt(specials.length)] : Math.floor(r.nextGaussian() * 100) / 4);
        }
        if (r.nextInt(30) != 0) row.append("s", "prefix__" + (char) ('a' + r.nextInt(26)) + r.nextInt(300));
        row.append("pad", "x".repeat(40 + r.nextInt(40)));
        w.write(row);
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT);
  }

  static final List<String> QUERIES = List.of(
      "SELECT id, k, pad FROM t ORDER BY k",
      "SELECT id, s, k, pad FROM t ORDER BY s DESC NULLS LAST, k",
      "SELECT id, d, pad FROM t ORDER BY d NULLS FIRST, k DESC",
      "SELECT id, k % 7 AS m, s, pad FROM t ORDER BY k % 7, s NULLS FIRST",
      "SELECT * FROM t WHERE id % 3 <> 0 ORDER BY k DESC NULLS FIRST, d");

  @Test
  void aSortOverItsMemorySpillsRunsAndAnswersAsInMemory() {
    for (String sql : QUERIES) {
      List<List<Object>> inMemory = run(sql, 1L << 30);
      assertThat(inMemory).as(sql).hasSizeGreaterThan(ROWS / 2);
      assertThat(run(sql, SMALL)).as(sql).isEqualTo(inMemory);
    }
  }

  @Test
  void explainAnalyzeShowsTheRuns() {
    String small = explain(QUERIES.get(0), SMALL);
    assertThat(TestTables.metric(small, "spill_runs")).as(small).isGreaterThanOrEqualTo(2);
    assertThat(TestTables.metric(small, "spilled_bytes")).as(small).isGreaterThan(ROWS * 40L);
    String large = explain(QUERIES.get(0), 1L << 30);
    assertThat(large).contains("SortExec").doesNotContain("spill_runs");
  }

  @Test
  void aTopNKeepsItsHeapAndNeverSpills() {
    String sql = "SELECT id, k, pad FROM t ORDER BY k DESC, id LIMIT 100";
    String plan = explain(sql, SMALL);
    assertThat(plan).doesNotContain("spill_runs");
    assertThat(run(sql, SMALL)).isEqualTo(run(sql, 1L << 30)).hasSize(100);
  }
}
