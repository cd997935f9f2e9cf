package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

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

  private List<String> scan(ScanPredicate p, ScanMetrics m, boolean pageIndex) {
    List<String> out = new ArrayList<>();
    try (ParquetScan scan = new ParquetScan(catalog, catalog.table("p"), List.of("id", "label", "maybe"), p, allocator, m,
        64, pageIndex)) {
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
    ScanMetrics with = new ScanMetrics();
    List<String> rows = scan(p, with, true);
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
    List<String> all = scan(p, without, false);
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
        new Compare("id", Op.EQ, 1_987L, bigint))), m, true);
    assertThat(rows).isEqualTo(List.of(row(1_234), row(1_987)));
    assertThat(m.rowsScanned()).isEqualTo(200);
    assertThat(m.rowsFilteredLate()).isEqualTo(198);
  }
}
