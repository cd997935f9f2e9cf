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
 * A partial aggregation that does not reduce its rows passes them through to the final one
 * (PartialAggregate.Task#add): the answer, row for row and in the same order, is the single-phase plan's. The file
 * has row groups large enough for a task to judge: the first starts with repeated keys and turns distinct (its task
 * switches midway: states first, then rows), the next ones pass through from their start and repeat keys of the
 * first (rows merged into groups that came as states), with NULL keys and arguments throughout.
 */
class PassThroughAggregationTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  static final QuerySettings ON = QuerySettings.DEFAULT.withBatchRows(1000);
  static final QuerySettings OFF = ON.withParallelPipelines(false);
  static final int GROUP_ROWS = 40_000;

  static final MessageType U = Types.buildMessage()
      .optional(PrimitiveTypeName.INT64).named("k")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.DOUBLE).named("x")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("q")
      .optional(PrimitiveTypeName.INT32).named("n")
      .named("u");

  @BeforeAll
  static void write() throws IOException {
    Random r = new Random(38);
    SimpleGroupFactory g = new SimpleGroupFactory(U);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("u.parquet")))
        .withType(U).withRowGroupRowCountLimit(GROUP_ROWS).withPageRowCountLimit(5_000).build()) {
      for (int i = 0; i < 3 * GROUP_ROWS; i++) {
        long k;
        if (i < 5_000) k = i % 50; // repeated, then distinct: the first task switches midway
        else if (i < GROUP_ROWS) k = i;
        else if (i < 2 * GROUP_ROWS) k = r.nextInt(10) == 0 ? i % 1_000 : i; // some keys of the first row group
        else k = i;
        Group row = g.newGroup();
        if (r.nextInt(100) != 0) row.append("k", k);
        if (r.nextInt(20) != 0) row.append("s", "s" + (k % 30_000));
        if (r.nextInt(10) != 0) row.append("x", r.nextGaussian() * Math.pow(10, r.nextInt(12)));
        if (r.nextInt(10) != 0) row.append("q", (long) r.nextInt(2_000_000) - 1_000_000);
        if (r.nextInt(10) != 0) row.append("n", r.nextInt(10));
        w.write(row);
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), ON);
  }

  static final List<String> QUERIES = List.of(
      "SELECT k, count(*), count(x), sum(x), avg(x), sum(q), avg(q), avg(n), min(x), max(s), bool_or(n > 5) "
          + "FROM u GROUP BY k",
      "SELECT s, k % 7, count(*), sum(q), min(n), max(k) FROM u GROUP BY s, k % 7",
      "SELECT k, count(*), sum(x) FROM u WHERE n > 2 GROUP BY k",
      "SELECT k, s FROM u GROUP BY k, s",
      // count(*) alone: its passed-through rows are the keys alone, no argument column
      "SELECT k, count(*) FROM u GROUP BY k",
      "SELECT s, k, count(*), count(*) FROM u GROUP BY s, k");

  @Test
  void rowsPassedThroughAnswerAsTheSinglePhasePlanDoes() {
    for (String sql : QUERIES) {
      List<List<Object>> on = TestTables.run(engine, sql, ON);
      List<List<Object>> off = TestTables.run(engine, sql, OFF);
      assertThat(on).as(sql).hasSizeGreaterThan(GROUP_ROWS).isEqualTo(off);
    }
  }

  /** Tasks of 40,000 rows: their sketches reach the registers, merged as a single sketch would have counted. */
  @Test
  void sketchesInRegistersMergeToTheSinglePhaseAnswer() {
    for (String sql : List.of("SELECT n, approx_count_distinct(x), approx_count_distinct(k), count(*) FROM u GROUP BY n",
        "SELECT approx_count_distinct(k), approx_count_distinct(s), approx_count_distinct(q) FROM u")) {
      List<List<Object>> on = TestTables.run(engine, sql, ON);
      assertThat(on).as(sql).isEqualTo(TestTables.run(engine, sql, OFF)).isNotEmpty();
      String plan = String.join("\n", TestTables.run(engine, "EXPLAIN " + sql, ON).stream()
          .map(r -> String.valueOf(r.get(0))).toList());
      assertThat(plan).contains("AggregateExec: mode=partial");
    }
  }

  @Test
  void explainAnalyzeCountsTheRowsPassedThrough() {
    String plan = String.join("\n", TestTables.run(engine, "EXPLAIN ANALYZE " + QUERIES.get(0), ON).stream()
        .map(r -> String.valueOf(r.get(0))).toList());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "AggregateExec: mode=partial .*passed_through_rows=(\\d+)").matcher(plan);
    assertThat(m.find()).as(plan).isTrue();
    // the first two tasks (run at once) aggregate at least their first 32,768 rows each before they judge; the third
    // starts after one of them judged, and passes through all its rows
    long passed = Long.parseLong(m.group(1));
    assertThat(passed).isGreaterThan(GROUP_ROWS).isLessThan(3L * GROUP_ROWS - 32_768);
    // a query whose keys repeat never passes through
    String reducing = String.join("\n", TestTables.run(engine,
        "EXPLAIN ANALYZE SELECT n, count(*), sum(x) FROM u GROUP BY n", ON).stream().map(r -> String.valueOf(r.get(0))).toList());
    assertThat(reducing).contains("AggregateExec: mode=partial").doesNotContain("passed_through_rows");
  }
}
