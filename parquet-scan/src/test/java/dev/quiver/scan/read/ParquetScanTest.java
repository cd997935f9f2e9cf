package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.predicate.ScanPredicate.Compare;
import dev.quiver.scan.predicate.ScanPredicate.Op;
import dev.quiver.scan.prune.PruningLevel;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scans a file written here with parquet-java's example writer: 10 row groups of 1000 rows, {@code id}
 * ascending, {@code tag} with 3 values per group drawn from a per-group alphabet (dictionary),
 * {@code code} with a bloom filter, {@code note} NULL on every 7th row.
 */
class ParquetScanTest {
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("tag")
      .required(PrimitiveTypeName.INT64).named("code")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("note")
      .named("t");
  static final int ROWS = 10_000;
  static final int GROUP = 1_000;

  @TempDir
  static Path dir;
  static Catalog catalog;
  BufferAllocator allocator = new RootAllocator();

  static String tag(long id) {
    long g = id / GROUP;
    return "g" + g + "-" + (id % 3); // groups share no tag: dictionaries can tell them apart
  }

  static long code(long id) {
    return id * 7919 % 1_000_003; // unsorted, so statistics cannot prune equality
  }

  @BeforeAll
  static void write() throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(GROUP).withBloomFilterEnabled("code", true)
        .withDictionaryEncoding("code", false).build()) {
      for (long id = 0; id < ROWS; id++) {
        Group g = f.newGroup().append("id", id).append("tag", tag(id)).append("code", code(id));
        if (id % 7 != 0) g.append("note", "n" + id);
        w.write(g);
      }
    }
    catalog = Catalog.open(dir.toString());
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private List<Object[]> scan(List<String> columns, ScanPredicate p, ScanMetrics m) {
    ParquetTable t = catalog.table("t");
    List<Object[]> out = new ArrayList<>();
    try (ParquetScan scan = new ParquetScan(catalog, t, columns, p, allocator, m, 256)) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          assertThat(b.getRowCount()).isLessThanOrEqualTo(256);
          for (int i = 0; i < b.getRowCount(); i++) {
            Object[] row = new Object[columns.size()];
            for (int c = 0; c < columns.size(); c++) {
              Object v = b.getVector(c).getObject(i);
              row[c] = v == null ? null : v.toString();
            }
            out.add(row);
          }
        }
      }
    }
    return out;
  }

  @Test
  void readsEveryValueAndNull() {
    List<Object[]> rows = scan(List.of("id", "tag", "note"), new ScanPredicate.Const(true), new ScanMetrics());
    assertThat(rows).hasSize(ROWS);
    for (int id = 0; id < ROWS; id++) {
      assertThat(rows.get(id)).containsExactly(Long.toString(id), tag(id), id % 7 == 0 ? null : "n" + id);
    }
  }

  @Test
  void statisticsPruneTheSortedColumn() {
    ScanMetrics m = new ScanMetrics();
    List<Object[]> rows = scan(List.of("id"), new Compare("id", Op.GE, 8_500L, new ArrowType.Int(64, true)), m);
    assertThat(m.rowGroupsTotal()).isEqualTo(10);
    assertThat(m.rowGroupsPruned(PruningLevel.STATISTICS)).isEqualTo(8);
    assertThat(rows).hasSize(2 * GROUP); // might-match only: the groups are returned whole
  }

  @Test
  void dictionariesPruneAbsentValuesInsideMinMax() {
    ScanMetrics m = new ScanMetrics();
    // "g3-05" sorts between "g3-0" and "g3-1": inside group 3's [min, max] only, and absent from it
    scan(List.of("tag"), new Compare("tag", Op.EQ, "g3-05", ArrowType.Utf8.INSTANCE), m);
    assertThat(m.rowGroupsPruned(PruningLevel.STATISTICS)).isEqualTo(9);
    assertThat(m.rowGroupsPruned(PruningLevel.DICTIONARY)).isEqualTo(1);
  }

  @Test
  void bloomFiltersPruneAbsentPoints() {
    ScanMetrics m = new ScanMetrics();
    long present = code(4_321);
    List<Object[]> rows = scan(List.of("id", "code"), new Compare("code", Op.EQ, present, new ArrowType.Int(64, true)), m);
    assertThat(rows).anyMatch(r -> r[0].equals("4321"));
    assertThat(m.rowGroupsPruned()).isGreaterThanOrEqualTo(8); // bloom FPP 1%: maybe one false positive
    assertThat(m.rowGroupsPruned(PruningLevel.BLOOM)).isGreaterThanOrEqualTo(8);
  }

  @Test
  void noColumnsAnswersFromRowCounts() {
    ScanMetrics m = new ScanMetrics();
    List<Object[]> rows = scan(List.of(), new ScanPredicate.Const(true), m);
    assertThat(rows).hasSize(ROWS);
    assertThat(m.bytesScanned()).isZero();
  }

  @Test
  void isNullPrunesGroupsWithoutNulls() {
    ScanMetrics m = new ScanMetrics();
    scan(List.of("note"), new ScanPredicate.IsNull("note", false), m);
    assertThat(m.rowGroupsPruned()).isZero(); // every group has a NULL (every 7th row)
    ScanMetrics m2 = new ScanMetrics();
    scan(List.of("id"), new ScanPredicate.IsNull("id", false), m2);
    assertThat(m2.rowGroupsPruned(PruningLevel.STATISTICS)).isEqualTo(10);
  }
}
