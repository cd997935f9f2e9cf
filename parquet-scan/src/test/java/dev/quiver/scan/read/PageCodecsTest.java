package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
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
 * Pages decompressed into one reused array per column chunk ({@link PageCodecs}): SNAPPY and ZSTD files, pages v1
 * and v2, whose pages grow and shrink (strings from 1 to 300 bytes, in waves), dictionary chunks that fall back to
 * PLAIN, NULLs, a row filter (pages skipped and read in part) and page-index reads. Every value equals the
 * generator's (and, for page-index reads, what parquet-java's own codecs give), through Quiver's decoders and
 * through parquet-java's column readers over the same codecs; a reused
 * array that a page still needed would show as a wrong value.
 */
class PageCodecsTest {
  static final int ROWS = 20_000;
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("d")
      .optional(PrimitiveTypeName.DOUBLE).named("x")
      .named("t");

  @TempDir static Path dir;
  static Catalog catalog;
  final BufferAllocator allocator = new RootAllocator();

  /** Strings whose length rises and falls in waves of 1,500 rows, so consecutive pages differ in size. */
  static String s(long id) {
    if (id % 11 == 5) return null;
    int len = 1 + (int) (Math.abs(750 - id % 1_500) * 300 / 750);
    StringBuilder b = new StringBuilder().append(id).append(':');
    while (b.length() < len) b.append((char) ('a' + (id + b.length()) % 26));
    return b.toString();
  }

  /** Few values early in each row group, many later: the dictionary overflows and the chunk goes on PLAIN. */
  static String d(long id) {
    if (id % 13 == 2) return null;
    return id % 5_000 < 2_000 ? "k" + id % 17 : "many-" + id * 7919 % 9_973;
  }

  static Double x(long id) {
    return id % 9 == 4 ? null : id * 0.25;
  }

  @BeforeAll
  static void write() throws Exception {
    for (CompressionCodecName codec : List.of(CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD)) {
      for (ParquetProperties.WriterVersion version : ParquetProperties.WriterVersion.values()) {
        String table = (codec + "_" + version).toLowerCase();
        Files.createDirectories(dir.resolve(table));
        SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve(table).resolve("a.parquet")))
            .withType(SCHEMA).withCompressionCodec(codec).withWriterVersion(version).withRowGroupRowCountLimit(5_000)
            .withPageRowCountLimit(700).withDictionaryPageSize(2_048).withDictionaryEncoding("s", false).build()) {
          for (long id = 0; id < ROWS; id++) {
            Group g = f.newGroup().append("id", id);
            if (s(id) != null) g.append("s", s(id));
            if (d(id) != null) g.append("d", d(id));
            if (x(id) != null) g.append("x", x(id));
            w.write(g);
          }
        }
      }
    }
    catalog = Catalog.open(dir.toString());
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private List<String> scan(String table, ScanPredicate pruning, DictionaryFilterTest.StringPredicate rows,
      ScanOptions options) {
    List<String> out = new ArrayList<>();
    try (ParquetScan scan = new ParquetScan(catalog, catalog.table(table), List.of("id", "s", "d", "x"), pruning, rows,
        allocator, new ScanMetrics(), 512, true, options)) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) {
            out.add(b.getVector(0).getObject(i) + "|" + b.getVector(1).getObject(i) + "|" + b.getVector(2).getObject(i)
                + "|" + b.getVector(3).getObject(i));
          }
        }
      }
    }
    return out;
  }

  private static List<String> expected(long from, long to, java.util.function.LongPredicate keep) {
    List<String> out = new ArrayList<>();
    for (long id = from; id < to; id++) if (keep.test(id)) out.add(id + "|" + s(id) + "|" + d(id) + "|" + x(id));
    return out;
  }

  @Test
  void everyValueSurvivesTheReusedArray() {
    ScanPredicate all = new ScanPredicate.Const(true);
    ScanPredicate range = new ScanPredicate.Compare("id", ScanPredicate.Op.GE, 12_345L,
        new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true));
    for (String table : List.of("snappy_parquet_1_0", "snappy_parquet_2_0", "zstd_parquet_1_0", "zstd_parquet_2_0")) {
      for (ScanOptions options : List.of(ScanOptions.shared(), ScanOptions.shared().withOwnDecoders(false))) {
        String what = table + " own decoders " + options.ownDecoders();
        assertThat(scan(table, all, null, options)).as(what).isEqualTo(expected(0, ROWS, id -> true));
        // pages pruned by the page index: the rows of the pages kept, the same as parquet-java's codecs give
        List<String> ranged = scan(table, range, null, options);
        assertThat(ranged).as(what).hasSizeLessThan(ROWS - 10_000).endsWith(expected(12_345, ROWS, id -> true)
            .toArray(String[]::new)).isEqualTo(scan(table, range, null, options.withOwnCodecs(false)));
        // a filter on d: pages of the other columns read in part and skipped
        DictionaryFilterTest.StringPredicate onD =
            new DictionaryFilterTest.StringPredicate("d", v -> v.startsWith("k1") || v.endsWith("7"), false, true, false,
                new java.util.concurrent.atomic.AtomicLong());
        assertThat(scan(table, all, onD, options)).as(what)
            .isEqualTo(expected(0, ROWS, id -> d(id) != null && (d(id).startsWith("k1") || d(id).endsWith("7"))));
      }
    }
  }
}
