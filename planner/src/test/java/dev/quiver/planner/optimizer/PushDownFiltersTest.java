package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.QueryEngine;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where PushDownFilters (with ReorderJoins) leaves each conjunct, read from the optimized plan: moved
 * where it is legal, kept above where moving it would change the result.
 */
class PushDownFiltersTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void setUp() throws Exception {
    for (String name : List.of("a", "b")) {
      MessageType schema = Types.buildMessage().required(PrimitiveTypeName.INT64).named(name + "k")
          .optional(PrimitiveTypeName.INT64).named(name + "v").named(name);
      SimpleGroupFactory f = new SimpleGroupFactory(schema);
      try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve(name + ".parquet")))
          .withType(schema).build()) {
        for (long i = 0; i < (name.equals("a") ? 1000 : 10); i++) w.write(f.newGroup().append(name + "k", i).append(name + "v", i * 2));
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()));
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private String plan(String sql) {
    return String.join("\n", QueryEngine.render(engine.prepare(sql, allocator).plan()));
  }

  /** The line of the plan holding {@code text}, and the line right below it. */
  private static String below(String plan, String text) {
    List<String> lines = plan.lines().toList();
    for (int i = 0; i < lines.size() - 1; i++) if (lines.get(i).contains(text)) return lines.get(i + 1).trim();
    throw new AssertionError(text + " not in\n" + plan);
  }

  /** The scan line of {@code table}. */
  private static String scanLine(String plan, String table) {
    return plan.lines().map(String::trim).filter(l -> l.startsWith("TableScan: " + table + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no scan of " + table + " in\n" + plan));
  }

  @Test
  void aConjunctOnOneSideOfAnInnerJoinReachesThatScan() {
    String p = plan("SELECT ak FROM a JOIN b ON ak = bk WHERE bv > 4 AND av < 100");
    // it reaches the scan, which evaluates it itself (exact): no filter repeats it
    assertThat(scanLine(p, "b")).contains("exact=[bv > 4]");
    assertThat(scanLine(p, "a")).contains("exact=[av < 100]");
    assertThat(p).doesNotContain("Filter:");
    // implied through the key: ak = bk and nothing on keys here, so no copies
    assertThat(p).doesNotContain("bk < ").doesNotContain("ak < ");
  }

  @Test
  void aKeyPredicateIsCopiedToTheOtherSide() {
    String p = plan("SELECT ak FROM a JOIN b ON ak = bk WHERE ak < 5");
    assertThat(p).contains("TableScan: b projection=[bk] predicate=bk < 5").contains("predicate=ak < 5");
  }

  @Test
  void aFilterOnTheNullPaddedSideOfALeftJoinStaysAboveUnlessItRejectsNulls() {
    String isNull = plan("SELECT ak FROM a LEFT JOIN b ON ak = bk WHERE bv IS NULL");
    assertThat(isNull).contains("Filter: bv IS NULL").contains("LEFT Join").doesNotContain("INNER Join");
    assertThat(below(isNull, "Filter: bv IS NULL")).contains("Join");
    String rejects = plan("SELECT ak FROM a LEFT JOIN b ON ak = bk WHERE bv > 3");
    assertThat(rejects).contains("INNER Join").doesNotContain("LEFT Join");
    assertThat(scanLine(rejects, "b")).contains("exact=[bv > 3]");
    assertThat(rejects).doesNotContain("Filter:");
  }

  @Test
  void anOnConditionOnThePreservedSideIsNotPushed() {
    String p = plan("SELECT ak, bv FROM a LEFT JOIN b ON ak = bk AND av > 10");
    assertThat(p).contains("LEFT Join").contains("av > 10");
    assertThat(p).doesNotContain("Filter: av > 10");
  }

  @Test
  void volatileConjunctsAndLimitsStopThePush() {
    String p = plan("SELECT ak FROM (SELECT ak FROM a LIMIT 10) t WHERE ak > random()");
    assertThat(below(p, "Filter:")).startsWith("Limit");
    String limited = plan("SELECT * FROM (SELECT ak FROM a ORDER BY ak LIMIT 10) t WHERE ak > 3");
    assertThat(below(limited, "Filter: ak > 3")).startsWith("Limit");
  }

  @Test
  void joinsBuildOnTheSmallerInput() {
    // a has 1,000 rows, b 10: whatever the FROM order, the hash join's right (build) input is b
    for (String sql : List.of("SELECT count(*) FROM a, b WHERE ak = bk", "SELECT count(*) FROM b, a WHERE ak = bk")) {
      String p = plan(sql);
      List<String> lines = p.lines().map(String::trim).toList();
      int join = lines.indexOf(lines.stream().filter(l -> l.startsWith("INNER Join")).findFirst().orElseThrow());
      assertThat(lines.get(join + 1)).as(p).startsWith("TableScan: a");
      assertThat(lines.get(join + 2)).as(p).startsWith("TableScan: b");
    }
  }
}
