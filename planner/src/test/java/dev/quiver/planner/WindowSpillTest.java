package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
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
 * A window function whose input outgrows the query's memory, with one PARTITION BY for all its calls, writes the
 * input split by partition key under the spill directory and evaluates each file alone (WindowExec's partitions):
 * under a small limit every answer equals, as a multiset, the one in memory under a large limit — integer, string
 * and two-column keys with NULLs, ranking, offset and aggregate functions — EXPLAIN ANALYZE shows {@code
 * spilled_bytes}; a query stopped early (LIMIT) leaves nothing behind; one partition larger than the memory fails
 * with RESOURCE_EXHAUSTED saying so, and the directory is empty after each query.
 */
class WindowSpillTest extends SpillingQueries {
  @TempDir
  static Path dir;
  static final int ROWS = 240_000;
  static final long SMALL = 24L << 20;

  static final MessageType T = Types.buildMessage()
      .required(PrimitiveTypeName.INT32).named("id")
      .optional(PrimitiveTypeName.INT32).named("p")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.INT64).named("v")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .required(PrimitiveTypeName.INT32).named("skew")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("pad")
      .named("t");

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("t"));
    Random r = new Random(17);
    SimpleGroupFactory g = new SimpleGroupFactory(T);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t/a.parquet")))
        .withType(T).withRowGroupRowCountLimit(20_000).build()) {
      for (int i = 0; i < ROWS; i++) {
        Group row = g.newGroup();
        row.append("id", i);
        if (r.nextInt(50) != 0) row.append("p", r.nextInt(4_000));
        if (r.nextInt(40) != 0) row.append("s", "group-" + r.nextInt(700));
        if (r.nextInt(20) != 0) row.append("v", (long) r.nextInt(1_000) - 500);
        if (r.nextInt(20) != 0) row.append("d", r.nextGaussian());
        row.append("skew", r.nextInt(50) == 0 ? r.nextInt(100) : 7);
        row.append("pad", "x".repeat(40 + r.nextInt(40)));
        w.write(row);
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT);
  }

  @Test
  void aWindowOverItsMemorySpillsByPartitionAndAnswersAsInMemory() {
    String[] queries = {
        "SELECT id, pad, row_number() OVER (PARTITION BY p ORDER BY v, id) AS x FROM t",
        "SELECT id, pad, rank() OVER (PARTITION BY s ORDER BY d DESC NULLS FIRST) AS x, "
            + "lag(v, 2) OVER (PARTITION BY s ORDER BY id) AS y FROM t",
        "SELECT id, pad, sum(v) OVER (PARTITION BY p ORDER BY id) AS x, "
            + "avg(d) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS y FROM t",
        "SELECT id, pad, count(*) OVER (PARTITION BY p, s) AS x, max(v) OVER (PARTITION BY p, s) AS y FROM t"};
    for (String sql : queries) {
      List<List<Object>> inMemory = sorted(run(sql, 1L << 30));
      assertThat(inMemory).as(sql).hasSize(ROWS);
      assertThat(sorted(run(sql, SMALL))).as(sql).isEqualTo(inMemory);
      String plan = explain(sql, SMALL);
      assertThat(TestTables.metric(plan, "spilled_bytes")).as(plan).isGreaterThan(1L << 20);
      assertThat(TestTables.metric(plan, "spill_partitions")).as(plan).isGreaterThan(8);
      assertThat(explain(sql, 1L << 30)).doesNotContain("spilled_bytes");
    }
  }

  @Test
  void aWindowStoppedEarlyLeavesNothingBehind() {
    String sql = "SELECT id, pad, sum(v) OVER (PARTITION BY p ORDER BY id) AS x FROM t LIMIT 5";
    assertThat(run(sql, SMALL)).hasSize(5); // the allocator's close fails on a leak; the directory is checked after
  }

  @Test
  void onePartitionLargerThanTheMemoryFailsClearly() {
    String sql = "SELECT id, pad, row_number() OVER (PARTITION BY skew ORDER BY v) AS x FROM t";
    assertThatThrownBy(() -> run(sql, SMALL))
        .hasMessageContaining("the window function needs more memory")
        .hasMessageContaining("in one piece");
    // the same query in memory
    assertThat(run(sql, 1L << 30)).hasSize(ROWS);
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>(rows);
    out.sort(Comparator.comparing(Object::toString));
    return out;
  }
}
