package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Filters, projections and partial aggregations run in the scan's row-group tasks ({@code parallel_pipelines} on)
 * answer exactly as on the consumer thread (off): the same rows in the same order, the same errors. Over a
 * lineitem-like file of many small row groups (NULLs, decimals, sums that leave a long, many groups, row groups
 * that a filter or pruning empties) and over the planner's table of edge values (NaN, -0.0, NULL keys).
 */
class ParallelPipelinesTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  static final QuerySettings ON = QuerySettings.DEFAULT.withBatchRows(300);
  static final QuerySettings OFF = ON.withParallelPipelines(false);

  static final MessageType LI = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("l_orderkey")
      .required(PrimitiveTypeName.INT32).named("l_linenumber")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("l_returnflag")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("l_linestatus")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_quantity")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_extendedprice")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_discount")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_tax")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("l_shipdate")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(0, 18)).named("big")
      .optional(PrimitiveTypeName.DOUBLE).named("f")
      .named("li");

  @BeforeAll
  static void write() throws IOException {
    Random r = new Random(14);
    SimpleGroupFactory g = new SimpleGroupFactory(LI);
    String[] flags = {"A", "N", "R"};
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("li.parquet")))
        .withType(LI).withRowGroupRowCountLimit(700).withPageRowCountLimit(200).build()) {
      for (int i = 0; i < 20_000; i++) {
        Group row = g.newGroup();
        row.append("l_orderkey", (long) (i / 4) * 7 % 3001);
        row.append("l_linenumber", i % 7 + 1);
        if (r.nextInt(50) != 0) row.append("l_returnflag", flags[r.nextInt(3)]);
        row.append("l_linestatus", r.nextBoolean() ? "O" : "F");
        if (r.nextInt(40) != 0) row.append("l_quantity", 100L + r.nextInt(4900));
        row.append("l_extendedprice", 90_000L + r.nextInt(10_000_000));
        row.append("l_discount", (long) r.nextInt(11));
        if (r.nextInt(30) != 0) row.append("l_tax", (long) r.nextInt(9));
        row.append("l_shipdate", 8_000 + i / 8); // sorted: row groups prune by date
        if (r.nextInt(10) != 0) row.append("big", (r.nextBoolean() ? 1 : -1) * (800_000_000_000_000_000L + r.nextInt(1000)));
        if (r.nextInt(10) != 0) row.append("f", r.nextGaussian());
        w.write(row);
      }
    }
    TestTables.create(dir);
    engine = new QueryEngine(Catalog.open(dir.toString()), ON);
  }

  @AfterAll
  static void close() {
    engine = null;
  }

  static final List<String> QUERIES = List.of(
      // TPC-H Q1 and Q6
      "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, "
          + "sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, "
          + "sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, "
          + "avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order "
          + "FROM li WHERE l_shipdate <= DATE '1992-12-01' - INTERVAL '90' DAY "
          + "GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
      "SELECT sum(l_extendedprice * l_discount) AS revenue FROM li WHERE l_shipdate >= DATE '1992-01-01' "
          + "AND l_shipdate < DATE '1993-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
      // no ORDER BY: the groups come out in order of first appearance either way
      "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), avg(l_tax), min(l_extendedprice), max(l_quantity) "
          + "FROM li GROUP BY l_returnflag, l_linestatus",
      "SELECT l_orderkey, count(*), count(l_quantity), sum(l_quantity), min(l_returnflag), max(l_shipdate), "
          + "avg(l_linenumber), sum(l_linenumber) FROM li GROUP BY l_orderkey",
      "SELECT l_orderkey % 10 AS k, l_linenumber, sum(l_discount * l_tax), min(l_tax) FROM li "
          + "WHERE l_quantity > 10 GROUP BY l_orderkey % 10, l_linenumber",
      // unscaled sums that leave a long, in the partial states and in the merge
      "SELECT sum(big), avg(big), count(big), min(big) FROM li",
      "SELECT l_returnflag, sum(big), avg(big) FROM li GROUP BY l_returnflag",
      // every row group pruned, or emptied by the filter
      "SELECT count(*), count(l_tax), sum(l_quantity), avg(l_quantity), min(l_returnflag) FROM li "
          + "WHERE l_shipdate < DATE '1980-01-01'",
      "SELECT count(*), sum(l_quantity) FROM li WHERE l_quantity + 0 > 1000",
      "SELECT l_linestatus, count(*), sum(l_quantity) FROM li WHERE l_quantity + 0 > 49.90 GROUP BY l_linestatus",
      "SELECT count(*) FROM li",
      // filters and projections only: rows in file order
      "SELECT l_orderkey, l_extendedprice * (1 - l_discount) AS p, upper(l_returnflag) FROM li "
          + "WHERE l_discount + 0 > 0.05 AND l_orderkey % 3 = 1",
      "SELECT DISTINCT l_returnflag, l_linestatus FROM li",
      // split: compensated double sums (the same answer in either plan); not split: DISTINCT aggregates
      "SELECT l_linestatus, sum(f), avg(f), count(DISTINCT l_orderkey) FROM li GROUP BY l_linestatus",
      "SELECT sum(f) FROM li WHERE l_quantity > 20",
      // approx_count_distinct split: each task's sketch (its exact hashes here) merged into the same answer
      "SELECT l_linestatus, approx_count_distinct(l_orderkey), approx_count_distinct(l_returnflag), "
          + "approx_count_distinct(f), count(*) FROM li GROUP BY l_linestatus",
      "SELECT approx_count_distinct(l_orderkey), approx_count_distinct(big) FROM li WHERE l_quantity > 10",
      // bool_and / bool_or split (merged by AND / OR); the analytic aggregates single-phase beside them
      "SELECT l_returnflag, bool_and(l_quantity > 1), bool_or(l_tax > 0.07), bool_and(l_tax < 0.08) FROM li "
          + "GROUP BY l_returnflag",
      "SELECT bool_or(l_quantity > 49), every(l_discount >= 0) FROM li WHERE l_shipdate < DATE '1991-01-01'",
      "SELECT l_linestatus, median(l_quantity), percentile_disc(0.3) WITHIN GROUP (ORDER BY l_shipdate), "
          + "corr(l_quantity, l_tax), arg_max(l_orderkey, l_extendedprice), approx_count_distinct(l_orderkey), "
          + "bool_and(l_quantity > 1) FROM li GROUP BY l_linestatus",
      // edge values: NULL, NaN and -0.0 keys
      "SELECT i32, count(*), count(s), sum(i64), sum(dec), avg(dec), avg(i32), min(s), max(f64), min(d), max(b) "
          + "FROM t GROUP BY i32",
      "SELECT f64, count(*), sum(dec), min(i8) FROM t GROUP BY f64",
      "SELECT s, b, count(*), max(dec) FROM t GROUP BY s, b",
      "SELECT count(*), sum(i8), min(f64), max(s) FROM t WHERE i32 > 1000000",
      // a running total that leaves BIGINT and comes back: only the exact total must fit, in either plan
      "SELECT sum(i64 * 1000000000) FROM t",
      // over many row groups: every 7 rows add 3 x 4e18 - 4 x 3e18 = 0, so the running sum leaves BIGINT and comes
      // back again and again; the total (4e18: one row past the last 7) fits
      "SELECT sum(CASE WHEN l_linenumber <= 3 THEN 4000000000000000000 ELSE -3000000000000000000 END), count(*), "
          + "sum(l_linenumber), sum(CASE WHEN l_tax IS NULL THEN l_linenumber END) FROM li",
      "SELECT l_linenumber, sum(l_orderkey), sum(CASE WHEN l_returnflag IS NULL THEN l_orderkey END), "
          + "sum(CAST(big AS BIGINT) / 1000) FROM li WHERE l_linenumber + 0 > 0 GROUP BY l_linenumber",
      "SELECT l_linenumber / 8 AS zero, sum(CASE WHEN l_linenumber <= 3 THEN 4000000000000000000 "
          + "ELSE -3000000000000000000 END) FROM li GROUP BY l_linenumber / 8");

  @Test
  void fusedPipelinesAnswerAsTheConsumerThreadDoes() {
    for (String sql : QUERIES) {
      List<List<Object>> on = run(sql, ON);
      List<List<Object>> off = run(sql, OFF);
      assertThat(on).as(sql).isEqualTo(off);
      assertThat(on).as(sql).isNotEmpty();
    }
  }

  @Test
  void anExpressionErrorInAScanTaskIsTheSameError() {
    for (String sql : List.of(
        "SELECT sum(l_quantity / (l_tax - l_tax)) FROM li",
        "SELECT l_returnflag, sum(l_orderkey / (l_linenumber - 7)) FROM li GROUP BY l_returnflag",
        "SELECT l_orderkey FROM li WHERE l_orderkey / (l_linenumber - 3) > 1",
        "SELECT CAST(l_returnflag AS INTEGER) FROM li",
        "SELECT sum(i64 * 3074457345618258602) FROM t",
        "SELECT sum(l_orderkey * 3000000000000000) FROM li",
        // the running sum leaves BIGINT and comes back, but the total does not fit (every 7 rows add 2e18 to the
        // odd line numbers' group)
        "SELECT l_linenumber % 2, sum(CASE WHEN l_linenumber <= 3 THEN 4000000000000000000 "
            + "ELSE -3000000000000000000 END) FROM li GROUP BY l_linenumber % 2")) {
      QuiverException on = error(sql, ON);
      QuiverException off = error(sql, OFF);
      assertThat(on.code()).as(sql).isEqualTo(off.code());
      assertThat(on.getMessage()).as(sql).isEqualTo(off.getMessage());
    }
  }

  @Test
  void explainShowsWhatRunsInTheScanTasks() {
    String sql = "EXPLAIN ANALYZE SELECT l_returnflag, count(*), sum(l_quantity) FROM li WHERE l_quantity + 0 > 10 "
        + "GROUP BY l_returnflag";
    String on = String.join("\n", run(sql, ON).stream().map(r -> String.valueOf(r.get(0))).toList());
    String off = String.join("\n", run(sql, OFF).stream().map(r -> String.valueOf(r.get(0))).toList());
    assertThat(on).contains("AggregateExec: mode=final", "AggregateExec: mode=partial", "[in scan tasks]",
        "pipeline=[filter, partial_aggregate]");
    assertThat(off).doesNotContain("mode=", "in scan tasks", "pipeline=");
    // integer sums (exact in every plan) split without GROUP BY or under one string key straight off the scan, not
    // under an integer key or several keys (measured slower split: bench/results/aggregation.md)
    String ints = String.join("\n", run("EXPLAIN SELECT sum(l_orderkey) FROM li WHERE l_orderkey + 0 > 5", ON).stream()
        .map(r -> String.valueOf(r.get(0))).toList());
    assertThat(ints).contains("AggregateExec: mode=partial sum(l_orderkey)", "pipeline=[filter, partial_aggregate]");
    String byInt = String.join("\n", run("EXPLAIN SELECT l_linenumber, sum(l_orderkey) FROM li GROUP BY l_linenumber",
        ON).stream().map(r -> String.valueOf(r.get(0))).toList());
    assertThat(byInt).doesNotContain("mode=");
    String doubles = String.join("\n", run("EXPLAIN SELECT sum(f) FROM li WHERE l_orderkey + 0 > 5", ON).stream()
        .map(r -> String.valueOf(r.get(0))).toList());
    String sketches = String.join("\n", run("EXPLAIN SELECT approx_count_distinct(l_orderkey) FROM li WHERE "
        + "l_orderkey + 0 > 5", ON).stream().map(r -> String.valueOf(r.get(0))).toList());
    assertThat(sketches).contains("AggregateExec: mode=partial approx_count_distinct(l_orderkey)");
    // split: sums of doubles are compensated (CompensatedSum), so their answer does not depend on the split
    assertThat(doubles).contains("AggregateExec: mode=partial sum(f)", "pipeline=[filter, partial_aggregate]");
    // the rows each operator produced add up the same way
    assertThat(rows(on, "FilterExec")).isEqualTo(rows(off, "FilterExec"));
    assertThat(rows(on, "ParquetScanExec")).isEqualTo(rows(off, "ParquetScanExec"));
    assertThat(rows(on, "AggregateExec: mode=final")).isEqualTo(rows(off, "AggregateExec"));
    assertThat(rows(on, "AggregateExec: mode=partial")).isGreaterThan(rows(on, "AggregateExec: mode=final"));
  }

  @Test
  void aCancellationOrAMemoryLimitInAScanTaskLeaksNothing() {
    String sql = "SELECT l_returnflag, count(*), sum(l_quantity * l_extendedprice) FROM li WHERE l_quantity + 0 > 1 "
        + "GROUP BY l_returnflag";
    for (int after : new int[] {1, 5, 20, 60}) {
      java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
      Cancellation cancel = () -> {
        if (checks.incrementAndGet() > after) {
          throw new QuiverException(dev.quiver.common.ErrorCode.CANCELLED, "query cancelled by the client");
        }
      };
      try (BufferAllocator allocator = new RootAllocator(64 << 20)) { // closing it fails on a leak
        PreparedQuery q = engine.prepare(sql, allocator, ON);
        QuiverException e = org.assertj.core.api.Assertions.catchThrowableOfType(() -> {
          try (QueryExecution ex = engine.execute(q, allocator, cancel)) {
            for (VectorSchemaRoot b = ex.next(); b != null; b = ex.next()) b.close();
          }
        }, QuiverException.class);
        assertThat(e).as("cancelled after %d checks", after).isNotNull();
        assertThat(e.code()).isEqualTo(dev.quiver.common.ErrorCode.CANCELLED);
      }
    }
    List<List<Object>> expected = run(sql, OFF);
    int failed = 0;
    int answered = 0;
    for (long limit : new long[] {32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20}) {
      for (QuerySettings settings : List.of(ON, OFF)) {
        List<List<Object>> got = null;
        try (BufferAllocator allocator = new RootAllocator(limit)) { // closing it fails on a leak
          PreparedQuery q = engine.prepare(sql, allocator, settings);
          List<List<Object>> rows = new ArrayList<>();
          try (QueryExecution ex = engine.execute(q, allocator)) {
            for (VectorSchemaRoot next = ex.next(); next != null; next = ex.next()) {
              try (VectorSchemaRoot b = next) {
                for (int i = 0; i < b.getRowCount(); i++) {
                  List<Object> row = new ArrayList<>();
                  for (var v : b.getFieldVectors()) row.add(v.getObject(i));
                  rows.add(row);
                }
              }
            }
          }
          got = rows;
        } catch (QuiverException e) {
          assertThat(e.code()).isEqualTo(dev.quiver.common.ErrorCode.RESOURCE_EXHAUSTED);
        } catch (org.apache.arrow.memory.OutOfMemoryException e) {
          // an allocation refused outright: also an answer, as long as nothing leaked
        }
        if (got != null) {
          assertThat(got).isEqualTo(expected);
          answered++;
        } else {
          failed++;
        }
      }
    }
    assertThat(failed).isPositive();
    assertThat(answered).isPositive();
  }

  private static long rows(String explain, String operator) {
    for (String line : explain.split("\n")) {
      if (line.strip().startsWith(operator)) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("output_rows=(\\d+)").matcher(line);
        if (m.find()) return Long.parseLong(m.group(1));
      }
    }
    throw new AssertionError(operator + " not in\n" + explain);
  }

  private static QuiverException error(String sql, QuerySettings settings) {
    try {
      run(sql, settings);
    } catch (QuiverException e) {
      return e;
    }
    throw new AssertionError("no error from " + sql);
  }

  /** Runs {@code sql}; the allocator is closed after, so a leak fails the test. */
  private static List<List<Object>> run(String sql, QuerySettings settings) {
    return TestTables.run(engine, sql, settings);
  }
}
