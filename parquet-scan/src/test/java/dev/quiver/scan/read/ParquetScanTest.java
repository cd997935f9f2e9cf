package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.RowPredicate;
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
    return scan(catalog, "t", columns, p, null, m);
  }

  private List<Object[]> scan(Catalog catalog, String table, List<String> columns, ScanPredicate p, RowPredicate rows,
      ScanMetrics m) {
    ParquetTable t = catalog.table(table);
    List<Object[]> out = new ArrayList<>();
    try (ParquetScan scan = new ParquetScan(catalog, t, columns, p, rows, allocator, m, 256, true, ScanOptions.shared())) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          assertThat(b.getRowCount()).isLessThanOrEqualTo(256);
          assertThat(b.getSchema().getFields()).hasSize(columns.size());
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

  /**
   * The row predicate is applied to every row, also when its column is not output: with no output
   * columns the batches carry only the row counts of the rows kept (e.g. {@code count(*) WHERE id < 1500}).
   */
  @Test
  void theRowPredicateFiltersEvenWhenItsColumnIsNotOutput() {
    ScanPredicate prune = new Compare("id", Op.LT, 1_500L, new ArrowType.Int(64, true));
    ScanMetrics m = new ScanMetrics();
    List<Object[]> none = scan(catalog, "t", List.of(), prune, new LongRowPredicate("id", id -> id < 1_500), m);
    assertThat(none).hasSize(1_500);
    assertThat(m.rowGroupsPruned()).isEqualTo(8);
    assertThat(m.rowsFilteredLate()).isEqualTo(500);

    ScanMetrics m2 = new ScanMetrics();
    List<Object[]> tags = scan(catalog, "t", List.of("tag"), new ScanPredicate.Const(true),
        new LongRowPredicate("id", id -> id % 1_000 == 7), m2);
    assertThat(tags).extracting(r -> r[0]).containsExactly(
        java.util.stream.LongStream.range(0, 10).mapToObj(g -> tag(g * 1_000 + 7)).toArray());
    assertThat(m2.rowGroupsPruned()).isZero(); // pruning has nothing to go on: the row predicate still filters
    assertThat(m2.rowsFilteredLate()).isEqualTo(ROWS - 10);

    // the predicate's column also output: the same rows, the column compacted
    List<Object[]> ids = scan(catalog, "t", List.of("id", "note"), new ScanPredicate.Const(true),
        new LongRowPredicate("id", id -> id >= 9_990), new ScanMetrics());
    assertThat(ids).extracting(r -> r[0]).containsExactly(
        java.util.stream.LongStream.range(9_990, 10_000).mapToObj(Long::toString).toArray());
  }

  /** Partition columns and columns absent from a file (all NULL there) reach the row predicate. */
  @Test
  void partitionAndAbsentColumnsReachTheRowPredicate(@TempDir Path other) throws Exception {
    MessageType withExtra = Types.buildMessage().required(PrimitiveTypeName.INT64).named("id")
        .optional(PrimitiveTypeName.INT64).named("extra").named("p");
    MessageType without = Types.buildMessage().required(PrimitiveTypeName.INT64).named("id").named("p");
    java.nio.file.Files.createDirectories(other.resolve("p/k=1"));
    java.nio.file.Files.createDirectories(other.resolve("p/k=2"));
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(other.resolve("p/k=1/a.parquet")))
        .withType(withExtra).build()) {
      for (long id = 0; id < 100; id++) {
        Group g = new SimpleGroupFactory(withExtra).newGroup().append("id", id);
        if (id % 2 == 0) g.append("extra", id);
        w.write(g);
      }
    }
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(other.resolve("p/k=2/b.parquet")))
        .withType(without).build()) {
      for (long id = 100; id < 150; id++) w.write(new SimpleGroupFactory(without).newGroup().append("id", id));
    }
    Catalog c = Catalog.open(other.toString());
    assertThat(c.table("p").field("extra")).isNotNull();
    List<Object[]> k2 = scan(c, "p", List.of("id"), new ScanPredicate.Const(true), new LongRowPredicate("k", k -> k == 2),
        new ScanMetrics());
    assertThat(k2).extracting(r -> r[0]).containsExactly(
        java.util.stream.LongStream.range(100, 150).mapToObj(Long::toString).toArray());
    RowPredicate extraIsNull = new RowPredicate() {
      @Override public List<String> columns() { return List.of("extra"); }
      @Override public int select(VectorSchemaRoot b, BufferAllocator a, boolean[] keep) {
        int n = 0;
        for (int i = 0; i < b.getRowCount(); i++) if (keep[i] = b.getVector(0).isNull(i)) n++;
        return n;
      }
    };
    // 50 odd ids of the first file, every row of the second (which has no column extra)
    assertThat(scan(c, "p", List.of(), new ScanPredicate.Const(true), extraIsNull, new ScanMetrics())).hasSize(100);
    assertThat(scan(c, "p", List.of("k"), new ScanPredicate.Const(true), extraIsNull, new ScanMetrics()))
        .filteredOn(r -> r[0].equals("2")).hasSize(50);
  }

  @Test
  void aFragmentNamingARowGroupOrFileTheTableLacksFails() {
    // fragments are read from tickets, which a holder of the shared secret can forge: row group 999 or -1 read 0 rows
    ParquetTable t = catalog.table("t");
    org.apache.hadoop.fs.Path file = t.files().get(0).path();
    for (int g : new int[] {999, -1, 10}) {
      try (ParquetScan scan = new ParquetScan(catalog, t, List.of("id"), new ScanPredicate.Const(true), allocator,
          new ScanMetrics(), 256).withRowGroups(java.util.Map.of(file, java.util.Set.of(0, g)))) {
        org.assertj.core.api.Assertions.assertThatThrownBy(scan::next)
            .isInstanceOf(dev.quiver.common.QuiverException.class)
            .hasMessage("the endpoint reads row group " + g + " of t.parquet, which has 10 row groups");
      }
    }
    try (ParquetScan scan = new ParquetScan(catalog, t, List.of("id"), new ScanPredicate.Const(true), allocator,
        new ScanMetrics(), 256).withRowGroups(java.util.Map.of(new org.apache.hadoop.fs.Path(file.getParent(), "other.parquet"),
            java.util.Set.of(0)))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(scan::next)
          .hasMessage("the endpoint reads other.parquet, which is not a file of table t");
    }
    // the row groups it has are read
    try (ParquetScan scan = new ParquetScan(catalog, t, List.of("id"), new ScanPredicate.Const(true), allocator,
        new ScanMetrics(), 256).withRowGroups(java.util.Map.of(file, java.util.Set.of(9)))) {
      long rows = 0;
      VectorSchemaRoot b;
      while ((b = scan.next()) != null) {
        rows += b.getRowCount();
        b.close();
      }
      assertThat(rows).isEqualTo(GROUP);
    }
  }
}
