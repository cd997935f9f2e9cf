package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
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
 * A pipeline that declares a string column a key it reads only by dictionary index ({@link BatchPipeline#keysByIndex})
 * gets its dictionary-encoded rows as indexes, no string made ({@link DictionaryStrings#absent}); rows of plain pages
 * come as strings. A pipeline that reads such a vector neither by its indexes nor after making its strings fails the
 * scan (a bug, never a wrong answer), and one that makes the strings may pass the rows on. Every value is checked
 * against the rows written; the allocators close without a leak.
 */
class KeysByIndexTest {
  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .required(PrimitiveTypeName.INT64).named("x")
      .named("t");
  static final List<String> ROWS = new ArrayList<>();

  @TempDir
  static Path dir;
  static Catalog catalog;

  @BeforeAll
  static void write() throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    Random r = new Random(7);
    // a dictionary that overflows part-way through some row groups: their later pages are plain
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(2_000).withPageRowCountLimit(250).withDictionaryPageSize(1_500)
        .withDictionaryEncoding(true).build()) {
      for (int i = 0; i < 10_000; i++) {
        String s = r.nextInt(20) == 0 ? null : "v" + (i < 6_000 ? r.nextInt(30) : r.nextInt(3_000));
        Group g = f.newGroup().append("x", (long) i);
        if (s != null) g.append("s", s);
        w.write(g);
        ROWS.add(s);
      }
    }
    catalog = Catalog.open(dir.toString());
  }

  /** A pipeline of each task: {@code body} gets each batch (closed after) and the output list. */
  static BatchPipeline.Factory pipeline(Set<String> keys, BiConsumer<VectorSchemaRoot, List<VectorSchemaRoot>> body) {
    return () -> new BatchPipeline() {
      @Override public Set<String> keysByIndex() {
        return keys;
      }

      @Override public void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
        try (batch) {
          body.accept(batch, out);
        }
      }

      @Override public void finish(List<VectorSchemaRoot> out) {}

      @Override public void close() {}
    };
  }

  /** Row {@code i}'s value of a string vector, read by its dictionary index when its strings are absent. */
  static String value(FieldVector v, int i) {
    if (v.isNull(i)) return null;
    DictionaryStrings d = DictionaryStrings.of(v);
    if (d != null && d.absent()) {
      DictionaryStrings.Entries e = d.dictionary();
      int id = d.ids()[i];
      return new String(e.bytes(), e.offsets()[id], e.lengths()[id], StandardCharsets.UTF_8);
    }
    return v.getObject(i).toString();
  }

  /** Runs the scan with {@code pipeline}; the rows it sees (x, s), in order. */
  static List<String> scan(BatchPipeline.Factory pipeline, ScanMetrics metrics, List<String> seen) {
    try (BufferAllocator allocator = new RootAllocator(); ScanOptions options = ScanOptions.create(2, true, true);
        ParquetScan scan = new ParquetScan(catalog, catalog.table("t"), List.of("s", "x"),
            new ScanPredicate.Const(true), allocator, metrics, 300, true, options).withPipeline(pipeline)) {
      for (VectorSchemaRoot b = scan.next(); b != null; b = scan.next()) {
        try (VectorSchemaRoot r = b) {
          for (int i = 0; i < r.getRowCount(); i++) seen.add(value(r.getVector(0), i));
        }
      }
    }
    return seen;
  }

  @Test
  void aKeyReadByIndexComesAsIndexesWhereItsPagesAreDictionaryEncoded() {
    ScanMetrics metrics = new ScanMetrics();
    List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
    int[] absent = new int[2]; // rows as indexes, rows as strings
    List<String> out = scan(pipeline(Set.of("s"), (b, o) -> {
      List<String> rows = new ArrayList<>();
      for (int i = 0; i < b.getRowCount(); i++) rows.add(b.getVector(1).getObject(i) + "=" + value(b.getVector(0), i));
      DictionaryStrings d = DictionaryStrings.of(b.getVector(0));
      synchronized (absent) {
        absent[d != null && d.absent() ? 0 : 1] += b.getRowCount();
      }
      seen.addAll(rows);
    }), metrics, new ArrayList<>());
    assertThat(out).isEmpty(); // the pipeline emits nothing
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < ROWS.size(); i++) expected.add(i + "=" + ROWS.get(i));
    assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(absent[0]).as("rows of dictionary-only chunks").isPositive();
    assertThat(absent[1]).as("rows of chunks with plain pages").isPositive();
    // so the table, by its footers, is not dictionary-encoded throughout (nor is an integer column)
    assertThat(catalog.table("t").dictionaryEncoded("s")).isFalse();
    assertThat(catalog.table("t").dictionaryEncoded("x")).isFalse();
    assertThat(metrics.dictionaryKeyRows()).isEqualTo(absent[0]);
  }

  @Test
  void withoutTheDeclarationEveryRowIsAString() {
    ScanMetrics metrics = new ScanMetrics();
    int[] absent = new int[1];
    scan(pipeline(Set.of(), (b, o) -> {
      DictionaryStrings d = DictionaryStrings.of(b.getVector(0));
      if (d != null && d.absent()) absent[0]++;
    }), metrics, new ArrayList<>());
    assertThat(absent[0]).isZero();
    assertThat(metrics.dictionaryKeyRows()).isZero();
  }

  @Test
  void aPipelineThatMakesTheStringsMayPassTheRowsOn() {
    List<String> seen = scan(pipeline(Set.of("s"), (b, o) -> {
      DictionaryStrings.materialize(b);
      VectorSchemaRoot copy = copy(b);
      o.add(copy);
    }), new ScanMetrics(), new ArrayList<>());
    assertThat(seen).containsExactlyElementsOf(ROWS); // in row-group order, as strings
  }

  @Test
  void aPipelineThatReadsTheStringsOfAKeyItTookByIndexFailsTheScan() {
    assertThatThrownBy(() -> scan(pipeline(Set.of("s"), (b, o) -> {
      for (int i = 0; i < b.getRowCount(); i++) b.getVector(0).getObject(i); // empty strings: a bug
    }), new ScanMetrics(), new ArrayList<>()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("read as strings");
  }

  @Test
  void withoutAPipelineTheIndexesCrossToTheConsumerWithTheirBatch() {
    ScanMetrics metrics = new ScanMetrics();
    List<String> seen = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator(); ScanOptions options = ScanOptions.create(2, true, true);
        ParquetScan scan = new ParquetScan(catalog, catalog.table("t"), List.of("s", "x"),
            new ScanPredicate.Const(true), allocator, metrics, 300, true, options).withKeysByIndex(Set.of("s"))) {
      for (VectorSchemaRoot b = scan.next(); b != null; b = scan.next()) {
        try (VectorSchemaRoot r = b) {
          for (int i = 0; i < r.getRowCount(); i++) seen.add(value(r.getVector(0), i)); // read here, another thread
          DictionaryStrings.received(r);
        }
      }
    }
    assertThat(seen).containsExactlyElementsOf(ROWS);
    assertThat(metrics.dictionaryKeyRows()).isPositive().isLessThan(ROWS.size());
    assertThat(DictionaryStrings.sentAcross()).isZero();
  }

  @Test
  void aConsumerThatReadsTheStringsIsCaughtAndAnUnreadBatchIsForgottenWhenTheScanCloses() {
    try (BufferAllocator allocator = new RootAllocator(); ScanOptions options = ScanOptions.create(2, true, true)) {
      try (ParquetScan scan = new ParquetScan(catalog, catalog.table("t"), List.of("s", "x"),
          new ScanPredicate.Const(true), allocator, new ScanMetrics(), 300, true, options)
          .withKeysByIndex(Set.of("s"))) {
        try (VectorSchemaRoot b = scan.next()) {
          for (int i = 0; i < b.getRowCount(); i++) b.getVector(0).getObject(i); // empty strings: a bug
          assertThatThrownBy(() -> DictionaryStrings.received(b)).isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("read as strings");
        }
        scan.next().close(); // a batch closed unread, never received
        assertThat(DictionaryStrings.sentAcross()).isPositive();
      }
      assertThat(DictionaryStrings.sentAcross()).isZero();
    }
  }

  /** A copy of {@code b} in its own vectors (the pipeline's batch is closed after it). */
  static VectorSchemaRoot copy(VectorSchemaRoot b) {
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector v : b.getFieldVectors()) {
      var pair = v.getTransferPair(v.getAllocator());
      pair.splitAndTransfer(0, b.getRowCount());
      vectors.add((FieldVector) pair.getTo());
    }
    return new VectorSchemaRoot(vectors);
  }
}
