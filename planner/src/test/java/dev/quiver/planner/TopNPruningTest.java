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
 * {@code ORDER BY k … LIMIT n} over a scan: the top-N's bound prunes row groups while the scan runs
 * ({@code row_groups_pruned_top_n}), the scan reading its row groups best first. Every answer equals the one with
 * pruning off and the first n rows of the full sort (no top-N at all); over a key sorted across row groups only the
 * row group holding the answer is read.
 */
class TopNPruningTest {
  @TempDir
  static Path dir;
  static final QuerySettings ON = QuerySettings.DEFAULT;
  static final QuerySettings OFF = ON.withPruning(false);
  static QueryEngine engine;

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.INT64).named("k")
      .required(PrimitiveTypeName.INT32).named("v")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("d")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("dec")
      .optional(PrimitiveTypeName.INT64).named("r")
      .named("t");

  /** Rows per file; row groups of 500 rows. */
  static final int ROWS = 4_000;

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("sorted"));
    // the second file holds the smaller keys: file order is not key order
    write(dir.resolve("sorted/a.parquet"), ROWS, 1, false);
    write(dir.resolve("sorted/b.parquet"), 0, 2, true);
    engine = new QueryEngine(Catalog.open(dir.toString()), ON);
  }

  /**
   * {@code k} ascending from {@code base} (unique, a NULL every 97th row of the last row group when {@code nulls}),
   * {@code d} and {@code dec} ascending with ties, {@code r} random with ties, {@code v} the row's number.
   */
  private static void write(Path file, int base, int seed, boolean nulls) throws IOException {
    Random rnd = new Random(seed);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(SCHEMA)
        .withRowGroupRowCountLimit(500).withPageRowCountLimit(100).build()) {
      for (int i = 0; i < ROWS; i++) {
        int n = base + i;
        Group row = g.newGroup();
        if (!(nulls && i >= ROWS - 500 && i % 97 == 0)) row.append("k", (long) n * 3);
        row.append("v", n);
        row.append("d", 10_000 + n / 7);
        row.append("dec", (long) n * 11 / 5);
        row.append("r", (long) rnd.nextInt(2_000));
        w.write(row);
      }
    }
  }

  @Test
  void aKeySortedAcrossRowGroupsReadsOneRowGroup() {
    for (String order : List.of("k", "k DESC", "k NULLS FIRST", "k DESC NULLS LAST", "d, v", "d DESC, v DESC",
        "dec, v", "dec DESC, v")) {
      String sql = "SELECT k, v, d, dec FROM sorted ORDER BY " + order + " LIMIT 10";
      String full = "SELECT k, v, d, dec FROM sorted ORDER BY " + order;
      assertThat(run(sql, ON)).as(sql).isEqualTo(run(sql, OFF))
          .isEqualTo(run(full, ON).subList(0, 10));
      String plan = explain(sql, ON);
      long total = TestTables.metric(plan, "row_groups_total");
      assertThat(total).as(plan).isEqualTo(16);
      // the best row group alone holds the answer and is read first; with NULLs first, the row group holding
      // NULLs comes first (its statistics cannot rank it), then the best, and perhaps the one after it, which the
      // scan's second thread may start before the first has set the bound (a race: 2 or 3 row groups read)
      long pruned = TestTables.metric(plan, "row_groups_pruned_top_n");
      if (order.contains("NULLS FIRST")) assertThat(pruned).as(plan).isBetween(13L, 14L);
      else assertThat(pruned).as(plan).isEqualTo(15);
      assertThat(TestTables.metric(plan, "rows_scanned")).as(plan).isEqualTo(500 * (16 - pruned));
      assertThat(plan).contains("top_n_filter=[");
    }
  }

  @Test
  void filtersProjectionsAndTiesGiveTheSameRowsAsWithoutPruning() {
    for (String sql : List.of(
        "SELECT r, v FROM sorted ORDER BY r LIMIT 25",
        "SELECT r, v FROM sorted ORDER BY r DESC LIMIT 7",
        "SELECT r + 1 AS q, k FROM sorted WHERE v % 3 = 0 ORDER BY k DESC LIMIT 40",
        "SELECT x, v FROM (SELECT k AS x, v FROM sorted WHERE v > 3000) s ORDER BY x LIMIT 12",
        "SELECT k, v FROM sorted WHERE k > 10000 ORDER BY k LIMIT 5",
        "SELECT k, v FROM sorted ORDER BY k NULLS FIRST LIMIT 3",
        "SELECT k, v FROM sorted ORDER BY k LIMIT 7999",
        "SELECT k, v FROM sorted ORDER BY k DESC LIMIT 100000",
        "SELECT a.k, b.v FROM sorted a JOIN sorted b ON a.v = b.v + 1 ORDER BY a.k DESC LIMIT 9",
        "SELECT d, count(*) FROM sorted GROUP BY d ORDER BY d LIMIT 4")) {
      List<List<Object>> on = run(sql, ON);
      assertThat(on).as(sql).isEqualTo(run(sql, OFF)).isNotEmpty();
    }
    // ties on r: the rows kept are the first in the scan's order, the same with and without pruning
    String plan = explain("SELECT r, v FROM sorted ORDER BY r LIMIT 25", ON);
    assertThat(TestTables.metric(plan, "row_groups_pruned_top_n")).as(plan).isLessThan(16);
    // the rows of the row groups read that cannot beat the bound are dropped before their other columns are decoded
    assertThat(TestTables.metric(plan, "rows_filtered_late")).as(plan).isPositive();
    assertThat(TestTables.metric(TestTables.explain(engine, "SELECT r, v FROM sorted ORDER BY r LIMIT 25", OFF),
        "rows_filtered_late")).isZero();
    // a selective filter below the top-N: still correct, still pruned
    String filtered = explain("SELECT k, v FROM sorted WHERE v % 2 = 0 ORDER BY k DESC LIMIT 10", ON);
    assertThat(TestTables.metric(filtered, "row_groups_pruned_top_n")).as(filtered).isEqualTo(15);
  }

  @Test
  void pruningOffReadsEveryRowGroupAndShowsNoBound() {
    String plan = explain("SELECT k FROM sorted ORDER BY k LIMIT 10", OFF);
    assertThat(plan).doesNotContain("top_n_filter").doesNotContain("row_groups_pruned_top_n");
    assertThat(TestTables.metric(plan, "rows_scanned")).isEqualTo(2L * ROWS);
  }

  private static List<List<Object>> run(String sql, QuerySettings settings) {
    return TestTables.run(engine, sql, settings);
  }

  private static String explain(String sql, QuerySettings settings) {
    return TestTables.explain(engine, sql, settings);
  }
}
