package dev.quiver.scan.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.read.ParquetScan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog is a snapshot of its data directory: {@code refresh()} sees replaced, new and deleted files
 * and tables (reusing what did not change), an old snapshot keeps its versions, and a scan of a file
 * replaced since it was planned, or while it runs, fails with FILE_CHANGED instead of reading the new
 * bytes with the old footer.
 */
class CatalogRefreshTest {
  static final MessageType SCHEMA = Types.buildMessage().required(PrimitiveTypeName.INT64).named("x").named("t");

  @TempDir
  Path dir;
  final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  static void write(Path path, long first, int rows, int perRowGroup) throws Exception {
    Files.deleteIfExists(path);
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(path)).withType(SCHEMA)
        .withDictionaryEncoding(false).withRowGroupRowCountLimit(perRowGroup).build()) {
      for (long i = 0; i < rows; i++) w.write(f.newGroup().append("x", first + i));
    }
  }

  /** Atomically replaces {@code target} by a file of {@code rows} longs from {@code first}, keeping its modification time. */
  private void replace(Path target, long first, int rows, int perRowGroup) throws Exception {
    FileTime mtime = Files.getLastModifiedTime(target);
    Path tmp = dir.resolve(".replacement");
    write(tmp, first, rows, perRowGroup);
    Files.setLastModifiedTime(tmp, mtime); // only the file's identity tells the versions apart
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private long sum(Catalog catalog, String table, int parallelism, Runnable afterFirstBatch) {
    long sum = 0;
    try (ParquetScan scan = new ParquetScan(catalog, catalog.table(table), List.of("x"), new ScanPredicate.Const(true),
        allocator, new ScanMetrics(), 100, true, dev.quiver.scan.read.ScanOptions.shared().withThreads(parallelism))) {
      boolean first = true;
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          BigIntVector x = (BigIntVector) b.getVector(0);
          for (int i = 0; i < b.getRowCount(); i++) sum += x.get(i);
        }
        if (first && afterFirstBatch != null) afterFirstBatch.run();
        first = false;
      }
    }
    return sum;
  }

  @Test
  void aSnapshotListsTheDirectoryWhenFirstAskedForATableThenKeepsThatListing() throws Exception {
    Path data = Files.createDirectories(dir.resolve("lazy"));
    write(data.resolve("t.parquet"), 0, 10, 10);
    Catalog open = Catalog.open(data.toString());
    Catalog snapshot = open.refresh();
    write(data.resolve("v.parquet"), 0, 3, 3); // before the snapshot's first use: seen
    assertThat(snapshot.tables()).extracting(ParquetTable::name).containsExactly("t", "v");
    write(data.resolve("w.parquet"), 0, 3, 3); // after it: not this snapshot's
    assertThat(snapshot.table("w")).isNull();
    assertThat(snapshot.refresh().table("w")).isNotNull();

    // a snapshot nobody asks for a table (SELECT 1) lists nothing: even a vanished directory goes unnoticed
    try (var files = Files.walk(data)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(f);
    }
    Catalog unlisted = open.refresh();
    QuiverException e = catchThrowableOfType(() -> unlisted.table("t"), QuiverException.class);
    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(e.getMessage()).contains("the data directory no longer exists").doesNotContain(data.toString());
  }

  @Test
  void refreshSeesReplacedNewAndDeletedFiles() throws Exception {
    write(dir.resolve("t.parquet"), 0, 1000, 250);
    write(dir.resolve("u.parquet"), 0, 10, 10);
    Catalog before = Catalog.open(dir.toString());
    ParquetTable t0 = before.table("t");
    assertThat(t0.rowCount()).isEqualTo(1000);

    replace(dir.resolve("t.parquet"), 1_000_000, 1000, 250);
    write(dir.resolve("v.parquet"), 0, 3, 3);
    Catalog after = before.refresh();
    ParquetTable t1 = after.table("t");
    assertThat(t1.files().get(0).sameVersion(t0.files().get(0))).isFalse();
    assertThat(after.table("u")).as("an unchanged table is reused, not read again").isSameAs(before.table("u"));
    assertThat(after.tables()).extracting(ParquetTable::name).containsExactly("t", "u", "v");
    assertThat(before.tables()).extracting(ParquetTable::name).containsExactly("t", "u");
    assertThat(before.table("t")).as("a snapshot keeps its versions").isSameAs(t0);
    assertThat(sum(after, "t", 2, null)).isEqualTo(1000 * 1_000_000L + 499_500);

    Files.delete(dir.resolve("u.parquet"));
    assertThat(after.refresh().table("u")).isNull();
    assertThat(after.refresh().tables()).extracting(ParquetTable::name).containsExactly("t", "v");
  }

  @Test
  void scanOfAFileReplacedSincePlanningFails() throws Exception {
    write(dir.resolve("t.parquet"), 0, 1000, 250);
    Catalog planned = Catalog.open(dir.toString());
    replace(dir.resolve("t.parquet"), 1_000_000, 1000, 250);
    QuiverException e = catchThrowableOfType(() -> sum(planned, "t", 2, null), QuiverException.class);
    assertThat(e.code()).isEqualTo(ErrorCode.FILE_CHANGED);
    assertThat(e.getMessage()).contains("t.parquet changed while the query read it").contains("retry the query");
  }

  @Test
  void fileReplacedOrDeletedWhileAScanReadsItFailsTheScan() throws Exception {
    for (boolean delete : new boolean[] {false, true}) {
      Path t = dir.resolve("t.parquet");
      write(t, 0, 10_000, 1000);
      Catalog planned = Catalog.open(dir.toString());
      QuiverException e = catchThrowableOfType(() -> sum(planned, "t", 1, () -> {
        try {
          if (delete) Files.delete(t);
          else replace(t, 1_000_000, 10_000, 1000);
        } catch (Exception x) {
          throw new AssertionError(x);
        }
      }), QuiverException.class);
      assertThat(e).as("the scan must fail").isNotNull();
      assertThat(e.code()).isEqualTo(ErrorCode.FILE_CHANGED);
      assertThat(e.getMessage()).contains(delete ? "was deleted while the query read it" : "changed while the query read it");
    }
  }
}
