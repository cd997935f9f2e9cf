package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.read.DictionaryStrings;
import dev.quiver.scan.read.ParquetScan;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * String group keys read from dictionary-encoded chunks are grouped by their dictionary index
 * ({@link DictionaryStrings}): each entry looked up once per chunk; in the scan's tasks, a key nothing else reads is
 * handed as indexes alone, no string made ({@code dictionary_key_rows}). Two files — one all dictionary pages, one
 * whose dictionary overflows so that its chunks fall back to plain pages part-way — with NULLs, several row groups
 * and dictionaries; a third table whose keys are nearly all distinct, so that the tasks pass their rows through and
 * make the strings then. Every answer equals the one computed here from the rows written.
 */
class DictionaryGroupingTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  static final List<String[]> ROWS = new ArrayList<>(); // s, k

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .required(PrimitiveTypeName.INT32).named("k")
      .named("d");

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("d"));
    write(dir.resolve("d/a.parquet"), 1, 40, 1 << 20); // dictionary pages only
    write(dir.resolve("d/b.parquet"), 2, 5_000, 2_048); // the dictionary overflows: plain pages follow
    // nearly every key distinct, in row groups of more rows than a task probes before it passes rows through
    Files.createDirectories(dir.resolve("e"));
    writeDistinct(dir.resolve("e/a.parquet"));
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT);
  }

  static final List<String[]> DISTINCT_ROWS = new ArrayList<>(); // table e: s, k

  private static void write(Path file, int seed, int domain, int dictionaryBytes) throws IOException {
    Random r = new Random(seed);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(SCHEMA)
        .withRowGroupRowCountLimit(3_000).withPageRowCountLimit(500).withDictionaryPageSize(dictionaryBytes)
        .withDictionaryEncoding(true).build()) {
      for (int i = 0; i < 12_000; i++) {
        String s = r.nextInt(15) == 0 ? null : (r.nextBoolean() ? "" : "v") + r.nextInt(domain);
        append(w, g, s, r.nextInt(3), ROWS);
      }
    }
  }

  private static void append(ParquetWriter<Group> w, SimpleGroupFactory g, String s, int k, List<String[]> written)
      throws IOException {
    Group row = g.newGroup();
    if (s != null) row.append("s", s);
    row.append("k", k);
    w.write(row);
    written.add(new String[] {s, Integer.toString(k)});
  }

  /**
   * Table e: one row group of 50,000 rows (more than a task probes before it passes rows through), nearly every key
   * distinct and long enough that the writer keeps its dictionary (a dictionary must save bytes, or it falls back to
   * plain pages).
   */
  private static void writeDistinct(Path file) throws IOException {
    Random r = new Random(3);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    String prefix = "a key long enough that a dictionary of keys most of which are distinct still saves bytes: ";
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(SCHEMA)
        .withRowGroupRowCountLimit(50_000).withPageRowCountLimit(500).withDictionaryPageSize(16 << 20)
        .withDictionaryEncoding(true).build()) {
      for (int i = 0; i < 50_000; i++) {
        int pick = r.nextInt(100);
        // 85% distinct (more than the 80% at which a task passes through), 11% repeated: the dictionary saves bytes
        String s = pick < 4 ? null : pick < 15 ? prefix + "repeated " + r.nextInt(20) : prefix + i;
        append(w, g, s, r.nextInt(1000), DISTINCT_ROWS);
      }
    }
  }

  @Test
  void groupsByDictionaryIndexGiveTheGroupsOfTheValues() {
    // in the scan's tasks a table per row group (one dictionary each); on one thread one table meets them all
    check(QuerySettings.DEFAULT);
    check(QuerySettings.DEFAULT.withParallelPipelines(false));
  }

  private static void check(QuerySettings settings) {
    Map<String, Long> counts = new HashMap<>();
    Map<String, Set<String>> perK = new HashMap<>();
    Map<List<String>, Long> pairs = new HashMap<>();
    for (String[] row : ROWS) {
      counts.merge(String.valueOf(row[0]), 1L, Long::sum);
      if (row[0] != null) perK.computeIfAbsent(row[1], x -> new HashSet<>()).add(row[0]);
      pairs.merge(List.of(String.valueOf(row[0]), row[1]), 1L, Long::sum);
    }
    Map<String, Long> got = new HashMap<>();
    for (List<Object> row : TestTables.run(engine, "SELECT s, count(*) FROM d GROUP BY s", settings)) {
      assertThat(got.put(String.valueOf(row.get(0)), (Long) row.get(1))).as("one group per value").isNull();
    }
    assertThat(got).isEqualTo(counts);
    Map<List<String>, Long> gotPairs = new HashMap<>();
    for (List<Object> row : TestTables.run(engine, "SELECT k, s, count(*) FROM d GROUP BY k, s",
        settings)) {
      gotPairs.put(List.of(String.valueOf(row.get(1)), String.valueOf(row.get(0))), (Long) row.get(2));
    }
    assertThat(gotPairs).isEqualTo(pairs);
    for (List<Object> row : TestTables.run(engine, "SELECT k, count(DISTINCT s) FROM d GROUP BY k",
        settings)) {
      assertThat((Long) row.get(1)).as("k=%s", row.get(0)).isEqualTo(perK.get(String.valueOf(row.get(0))).size());
    }
    long distinct = counts.keySet().stream().filter(s -> !s.equals("null")).count();
    assertThat(TestTables.run(engine, "SELECT count(DISTINCT s) FROM d", settings).get(0).get(0))
        .isEqualTo(distinct);
    // sums of integers under the string key (split into the scan's tasks), with filters judged by index or not
    assertThat(sumsBy(engine, "SELECT s, sum(k), count(*) FROM d GROUP BY s", settings))
        .isEqualTo(expectedSums(ROWS, row -> true));
    assertThat(sumsBy(engine, "SELECT s, sum(k), count(*) FROM d WHERE s <> 'v7' AND s NOT LIKE '1%' GROUP BY s",
        settings)).isEqualTo(expectedSums(ROWS, row -> row[0] != null && !row[0].equals("v7") && !row[0].startsWith("1")));
    assertThat(sumsBy(engine, "SELECT s, sum(k), count(*) FROM d WHERE k = 1 GROUP BY s", settings))
        .isEqualTo(expectedSums(ROWS, row -> row[1].equals("1")));
  }

  /** {@code s → [sum(k), count(*)]} of the rows {@code where} keeps, "null" the key of NULL. */
  static Map<String, List<Long>> expectedSums(List<String[]> rows, java.util.function.Predicate<String[]> where) {
    Map<String, List<Long>> out = new HashMap<>();
    for (String[] row : rows) {
      if (!where.test(row)) continue;
      List<Long> had = out.get(String.valueOf(row[0]));
      long k = Long.parseLong(row[1]);
      out.put(String.valueOf(row[0]), had == null ? List.of(k, 1L) : List.of(had.get(0) + k, had.get(1) + 1));
    }
    return out;
  }

  /** The rows of {@code sql} (a key, a sum, a count) as {@link #expectedSums} has them; one row per key. */
  static Map<String, List<Long>> sumsBy(QueryEngine engine, String sql, QuerySettings settings) {
    Map<String, List<Long>> out = new HashMap<>();
    for (List<Object> row : TestTables.run(engine, sql, settings)) {
      assertThat(out.put(String.valueOf(row.get(0)), List.of((Long) row.get(1), (Long) row.get(2))))
          .as("one group per value").isNull();
    }
    return out;
  }

  @Test
  void theScansTasksTakeAKeyNothingElseReadsAsDictionaryIndexes() {
    String plan = TestTables.explain(engine, "SELECT s, count(*), max(k) FROM d GROUP BY s", QuerySettings.DEFAULT);
    assertThat(plan).contains("[in scan tasks]");
    // the rows of dictionary pages (file a, and file b's first pages): not every row (b's plain pages are not)
    assertThat(TestTables.metric(plan, "dictionary_key_rows")).isPositive().isLessThan(ROWS.size());
    // a key that an aggregate reads too, or a computed key: its strings are made
    // (several keys are taken so too: the pairs of check's GROUP BY k, s)
    assertThat(TestTables.metric(TestTables.explain(engine, "SELECT k, s, count(*) FROM d GROUP BY k, s",
        QuerySettings.DEFAULT), "dictionary_key_rows")).isPositive();
    for (String sql : List.of("SELECT s, max(s) FROM d GROUP BY s", "SELECT upper(s), count(*) FROM d GROUP BY upper(s)")) {
      plan = TestTables.explain(engine, sql, QuerySettings.DEFAULT);
      assertThat(TestTables.metric(plan, "dictionary_key_rows")).as(sql).isZero();
    }
    // an integer sum splits under one string key only where the footers say the key is dictionary-encoded
    // throughout: not over d, whose second file falls back to plain pages; over e, whose one chunk does not
    assertThat(TestTables.explain(engine, "SELECT s, sum(k) FROM d GROUP BY s", QuerySettings.DEFAULT))
        .doesNotContain("mode=partial");
    assertThat(TestTables.explain(engine, "SELECT s, sum(k) FROM e GROUP BY s", QuerySettings.DEFAULT))
        .contains("mode=partial");
    // single-phase, on the query's thread, the scan hands the indexes across with each batch
    for (QuerySettings settings : List.of(QuerySettings.DEFAULT.withParallelPipelines(false), QuerySettings.DEFAULT)) {
      String sql = "SELECT s, k, sum(k), count(*) FROM d GROUP BY s, k"; // two keys: an integer sum stays single-phase
      plan = TestTables.explain(engine, sql, settings);
      assertThat(plan).doesNotContain("mode=partial");
      assertThat(TestTables.metric(plan, "dictionary_key_rows")).isPositive();
      Map<List<String>, List<Long>> want = new HashMap<>();
      for (String[] row : ROWS) {
        List<Long> had = want.get(List.of(String.valueOf(row[0]), row[1]));
        long k = Long.parseLong(row[1]);
        want.put(List.of(String.valueOf(row[0]), row[1]), had == null ? List.of(k, 1L) : List.of(had.get(0) + k, had.get(1) + 1));
      }
      Map<List<String>, List<Long>> got = new HashMap<>();
      for (List<Object> row : TestTables.run(engine, sql, settings)) {
        got.put(List.of(String.valueOf(row.get(0)), String.valueOf(row.get(1))), List.of((Long) row.get(2), (Long) row.get(3)));
      }
      assertThat(got).isEqualTo(want);
    }
  }

  @Test
  void tasksThatPassTheirRowsThroughMakeTheStringsOfKeysTakenByIndex() {
    String sql = "SELECT s, sum(k), count(*) FROM e GROUP BY s";
    String plan = TestTables.explain(engine, sql, QuerySettings.DEFAULT);
    assertThat(TestTables.metric(plan, "dictionary_key_rows")).isEqualTo(DISTINCT_ROWS.size());
    assertThat(TestTables.metric(plan, "passed_through_rows")).isPositive();
    assertThat(sumsBy(engine, sql, QuerySettings.DEFAULT)).isEqualTo(expectedSums(DISTINCT_ROWS, row -> true));
    assertThat(sumsBy(engine, "SELECT s, sum(k), count(*) FROM e WHERE s LIKE '%repeated%' GROUP BY s",
        QuerySettings.DEFAULT)).isEqualTo(expectedSums(DISTINCT_ROWS, row -> row[0] != null && row[0].contains("repeated")));
  }

  @Test
  void theScanKeepsIndexesOnlyForRowsOfDictionaryPages() {
    Catalog catalog = Catalog.open(dir.toString());
    int withIndexes = 0;
    int without = 0;
    try (BufferAllocator allocator = new RootAllocator();
        ParquetScan scan = new ParquetScan(catalog, catalog.table("d"), List.of("s"), new ScanPredicate.Const(true),
            allocator, new ScanMetrics(), 500)) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          DictionaryStrings d = DictionaryStrings.of(b.getVector(0));
          if (d == null) {
            without++;
            continue;
          }
          withIndexes++;
          // equal indexes, equal strings
          Map<Integer, String> seen = new HashMap<>();
          for (int i = 0; i < b.getRowCount(); i++) {
            if (b.getVector(0).isNull(i)) continue;
            String s = b.getVector(0).getObject(i).toString();
            String before = seen.putIfAbsent(d.ids()[i], s);
            assertThat(before == null || before.equals(s)).as("index %d", d.ids()[i]).isTrue();
          }
        }
      }
    }
    assertThat(withIndexes).isPositive();
    assertThat(without).as("the overflowing file's plain pages").isPositive();
  }
}
