package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.RowPredicate;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.predicate.ScanPredicate.Compare;
import dev.quiver.scan.predicate.ScanPredicate.Op;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
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
 * Page-level pruning: 10 row groups of 1,000 rows, pages of 100 rows, {@code id} sorted; the page index
 * narrows the surviving row group to the pages that might match, and rows stay aligned across columns
 * (a NULL-bearing and a string column are read alongside).
 */
class PageIndexTest {
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("label")
      .optional(PrimitiveTypeName.INT64).named("maybe")
      .named("p");

  @TempDir
  static Path dir;
  static Catalog catalog;
  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void write() throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("p.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(1_000).withPageRowCountLimit(100).withDictionaryEncoding(false)
        .build()) {
      for (long id = 0; id < 10_000; id++) {
        Group g = f.newGroup().append("id", id).append("label", "row-" + id);
        if (id % 3 != 0) g.append("maybe", id * 2);
        w.write(g);
      }
    }
    catalog = Catalog.open(dir.toString());
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private List<String> scan(ScanPredicate p, RowPredicate rows, ScanMetrics m, boolean pageIndex) {
    return scan(catalog, "p", List.of("id", "label", "maybe"), p, rows, m, pageIndex, 64);
  }

  /** The three columns of every row read, as {@code a|b|c}. */
  private List<String> scan(Catalog c, String table, List<String> columns, ScanPredicate p, RowPredicate rows,
      ScanMetrics m, boolean pageIndex, int batchRows) {
    List<String> out = new ArrayList<>();
    try (ParquetScan scan = new ParquetScan(c, c.table(table), columns, p, rows, allocator, m, batchRows, pageIndex,
        ScanOptions.shared())) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) {
            out.add(b.getVector(0).getObject(i) + "|" + b.getVector(1).getObject(i) + "|" + b.getVector(2).getObject(i));
          }
        }
      }
    }
    return out;
  }

  private static String row(long id) {
    return id + "|row-" + id + "|" + (id % 3 == 0 ? "null" : Long.toString(id * 2));
  }

  @Test
  void pagesOutsideTheRangeAreNotRead() {
    ArrowType bigint = new ArrowType.Int(64, true);
    ScanPredicate p = new ScanPredicate.And(List.of(new Compare("id", Op.GE, 8_550L, bigint), new Compare("id", Op.LT, 8_700L, bigint)));
    RowPredicate exact = new LongRowPredicate("id", id -> id >= 8_550 && id < 8_700);
    ScanMetrics with = new ScanMetrics();
    List<String> rows = scan(p, exact, with, true);
    // only the pages 8500..8599 and 8600..8699 are read (aligned in every column); late materialization
    // then keeps the rows that match, decoding label and maybe only for them
    List<String> expected = new ArrayList<>();
    for (long id = 8_550; id < 8_700; id++) expected.add(row(id));
    assertThat(rows).isEqualTo(expected);
    assertThat(with.rowGroupsPruned()).isEqualTo(9);
    assertThat(with.rowsScanned()).isEqualTo(200);
    assertThat(with.rowsFilteredLate()).isEqualTo(50);
    assertThat(with.asMap().get("pages_pruned")).isEqualTo(8L * 3); // 8 of 10 pages, in each of 3 columns

    ScanMetrics without = new ScanMetrics();
    List<String> all = scan(p, exact, without, false);
    assertThat(without.rowsScanned()).isEqualTo(1_000);
    assertThat(without.asMap().get("pages_pruned")).isZero();
    assertThat(all).isEqualTo(rows);
    assertThat(without.rowsFilteredLate()).isEqualTo(1_000 - 150);
    assertThat(without.bytesScanned()).isGreaterThan(with.bytesScanned());
  }

  @Test
  void aRangeInsideOnePageAndDisjointPages() {
    ArrowType bigint = new ArrowType.Int(64, true);
    ScanMetrics m = new ScanMetrics();
    List<String> rows = scan(new ScanPredicate.Or(List.of(new Compare("id", Op.EQ, 1_234L, bigint),
        new Compare("id", Op.EQ, 1_987L, bigint))), new LongRowPredicate("id", id -> id == 1_234 || id == 1_987), m, true);
    assertThat(rows).isEqualTo(List.of(row(1_234), row(1_987)));
    assertThat(m.rowsScanned()).isEqualTo(200);
    assertThat(m.rowsFilteredLate()).isEqualTo(198);
  }

  /**
   * Columns whose pages break at different rows (small pages by size: long strings page more often than
   * ids), NULLs and a dictionary column: for 200 random id ranges, the page-index read equals the full
   * read and the brute-force answer, and Quiver's own decoders read every chunk.
   */
  @Test
  void misalignedPagesAcrossColumnsStayRowAligned(@TempDir Path other) throws Exception {
    MessageType schema = Types.buildMessage()
        .required(PrimitiveTypeName.INT64).named("id")
        .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("label")
        .optional(PrimitiveTypeName.INT32).named("tag")
        .named("m");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    java.util.Random r = new java.util.Random(20261130);
    List<String[]> all = new ArrayList<>();
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(other.resolve("m.parquet")))
        .withType(schema).withRowGroupRowCountLimit(4_000).withPageSize(1_024).withMinRowCountForPageSizeCheck(10)
        .withDictionaryEncoding("label", false).build()) {
      for (long id = 0; id < 12_000; id++) {
        String label = id % 5 == 0 ? null : "label-" + id + "-" + "x".repeat(r.nextInt(40));
        Integer tag = id % 7 == 0 ? null : r.nextInt(5);
        Group g = f.newGroup().append("id", id);
        if (label != null) g.append("label", label);
        if (tag != null) g.append("tag", tag);
        w.write(g);
        all.add(new String[] {Long.toString(id), String.valueOf(label), String.valueOf(tag)});
      }
    }
    Catalog c = Catalog.open(other.toString());
    ArrowType bigint = new ArrowType.Int(64, true);
    long pagesPruned = 0;
    long fallbacks = 0;
    for (int q = 0; q < 200; q++) {
      long lo = r.nextInt(12_000);
      long hi = lo + r.nextInt(q % 2 == 0 ? 50 : 3_000);
      ScanPredicate p = new ScanPredicate.And(List.of(new Compare("id", Op.GE, lo, bigint), new Compare("id", Op.LE, hi, bigint)));
      ScanMetrics m = new ScanMetrics();
      RowPredicate exact = new LongRowPredicate("id", id -> id >= lo && id <= hi);
      List<String> with = scan(c, "m", List.of("id", "label", "tag"), p, exact, m, true, 333);
      ScanMetrics m2 = new ScanMetrics();
      List<String> without = scan(c, "m", List.of("id", "label", "tag"), p, exact, m2, false, 333);
      List<String> expected = all.stream().filter(x -> Long.parseLong(x[0]) >= lo && Long.parseLong(x[0]) <= hi)
          .map(x -> String.join("|", x)).toList();
      assertThat(with).as("[" + lo + ", " + hi + "]").isEqualTo(expected);
      assertThat(without).isEqualTo(expected);
      pagesPruned += m.asMap().get("pages_pruned");
      fallbacks += m.decoderFallbacks() + m2.decoderFallbacks();
    }
    assertThat(pagesPruned).isGreaterThan(1_000);
    assertThat(fallbacks).as("chunks read by parquet-java").isZero();
  }
}
