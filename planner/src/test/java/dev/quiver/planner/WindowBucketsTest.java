package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
 * Window functions over an input large for the query's memory, split into buckets of whole partitions that are
 * sorted and evaluated one at a time ({@code buckets=} in EXPLAIN ANALYZE): every answer equals, row for row as a
 * multiset, the same query under a large limit (one bucket), for ranking, offset, value and aggregate functions over
 * running, sliding and whole-partition frames, integer and string partition keys with NULLs, several calls sharing
 * the partitioning; calls with different partitionings take one bucket.
 */
class WindowBucketsTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  /** Small enough that 60,000 rows make several buckets (a quarter of it at 128 bytes a row: 16,384 rows). */
  static final long SMALL = 8L << 20;

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.INT32).named("p")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("q")
      .optional(PrimitiveTypeName.INT64).named("v")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .required(PrimitiveTypeName.INT32).named("id")
      .named("w");

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("w"));
    Random r = new Random(9);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("w/a.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(7_000).build()) {
      for (int i = 0; i < 60_000; i++) {
        Group row = g.newGroup();
        if (r.nextInt(40) != 0) row.append("p", r.nextInt(300));
        if (r.nextInt(40) != 0) row.append("q", "q" + r.nextInt(25));
        if (r.nextInt(20) != 0) row.append("v", (long) r.nextInt(1000) - 500);
        if (r.nextInt(20) != 0) row.append("d", r.nextGaussian());
        row.append("id", i);
        w.write(row);
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT.withBatchRows(2_000));
  }

  private static List<List<Object>> run(String sql, long limit) {
    try (BufferAllocator allocator = new RootAllocator(limit)) {
      return TestTables.run(engine, allocator, sql);
    }
  }

  @Test
  void bucketsAnswerAsOneBucketDoes() {
    String[] calls = {
        "row_number() OVER (PARTITION BY p ORDER BY v, id)",
        "rank() OVER (PARTITION BY p ORDER BY v DESC NULLS FIRST)",
        "dense_rank() OVER (PARTITION BY q ORDER BY v)",
        "lag(v, 2) OVER (PARTITION BY p ORDER BY id)",
        "lead(d) OVER (PARTITION BY q ORDER BY id)",
        "sum(v) OVER (PARTITION BY p ORDER BY id)",
        "avg(d) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING)",
        "max(v) OVER (PARTITION BY q ORDER BY v RANGE BETWEEN 10 PRECEDING AND CURRENT ROW)",
        "count(*) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
        "first_value(d) OVER (PARTITION BY p, q ORDER BY id)",
        "ntile(4) OVER (PARTITION BY q ORDER BY id)"};
    for (String call : calls) {
      String sql = "SELECT id, p, q, v, " + call + " AS x FROM w";
      List<List<Object>> whole = sorted(run(sql, 1L << 30));
      assertThat(whole).hasSize(60_000);
      assertThat(sorted(run(sql, SMALL))).as(sql).isEqualTo(whole);
      String plan = explain(sql, SMALL);
      assertThat(TestTables.metric(plan, "buckets")).as(plan).isGreaterThanOrEqualTo(3);
      assertThat(explain(sql, 1L << 30)).doesNotContain("buckets=");
    }
    // several calls over one partitioning share the buckets
    String two = "SELECT id, sum(v) OVER (PARTITION BY p ORDER BY id) AS a, rank() OVER (PARTITION BY p ORDER BY d) "
        + "AS b, lag(q) OVER (PARTITION BY p ORDER BY v, id) AS c FROM w";
    assertThat(sorted(run(two, SMALL))).isEqualTo(sorted(run(two, 1L << 30)));
    assertThat(TestTables.metric(explain(two, SMALL), "buckets")).isGreaterThanOrEqualTo(3);
    // different partitionings: one bucket (which needs more than the small limit)
    String mixed = "SELECT id, sum(v) OVER (PARTITION BY p) AS a, sum(v) OVER (PARTITION BY q) AS b FROM w";
    assertThat(explain(mixed, 64L << 20)).doesNotContain("buckets=");
  }

  private static String explain(String sql, long limit) {
    return String.join("\n", run("EXPLAIN ANALYZE " + sql, limit).stream().map(r -> String.valueOf(r.get(0))).toList());
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>(rows);
    out.sort(Comparator.comparing(Object::toString));
    return out;
  }

  /**
   * Aggregates over whole partitions (no ORDER BY) are a hash aggregation joined back to the rows: each answer equals
   * the same aggregate by GROUP BY joined to the table on the partition keys (NULL keys one partition), for integer,
   * string and two-column keys, DISTINCT, avg of integers and doubles, and the whole input as one partition.
   */
  @Test
  void wholePartitionAggregatesEqualGroupByJoinedBack() {
    String[][] cases = {
        {"p", "sum(v)"}, {"p", "avg(v)"}, {"q", "avg(d)"}, {"p, q", "count(*)"}, {"q", "count(DISTINCT p)"},
        {"p", "min(q)"}, {"q", "max(d)"}, {"p", "stddev_samp(v)"}};
    for (String[] c : cases) {
      String keys = c[0];
      String window = "SELECT id, " + c[1] + " OVER (PARTITION BY " + keys + ") AS x FROM w";
      StringBuilder on = new StringBuilder();
      for (String k : keys.split(", ")) {
        if (on.length() > 0) on.append(" AND ");
        on.append("w.").append(k).append(" IS NOT DISTINCT FROM g.").append(k);
      }
      String joined = "SELECT w.id, g.x FROM w JOIN (SELECT " + keys + ", " + c[1] + " AS x FROM w GROUP BY " + keys
          + ") g ON " + on;
      List<List<Object>> expected = sorted(run(joined, 1L << 30));
      assertThat(expected).hasSize(60_000);
      assertThat(sorted(run(window, 1L << 30))).as(window).isEqualTo(expected);
      assertThat(explain(window, 1L << 30)).doesNotContain("buckets=");
    }
    String all = "SELECT id, sum(v) OVER () AS x, count(*) OVER () AS y FROM w";
    List<List<Object>> rows = run(all, 1L << 30);
    List<Object> totals = run("SELECT sum(v), count(*) FROM w", 1L << 30).get(0);
    assertThat(rows).hasSize(60_000).allSatisfy(r -> assertThat(r.subList(1, 3)).isEqualTo(totals));
  }
}
