package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Files;
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
 * {@code count(*)}, {@code count(c)}, {@code min(c)} and {@code max(c)} over an unfiltered table are answered from
 * the row groups' footer statistics where those are exact (signed integers, dates, integer-backed decimals, with
 * NULL counts), with no page read ({@code row_groups_from_statistics}, {@code rows_scanned=0}); everything else —
 * doubles with NaN, strings, unsigned integers, a file written without statistics, a filter — is read. Every answer
 * equals the one computed by reading every row (parallel pipelines off: no statistics answers).
 */
class StatisticsAnswersTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  static final QuerySettings ON = QuerySettings.DEFAULT;
  static final QuerySettings READ = ON.withParallelPipelines(false);

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.INT64).named("n")
      .required(PrimitiveTypeName.INT32).named("i")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named("small")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("d")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("dec")
      .optional(PrimitiveTypeName.DOUBLE).named("f")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(32, false)).named("u")
      .named("st");

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("st"));
    Files.createDirectories(dir.resolve("nostats"));
    write(dir.resolve("st/a.parquet"), 1, true);
    write(dir.resolve("st/b.parquet"), 2, true);
    write(dir.resolve("nostats/a.parquet"), 3, false);
    engine = new QueryEngine(Catalog.open(dir.toString()), ON);
  }

  private static void write(Path file, int seed, boolean statistics) throws IOException {
    Random r = new Random(seed);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(SCHEMA)
        .withRowGroupRowCountLimit(500).withPageRowCountLimit(100).withStatisticsEnabled(statistics).build()) {
      for (int k = 0; k < 4_000; k++) {
        Group row = g.newGroup();
        // rows 1000-1499 (one whole row group) have no n at all
        if ((k < 1000 || k >= 1500) && r.nextInt(20) != 0) row.append("n", r.nextLong() >> r.nextInt(60));
        row.append("i", r.nextInt() >> r.nextInt(31));
        if (r.nextInt(7) != 0) row.append("small", r.nextInt(65_536) - 32_768);
        if (r.nextInt(9) != 0) row.append("d", r.nextInt(40_000) - 10_000);
        if (r.nextInt(5) != 0) row.append("dec", (long) r.nextInt(2_000_000_000) - 1_000_000_000L);
        if (r.nextInt(6) != 0) row.append("f", r.nextInt(50) == 0 ? Double.NaN : r.nextGaussian() * 1e6);
        if (r.nextInt(4) != 0) row.append("s", Long.toString(r.nextLong(), 36));
        if (r.nextInt(3) != 0) row.append("u", r.nextInt()); // as unsigned: half of them above 2^31
        w.write(row);
      }
    }
  }

  static final String ALL = "SELECT count(*), count(n), min(n), max(n), count(i), min(i), max(i), min(small), "
      + "max(small), count(d), min(d), max(d), count(dec), min(dec), max(dec) FROM ";

  @Test
  void unfilteredCountsAndBoundsComeFromTheFooters() {
    assertThat(run(ALL + "st", ON)).isEqualTo(run(ALL + "st", READ));
    String plan = explain(ALL + "st");
    assertThat(metric(plan, "row_groups_total")).isEqualTo(16);
    assertThat(metric(plan, "row_groups_from_statistics")).isEqualTo(16);
    assertThat(metric(plan, "rows_scanned")).isZero();
    assertThat(metric(plan, "bytes_scanned")).isZero();
    // a whole row group of NULLs: its bounds are NULL, its count 0
    assertThat(run("SELECT count(n), min(n) FROM st WHERE i IS NOT NULL", ON))
        .isEqualTo(run("SELECT count(n), min(n) FROM st", ON));
  }

  @Test
  void whatTheFootersDoNotSayExactlyIsRead() {
    for (String sql : List.of(
        "SELECT min(f), max(f), count(f) FROM st", // NaN: read
        "SELECT count(*), min(s), max(s) FROM st", // strings: read
        "SELECT min(u), max(u), count(*) FROM st", // unsigned: read
        ALL + "nostats",
        "SELECT count(*), min(n), max(d) FROM st WHERE i > 0", // filtered: read
        "SELECT count(DISTINCT i), min(n) FROM st",
        "SELECT sum(dec), count(*) FROM st")) {
      assertThat(run(sql, ON)).as(sql).isEqualTo(run(sql, READ));
      String plan = explain(sql);
      assertThat(plan).as(sql).doesNotContain("row_groups_from_statistics");
      assertThat(metric(plan, "rows_scanned")).as(sql).isPositive();
    }
  }

  @Test
  void countStarAloneAndEmptyAnswers() {
    for (String sql : List.of("SELECT count(*) FROM st", "SELECT count(*), max(i) FROM nostats",
        "SELECT max(d), count(*) FROM st", "SELECT count(*) FROM st WHERE n IS NULL AND n IS NOT NULL")) {
      assertThat(run(sql, ON)).as(sql).isEqualTo(run(sql, READ));
    }
    assertThat(metric(explain("SELECT count(*) FROM st"), "row_groups_from_statistics")).isEqualTo(16);
  }

  private static String explain(String sql) {
    return TestTables.explain(engine, sql, ON);
  }

  private static long metric(String plan, String name) {
    return TestTables.metric(plan, name);
  }

  static List<List<Object>> run(String sql, QuerySettings settings) {
    return TestTables.run(engine, sql, settings);
  }
}
