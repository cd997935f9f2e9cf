package dev.quiver.bench.jmh;

import dev.quiver.planner.QuerySettings;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.read.ParquetScan;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.xerial.snappy.Snappy;

/**
 * Decoding a whole Parquet column into Arrow through Quiver's real scan ({@link ParquetScan}, one row
 * group at a time, no predicate, no page index), per physical type / encoding and codec, next to what
 * bounds it: parquet-java reading and decompressing the same pages, parquet-java's value-at-a-time
 * {@link ColumnReader} alone, and snappy-java decompressing the same PLAIN bytes. Every score is rows
 * per second ({@link ColumnData#ROWS} per invocation); {@link JmhMain} turns it into bytes per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dio.netty.allocator.maxOrder=11", "-Xms3g", "-Xmx3g"})
public class ScanDecodeBenchmark {

  /** A single-column file written into a fresh temp directory, a catalog over it and an allocator. */
  abstract static class FileBase {
    Path dir;
    Path file;
    Catalog catalog;
    ParquetTable table;
    RootAllocator allocator;

    void open(ColumnData.Kind type, CompressionCodecName codec) throws IOException {
      dir = Files.createTempDirectory("quiver-jmh-decode");
      file = ColumnData.write(dir.resolve("t.parquet"), type, codec);
      catalog = Catalog.open(dir.toString());
      table = catalog.table("t");
      allocator = new RootAllocator();
      long rows = scan(this);
      if (rows != ColumnData.ROWS) throw new IllegalStateException("read " + rows + " rows, wrote " + ColumnData.ROWS);
    }

    void close() throws IOException {
      if (allocator != null) allocator.close();
      deleteTree(dir);
    }
  }

  /** The files of Quiver's scan: every type and codec. */
  @State(Scope.Benchmark)
  public static class ColumnFile extends FileBase {
    @Param({"INT64_PLAIN", "INT64_DICT", "DOUBLE", "STRING"})
    public ColumnData.Kind type;

    @Param({"UNCOMPRESSED", "SNAPPY", "ZSTD", "GZIP"})
    public CompressionCodecName codec;

    @Setup(Level.Trial)
    public void setup() throws IOException {
      open(type, codec);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      close();
    }
  }

  /** The same files for the parquet-java baselines: Snappy only by default ({@code -p codec=...} to change). */
  @State(Scope.Benchmark)
  public static class BaselineFile extends FileBase {
    @Param({"INT64_PLAIN", "INT64_DICT", "DOUBLE", "STRING"})
    public ColumnData.Kind type;

    @Param({"SNAPPY"})
    public CompressionCodecName codec;

    @Setup(Level.Trial)
    public void setup() throws IOException {
      open(type, codec);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      close();
    }
  }

  /** PLAIN-encoded values in page-sized blocks ({@link ColumnData#PAGE_ROWS} rows), each Snappy-compressed. */
  @State(Scope.Benchmark)
  public static class SnappyBlocks {
    @Param({"INT64_PLAIN", "DOUBLE", "STRING"})
    public ColumnData.Kind type;

    List<byte[]> compressed;
    byte[] out;

    @Setup(Level.Trial)
    public void setup() throws IOException {
      byte[] plain = ColumnData.plain(type);
      int blocks = (ColumnData.ROWS + ColumnData.PAGE_ROWS - 1) / ColumnData.PAGE_ROWS;
      int blockBytes = (plain.length + blocks - 1) / blocks;
      compressed = new ArrayList<>();
      for (int off = 0; off < plain.length; off += blockBytes) {
        int len = Math.min(blockBytes, plain.length - off);
        byte[] c = new byte[Snappy.maxCompressedLength(len)];
        int n = Snappy.compress(plain, off, len, c, 0);
        compressed.add(java.util.Arrays.copyOf(c, n));
      }
      out = new byte[blockBytes];
      long total = 0;
      for (byte[] c : compressed) total += Snappy.uncompress(c, 0, c.length, out, 0);
      if (total != plain.length) throw new IllegalStateException("snappy round trip lost bytes");
    }
  }

  /** Quiver's scan of the whole column: batches of the engine's default size, each closed. */
  @Benchmark
  @OperationsPerInvocation(ColumnData.ROWS)
  public long quiverScan(ColumnFile f) {
    return scan(f);
  }

  static long scan(FileBase f) {
    long rows = 0;
    try (ParquetScan scan = new ParquetScan(f.catalog, f.table, List.of(ColumnData.COLUMN), new ScanPredicate.Const(true),
        f.allocator, new ScanMetrics(), QuerySettings.DEFAULT_BATCH_ROWS, false,
        dev.quiver.scan.read.ScanOptions.shared().withThreads(1))) {
      VectorSchemaRoot b;
      while ((b = scan.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          rows += batch.getRowCount();
        }
      }
    }
    return rows;
  }

  /**
   * parquet-java alone, first half: read the row group and decompress every page (the bytes each page
   * holds once decompressed are touched, nothing is decoded).
   */
  @Benchmark
  @OperationsPerInvocation(ColumnData.ROWS)
  @SuppressWarnings("deprecation") // toByteBuffer(): what Quiver's decoder calls on each page
  public long parquetJavaPages(BaselineFile f) throws IOException {
    long bytes = 0;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(f.file))) {
      PageReadStore pages = reader.readNextRowGroup();
      ColumnDescriptor col = reader.getFooter().getFileMetaData().getSchema().getColumns().get(0);
      PageReader pr = pages.getPageReader(col);
      DictionaryPage dict = pr.readDictionaryPage();
      if (dict != null) bytes += dict.getBytes().toByteBuffer().remaining();
      DataPage p;
      while ((p = pr.readPage()) != null) {
        if (p instanceof DataPageV1 v1) bytes += v1.getBytes().toByteBuffer().remaining();
        else if (p instanceof DataPageV2 v2) bytes += v2.getData().toByteBuffer().remaining();
      }
    }
    return bytes;
  }

  /**
   * parquet-java alone, whole: the same pages decoded value by value through its {@link ColumnReader}
   * (the loop Quiver's scan runs), summing the values instead of writing Arrow vectors.
   */
  @Benchmark
  @OperationsPerInvocation(ColumnData.ROWS)
  public long parquetJavaColumnReader(BaselineFile f) throws IOException {
    long acc = 0;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(f.file))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      ColumnDescriptor col = schema.getColumns().get(0);
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, new NoOpGroupConverter(), schema,
            reader.getFooter().getFileMetaData().getCreatedBy());
        ColumnReader r = store.getColumnReader(col);
        long n = pages.getRowCount();
        int maxDef = col.getMaxDefinitionLevel();
        switch (col.getPrimitiveType().getPrimitiveTypeName()) {
          case INT64 -> {
            for (long i = 0; i < n; i++) {
              if (r.getCurrentDefinitionLevel() == maxDef) acc += r.getLong();
              r.consume();
            }
          }
          case DOUBLE -> {
            for (long i = 0; i < n; i++) {
              if (r.getCurrentDefinitionLevel() == maxDef) acc += Double.doubleToRawLongBits(r.getDouble());
              r.consume();
            }
          }
          default -> {
            for (long i = 0; i < n; i++) {
              if (r.getCurrentDefinitionLevel() == maxDef) acc += r.getBinary().length();
              r.consume();
            }
          }
        }
      }
    }
    return acc;
  }

  /** snappy-java decompressing the PLAIN bytes of the same column, block by page-sized block. */
  @Benchmark
  @OperationsPerInvocation(ColumnData.ROWS)
  public long snappyJavaUncompress(SnappyBlocks s) throws IOException {
    long total = 0;
    for (byte[] c : s.compressed) total += Snappy.uncompress(c, 0, c.length, s.out, 0);
    return total;
  }

  static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) return;
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }

  /** parquet-java builds column readers through a converter tree; the values are read directly. */
  static final class NoOpGroupConverter extends GroupConverter {
    private static final PrimitiveConverter PRIMITIVE = new PrimitiveConverter() {};

    @Override
    public Converter getConverter(int fieldIndex) {
      return PRIMITIVE;
    }

    @Override
    public void start() {}

    @Override
    public void end() {}
  }
}
