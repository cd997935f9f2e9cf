package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.scan.table.Catalog;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact pushdown by brute force: for each WHERE clause, the rows the query returns (the scan evaluating the
 * exact conjuncts itself, no filter above) equal the rows for which the same predicate, evaluated by the
 * engine in a projection over every row of the table, is TRUE — over NULLs, NaN, -0.0, infinities,
 * unsigned integers past the signed range, decimals (one wider than 64 bits), strings byte-wise, booleans,
 * dates, a partition column and a column absent from one file. Also with pruning off, and as
 * {@code count(*)} (the predicate's columns not output).
 */
class ExactPushdownTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  BufferAllocator allocator = new RootAllocator();

  static final MessageType V = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, false)).named("u8")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(32, false)).named("u32")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.intType(64, false)).named("u64")
      .optional(PrimitiveTypeName.FLOAT).named("f32")
      .optional(PrimitiveTypeName.DOUBLE).named("f64")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("dec")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.decimalType(2, 38)).named("wide")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("d")
      .optional(PrimitiveTypeName.BOOLEAN).named("b")
      .named("v");

  static final Integer[] U8 = {null, 0, 1, 127, 128, 255};
  static final Integer[] U32 = {null, 0, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, -1}; // the last two: 2^31, 2^32-1
  static final Long[] U64 = {null, 0L, 1L, Long.MAX_VALUE, Long.MIN_VALUE, -1L}; // 2^63, 2^64-1
  static final Float[] F32 = {null, Float.NaN, -0.0f, 0.0f, 1.5f, -1.5f, Float.POSITIVE_INFINITY};
  static final Double[] F64 = {null, Double.NaN, -0.0, 0.0, 1.5, -1.5, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY};
  static final Long[] DEC = {null, -100L, 0L, 5L, 150L, 9_999_999L};
  static final BigInteger[] WIDE = {null, BigInteger.TEN.pow(30), BigInteger.TEN.pow(30).negate(), BigInteger.ZERO,
      BigInteger.valueOf(250)};
  static final String[] S = {null, "", "a", "ab", "abc", "b", "é", "z", "Ab"};
  static final Integer[] D = {null, 18_000, 18_001, 18_002, 19_000};
  static final Boolean[] B = {null, true, false};

  static <T> T pick(T[] values, int i) {
    return values[i % values.length];
  }

  @BeforeAll
  static void write() throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(V);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("v.parquet")))
        .withType(V).withRowGroupRowCountLimit(50).build()) {
      for (int i = 0; i < 400; i++) {
        Group g = f.newGroup().append("id", (long) i);
        if (pick(U8, i) != null) g.append("u8", pick(U8, i));
        if (pick(U32, i / 2) != null) g.append("u32", pick(U32, i / 2));
        if (pick(U64, i / 3) != null) g.append("u64", pick(U64, i / 3));
        if (pick(F32, i / 5) != null) g.append("f32", pick(F32, i / 5));
        if (pick(F64, i) != null) g.append("f64", pick(F64, i));
        if (pick(DEC, i / 7) != null) g.append("dec", pick(DEC, i / 7));
        if (pick(WIDE, i) != null) g.append("wide", Binary.fromConstantByteArray(pick(WIDE, i).toByteArray()));
        if (pick(S, i / 2) != null) g.append("s", pick(S, i / 2));
        if (pick(D, i / 3) != null) g.append("d", pick(D, i / 3));
        if (pick(B, i / 4) != null) g.append("b", pick(B, i / 4));
        w.write(g);
      }
    }
    // a partitioned table whose second file lacks the column extra
    MessageType withExtra = Types.buildMessage().required(PrimitiveTypeName.INT64).named("id")
        .optional(PrimitiveTypeName.INT64).named("extra").named("p");
    MessageType without = Types.buildMessage().required(PrimitiveTypeName.INT64).named("id").named("p");
    Files.createDirectories(dir.resolve("p/k=1"));
    Files.createDirectories(dir.resolve("p/k=2"));
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("p/k=1/a.parquet")))
        .withType(withExtra).build()) {
      for (long id = 0; id < 30; id++) {
        Group g = new SimpleGroupFactory(withExtra).newGroup().append("id", id);
        if (id % 3 != 0) g.append("extra", id);
        w.write(g);
      }
    }
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("p/k=2/b.parquet")))
        .withType(without).build()) {
      for (long id = 30; id < 50; id++) w.write(new SimpleGroupFactory(without).newGroup().append("id", id));
    }
    engine = new QueryEngine(Catalog.open(dir.toString()));
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  static final List<String> EXACT = List.of(
      "u8 > 127", "u8 = 255", "u8 IN (0, 255)", "u8 <> 128", "u32 > 2147483647", "u32 >= 4294967295",
      "u32 < 2147483648", "u64 > 9223372036854775807", "u64 = 18446744073709551615", "u64 <= 1",
      "f64 = 0.0", "f64 = -0.0", "f64 > 1", "f64 < 0", "f64 = CAST('NaN' AS DOUBLE)", "f64 > CAST('Infinity' AS DOUBLE)",
      "f64 >= CAST('Infinity' AS DOUBLE)", "f64 <> CAST('NaN' AS DOUBLE)",
      "f64 IN (0.0, 1.5, CAST('NaN' AS DOUBLE), 2, 3, 4, 5, 6, 7, 8)", "f64 NOT IN (-0.0, 1.5)",
      "f32 > 0", "f32 = 0", "f32 = CAST('NaN' AS REAL)", "f32 < 1.5",
      "dec > 0.05", "dec = 1.5", "dec <> 0", "dec IN (0, 1.50)", "dec >= 99999.99", "dec < -0.999",
      "wide > 2.5", "wide < 0", "wide = 2.50", "wide IS NULL", "wide >= 1000000000000000000000000000",
      "s > 'ab'", "s LIKE 'a%'", "s NOT LIKE 'a%'", "s IN ('a', 'é')", "s = ''", "s < 'é'", "s >= 'z'",
      "s IS NOT NULL", "s BETWEEN 'a' AND 'b'",
      "b", "NOT b", "b IS NULL", "b = false", "b IS NOT TRUE",
      "d >= DATE '2019-04-14'", "d IS DISTINCT FROM DATE '2019-04-15'", "d IS NOT DISTINCT FROM DATE '2019-04-15'",
      "NOT (u8 > 1 OR f64 < 0)", "u8 > 1 OR s IS NULL", "u8 NOT IN (1, NULL)", "u8 > 1 AND f64 > 0 AND s IS NOT NULL",
      "u8 > 1 AND s LIKE 'a%c'", "u8 + 1 > 2", "f64 * 2 > 1 AND dec > 0");

  private List<List<Object>> run(String sql, QuerySettings settings) {
    List<List<Object>> out = new ArrayList<>();
    PreparedQuery q = engine.prepare(sql, allocator, settings);
    try (QueryExecution ex = engine.execute(q, allocator)) {
      org.apache.arrow.vector.VectorSchemaRoot next;
      while ((next = ex.next()) != null) {
        try (var b = next) {
          for (int i = 0; i < b.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (var v : b.getFieldVectors()) row.add(v.getObject(i));
            out.add(row);
          }
        }
      }
    }
    return out;
  }

  /** The ids for which {@code predicate}, evaluated in a projection over every row (no filter anywhere), is TRUE. */
  private List<Object> bruteForce(String table, String predicate) {
    List<Object> ids = new ArrayList<>();
    for (List<Object> r : run("SELECT id, (" + predicate + ") AS m FROM " + table + " ORDER BY id", QuerySettings.DEFAULT)) {
      if (Boolean.TRUE.equals(r.get(1))) ids.add(r.get(0));
    }
    return ids;
  }

  private void check(String table, String predicate) {
    List<Object> expected = bruteForce(table, predicate);
    for (QuerySettings settings : List.of(QuerySettings.DEFAULT, QuerySettings.DEFAULT.withPruning(false))) {
      String sql = "SELECT id FROM " + table + " WHERE " + predicate + " ORDER BY id";
      List<Object> ids = run(sql, settings).stream().map(r -> r.get(0)).toList();
      assertThat(ids).as(predicate + " pruning=" + settings.pruning()).isEqualTo(expected);
      List<List<Object>> count = run("SELECT count(*) FROM " + table + " WHERE " + predicate, settings);
      assertThat(count).as("count(*) WHERE " + predicate).isEqualTo(List.of(List.of((long) expected.size())));
    }
  }

  @Test
  void theScanKeepsExactlyTheRowsTheEngineSaysAreTrue() {
    int pushed = 0;
    for (String p : EXACT) {
      check("v", p);
      LogicalPlan plan = engine.prepare("SELECT id FROM v WHERE " + p, allocator).plan();
      if (!scans(plan).get(0).exact().isEmpty()) pushed++;
    }
    assertThat(pushed).as("predicates the scan evaluated itself").isGreaterThan(EXACT.size() - 5);
  }

  @Test
  void partitionAndAbsentColumns() {
    for (String p : List.of("k = 2", "k = 1 AND id > 20", "extra IS NULL", "extra > 10", "extra IS NULL AND k = 1",
        "k = 2 OR extra = 4")) {
      check("p", p);
    }
  }

  /** An exact conjunct leaves the filter above; what the scan cannot evaluate stays there, and shows as residual. */
  @Test
  void exactConjunctsAreNotEvaluatedTwice() {
    LogicalPlan plan = engine.prepare("SELECT count(*) FROM v WHERE u8 > 1 AND f64 * 2 > 1", allocator).plan();
    List<String> lines = QueryEngine.render(plan);
    String text = String.join("\n", lines);
    assertThat(lines).filteredOn(l -> l.contains("Filter:")).singleElement().asString()
        .contains("f64 * 2").doesNotContain("u8");
    assertThat(text).contains("exact=[u8 > 1]").contains("residual=");
    LogicalPlan all = engine.prepare("SELECT count(*) FROM v WHERE u8 > 1 AND s IS NULL", allocator).plan();
    assertThat(QueryEngine.render(all)).noneMatch(l -> l.contains("Filter:"));
    LogicalPlan.TableScan scan = scans(all).get(0);
    assertThat(scan.columns()).isEmpty(); // count(*): the scan reads u8 and s for itself
    assertThat(scan.exact()).hasSize(2);
  }

  /** An inexact conjunct prunes with what it implies and stays in the filter above, which checks it. */
  @Test
  void anInexactConjunctPrunesAndStaysAbove() {
    List<String> lines = QueryEngine.render(engine.prepare("SELECT id FROM v WHERE s LIKE 'a%c' AND u8 > 1", allocator).plan());
    assertThat(lines).filteredOn(l -> l.contains("Filter:")).singleElement().asString()
        .contains("s LIKE 'a%c'").doesNotContain("u8");
    assertThat(lines).filteredOn(l -> l.contains("TableScan:")).singleElement().asString()
        .contains("starts_with(s, 'a')").contains("exact=[u8 > 1]").contains("residual=s LIKE 'a%c'");
  }

  static List<LogicalPlan.TableScan> scans(LogicalPlan p) {
    List<LogicalPlan.TableScan> out = new ArrayList<>();
    if (p instanceof LogicalPlan.TableScan s) out.add(s);
    for (LogicalPlan c : p.children()) out.addAll(scans(c));
    return out;
  }
}
