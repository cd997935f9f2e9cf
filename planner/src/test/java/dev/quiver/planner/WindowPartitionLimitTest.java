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
 * {@code row_number() OVER (PARTITION BY … ORDER BY …)} kept to {@code <= k} by a filter right above: the window
 * keeps the first k rows of each partition with a heap per partition and sorts only those ({@code partition_limit},
 * {@code kept_rows}). Every answer equals the same query written so that no limit applies (the bound a
 * CASE over a column), over partitions with NULL keys, order keys with ties and NULLs, and several batches.
 */
class WindowPartitionLimitTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.INT32).named("p")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("q")
      .optional(PrimitiveTypeName.INT64).named("v")
      .required(PrimitiveTypeName.INT32).named("id")
      .named("w");

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("w"));
    Random r = new Random(5);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("w/a.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(3_000).build()) {
      for (int i = 0; i < 20_000; i++) {
        Group row = g.newGroup();
        if (r.nextInt(30) != 0) row.append("p", r.nextInt(300));
        if (r.nextInt(30) != 0) row.append("q", "q" + r.nextInt(4));
        if (r.nextInt(20) != 0) row.append("v", (long) r.nextInt(50)); // ties within a partition
        row.append("id", i);
        w.write(row);
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT.withBatchRows(1_000));
  }

  @Test
  void theFirstRowsOfEachPartitionAreThoseOfTheWholeInput() {
    String[] windows = {
        "row_number() OVER (PARTITION BY p ORDER BY v DESC)",
        "row_number() OVER (PARTITION BY p, q ORDER BY v, id DESC)",
        "row_number() OVER (PARTITION BY q ORDER BY v NULLS FIRST)",
        "row_number() OVER (ORDER BY v DESC NULLS LAST)",
        "row_number() OVER (PARTITION BY p)"};
    for (String window : windows) {
      for (int k : new int[] {1, 2, 5}) {
        String inner = "SELECT p, q, v, id, " + window + " AS rn FROM w";
        String limited = "SELECT p, q, v, id, rn FROM (" + inner + ") s WHERE rn <= " + k;
        // the bound depends on the row (id is never negative): no per-partition limit can be read from it
        String whole = "SELECT p, q, v, id, rn FROM (" + inner + ") s WHERE rn <= CASE WHEN id >= 0 THEN " + k
            + " ELSE 0 END";
        List<List<Object>> got = sorted(TestTables.run(engine, limited, QuerySettings.DEFAULT));
        assertThat(got).as(limited).isNotEmpty().isEqualTo(sorted(TestTables.run(engine, whole, QuerySettings.DEFAULT)));
        String plan = TestTables.explain(engine, limited, QuerySettings.DEFAULT);
        assertThat(plan).as(plan).contains("partition_limit=" + k);
        assertThat(TestTables.metric(plan, "kept_rows")).as(plan).isLessThan(20_000).isGreaterThanOrEqualTo(got.size());
        assertThat(TestTables.explain(engine, whole, QuerySettings.DEFAULT)).doesNotContain("partition_limit");
      }
    }
    // rn = 1, rn < 3 and 2 >= rn are limits too
    for (String cond : List.of("rn = 1", "rn < 3", "2 >= rn")) {
      String sql = "SELECT p, v, id, rn FROM (SELECT p, v, id, row_number() OVER (PARTITION BY p ORDER BY v) AS rn "
          + "FROM w) s WHERE " + cond;
      assertThat(TestTables.explain(engine, sql, QuerySettings.DEFAULT)).contains("partition_limit=");
      String same = sql.replace(cond, "rn <= CASE WHEN id >= 0 THEN " + (cond.equals("rn = 1") ? 1 : 2)
          + " ELSE 0 END");
      assertThat(sorted(TestTables.run(engine, sql, QuerySettings.DEFAULT)))
          .isEqualTo(sorted(TestTables.run(engine, same, QuerySettings.DEFAULT)));
    }
  }

  @Test
  void otherWindowFunctionsBesideTheRowNumberTakeNoLimit() {
    String sql = "SELECT p, v, rn, s FROM (SELECT p, v, row_number() OVER (PARTITION BY p ORDER BY v) AS rn, "
        + "sum(v) OVER (PARTITION BY p ORDER BY v) AS s FROM w) x WHERE rn <= 2";
    assertThat(TestTables.explain(engine, sql, QuerySettings.DEFAULT)).doesNotContain("partition_limit");
    String rank = "SELECT p, v, r FROM (SELECT p, v, rank() OVER (PARTITION BY p ORDER BY v) AS r FROM w) x WHERE r <= 2";
    assertThat(TestTables.explain(engine, rank, QuerySettings.DEFAULT)).doesNotContain("partition_limit");
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>(rows);
    out.sort(Comparator.comparing(Object::toString));
    return out;
  }
}
