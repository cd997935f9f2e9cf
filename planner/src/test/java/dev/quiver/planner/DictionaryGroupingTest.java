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
 * ({@link DictionaryStrings}): each entry looked up once per chunk. Two files — one all dictionary pages, one whose
 * dictionary overflows so that its chunks fall back to plain pages part-way — with NULLs, several row groups and
 * dictionaries; every answer equals the one computed here from the rows written.
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
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT);
  }

  private static void write(Path file, int seed, int domain, int dictionaryBytes) throws IOException {
    Random r = new Random(seed);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(SCHEMA)
        .withRowGroupRowCountLimit(3_000).withPageRowCountLimit(500).withDictionaryPageSize(dictionaryBytes)
        .withDictionaryEncoding(true).build()) {
      for (int i = 0; i < 12_000; i++) {
        Group row = g.newGroup();
        String s = r.nextInt(15) == 0 ? null : (r.nextBoolean() ? "" : "v") + r.nextInt(domain);
        int k = r.nextInt(3);
        if (s != null) row.append("s", s);
        row.append("k", k);
        w.write(row);
        ROWS.add(new String[] {s, Integer.toString(k)});
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
