package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * Scans are configured by the {@link ScanOptions} passed to them, not by JVM-wide properties: two scans in
 * one JVM each run on their own executor with their own read-ahead, and closing options stops their pool.
 */
class ScanOptionsTest {
  static final MessageType SCHEMA = Types.buildMessage().required(PrimitiveTypeName.INT64).named("x").named("t");
  static final int GROUPS = 12;
  static final int GROUP = 500;

  @TempDir
  static Path dir;
  static Catalog catalog;
  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void write() throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<org.apache.parquet.example.data.Group> w = ExampleParquetWriter.builder(
        new LocalOutputFile(dir.resolve("t.parquet"))).withType(SCHEMA).withRowGroupRowCountLimit(GROUP).build()) {
      for (long x = 0; x < GROUPS * GROUP; x++) w.write(f.newGroup().append("x", x));
    }
    catalog = Catalog.open(dir.toString());
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  /** A pool that counts the tasks submitted to it, and the submissions before the first batch came out. */
  static final class CountingPool extends ThreadPoolExecutor {
    final AtomicInteger tasks = new AtomicInteger();
    volatile int beforeFirstBatch = -1;

    CountingPool(int threads) {
      super(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    }

    @Override
    public void execute(Runnable command) {
      tasks.incrementAndGet();
      super.execute(command);
    }
  }

  private long sum(ScanOptions options, ScanMetrics metrics) {
    long sum = 0;
    boolean first = true;
    try (ParquetScan scan = new ParquetScan(catalog, catalog.table("t"), List.of("x"), new ScanPredicate.Const(true),
        allocator, metrics, 1_000, true, options)) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        if (first && options.executor() instanceof CountingPool p) p.beforeFirstBatch = p.tasks.get();
        first = false;
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) sum += ((org.apache.arrow.vector.BigIntVector) b.getVector(0)).get(i);
        }
      }
    }
    return sum;
  }

  @Test
  void twoScansInOneJvmFollowTheirOwnOptions() {
    long n = (long) GROUPS * GROUP;
    long expected = n * (n - 1) / 2;
    CountingPool one = new CountingPool(4);
    CountingPool four = new CountingPool(4);
    try (ScanOptions serial = new ScanOptions(1, true, true, one);
        ScanOptions parallel = new ScanOptions(4, false, false, four)) {
      ScanMetrics m1 = new ScanMetrics();
      ScanMetrics m4 = new ScanMetrics();
      assertThat(sum(serial, m1)).isEqualTo(expected);
      assertThat(sum(parallel, m4)).isEqualTo(expected);
      // each scan ran its row groups on its own executor only
      assertThat(one.tasks.get()).isEqualTo(GROUPS);
      assertThat(four.tasks.get()).isEqualTo(GROUPS);
      // threads=1 reads one row group at a time, although its pool has 4 threads; threads=4 reads 4 ahead
      // (a row group is one batch: the first batch comes out before any further row group is submitted)
      assertThat(one.beforeFirstBatch).isEqualTo(1);
      assertThat(four.beforeFirstBatch).isEqualTo(4);
      assertThat(m1.decoderFallbacks()).isZero();
      assertThat(m4.decoderFallbacks()).as("own decoders off: nothing falls back").isZero();
    }
  }

  @Test
  void closingOptionsStopsTheirPoolAndOnlyTheirs() throws Exception {
    ScanOptions a = ScanOptions.create(2, true, true);
    long n = (long) GROUPS * GROUP;
    try (ScanOptions b = ScanOptions.create(2, true, true)) {
      assertThat(sum(a, new ScanMetrics())).isEqualTo(n * (n - 1) / 2);
      a.close();
      assertThat(a.executor().isTerminated()).isTrue();
      assertThatThrownBy(() -> sum(a, new ScanMetrics())).isInstanceOf(RejectedExecutionException.class);
      assertThat(sum(b, new ScanMetrics())).as("another scan's pool is unaffected").isEqualTo(n * (n - 1) / 2);
    }
  }

  @Test
  void propertiesAreReadInOnePlace() {
    String before = System.getProperty(ScanOptions.THREADS);
    System.setProperty(ScanOptions.THREADS, "3");
    System.setProperty(ScanOptions.DECODERS, "parquet-java");
    try (ScanOptions o = ScanOptions.fromSystemProperties()) {
      assertThat(o.threads()).isEqualTo(3);
      assertThat(o.ownDecoders()).isFalse();
      assertThat(o.ownCodecs()).isTrue();
    } finally {
      if (before == null) System.clearProperty(ScanOptions.THREADS);
      else System.setProperty(ScanOptions.THREADS, before);
      System.clearProperty(ScanOptions.DECODERS);
    }
  }

  /**
   * ZSTD pages on a scan worker reuse the thread's one zstd context (the same sums as parquet-java's codecs,
   * page after page and file after file), and the context is freed when the pool is shut down.
   */
  @Test
  void scanWorkersReuseOneZstdContextAndFreeItAtShutdown(@TempDir Path zdir) throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    long n = 40_000;
    java.nio.file.Files.createDirectories(zdir.resolve("t"));
    for (int file = 0; file < 2; file++) {
      try (ParquetWriter<org.apache.parquet.example.data.Group> w = ExampleParquetWriter.builder(
          new LocalOutputFile(zdir.resolve("t").resolve("z" + file + ".parquet"))).withType(SCHEMA).withRowGroupRowCountLimit(7_000)
          .withPageRowCountLimit(1_000).withCompressionCodec(org.apache.parquet.hadoop.metadata.CompressionCodecName.ZSTD)
          .build()) {
        for (long x = file * n; x < (file + 1) * n; x++) w.write(f.newGroup().append("x", x * 7919 % 100_003));
      }
    }
    Catalog zstd = Catalog.open(zdir.toString());
    ScanOptions own = ScanOptions.create(1, true, true);
    Thread[] worker = new Thread[1];
    try (ScanOptions reference = ScanOptions.create(1, true, false)) {
      long expected = sum(zstd, reference);
      assertThat(sum(zstd, own)).isEqualTo(expected);
      assertThat(sum(zstd, own)).isEqualTo(expected);
      own.executor().submit(() -> worker[0] = Thread.currentThread()).get();
      assertThat(worker[0]).isInstanceOf(ScanWorker.class);
      assertThat(((ScanWorker) worker[0]).holdsZstdContext()).isTrue();
    } finally {
      own.close();
    }
    worker[0].join(10_000);
    assertThat(worker[0].isAlive()).isFalse();
    assertThat(((ScanWorker) worker[0]).holdsZstdContext()).as("freed when its pool shut down").isFalse();
  }

  private long sum(Catalog c, ScanOptions options) {
    long sum = 0;
    try (ParquetScan scan = new ParquetScan(c, c.table("t"), List.of("x"), new ScanPredicate.Const(true),
        allocator, new ScanMetrics(), 1_000, true, options)) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) sum = sum * 31 + ((org.apache.arrow.vector.BigIntVector) b.getVector(0)).get(i);
        }
      }
    }
    return sum;
  }
}
