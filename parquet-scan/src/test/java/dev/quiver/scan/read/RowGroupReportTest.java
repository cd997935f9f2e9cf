package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.predicate.ScanPredicate.Compare;
import dev.quiver.scan.predicate.ScanPredicate.Op;
import dev.quiver.scan.prune.PruningLevel;
import dev.quiver.scan.prune.RowGroupReport;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ChunkStats;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
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
 * The per-row-group reports of a scan ({@link ScanMetrics#recordingRowGroups()}) over a table of two hive
 * partitions, each a file of 4 row groups of 500 rows: {@code id} ascending, {@code day} a DATE ascending, {@code
 * price} a DECIMAL(10,2).
 */
class RowGroupReportTest {
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("day")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 10)).named("price")
      .named("t");
  static final LocalDate DAY0 = LocalDate.parse("1992-01-01");

  @TempDir
  static Path dir;
  static Catalog catalog;
  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void write() throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    for (String region : List.of("eu", "us")) {
      Path d = dir.resolve("t").resolve("region=" + region);
      Files.createDirectories(d);
      try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(d.resolve("part.parquet")))
          .withType(SCHEMA).withRowGroupRowCountLimit(500).withPageRowCountLimit(100).build()) {
        for (long id = 0; id < 2_000; id++) {
          w.write(f.newGroup().append("id", id).append("day", (int) (DAY0.toEpochDay() + id / 10))
              .append("price", id * 125)); // 1.25 per id
        }
      }
    }
    catalog = Catalog.open(dir.toString());
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private long scan(ScanPredicate p, LongRowPredicate rows, ScanMetrics m) {
    long n = 0;
    try (ParquetScan scan = new ParquetScan(catalog, catalog.table("t"), List.of("id"), p, rows, allocator, m, 256, true,
        ScanOptions.shared())) {
      VectorSchemaRoot b;
      while ((b = scan.next()) != null) {
        n += b.getRowCount();
        b.close();
      }
    }
    return n;
  }

  @Test
  void nothingIsRecordedUnlessAsked() {
    ScanMetrics m = new ScanMetrics();
    scan(new Compare("id", Op.LT, 700L, new ArrowType.Int(64, true)), null, m);
    assertThat(m.recordsRowGroups()).isFalse();
    assertThat(m.rowGroupReports()).isEmpty();
  }

  @Test
  void eachRowGroupReportsWhatHappenedToIt() {
    ScanMetrics m = ScanMetrics.recordingRowGroups();
    // region = 'us' prunes the eu file by partition; id < 700 prunes row groups 2 and 3 of the us file by
    // statistics, and pages of its row group 1 (ids 500..999, pages of 100 rows) by the page index
    ScanPredicate p = new ScanPredicate.And(List.of(
        new Compare("region", Op.EQ, "us", ArrowType.Utf8.INSTANCE),
        new Compare("id", Op.LT, 700L, new ArrowType.Int(64, true))));
    long rows = scan(p, new LongRowPredicate("id", id -> id < 700), m);
    assertThat(rows).isEqualTo(700);
    List<RowGroupReport> r = m.rowGroupReports();
    assertThat(r).hasSize(8);
    assertThat(r).extracting(RowGroupReport::ordinal).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(r.subList(0, 4)).allSatisfy(g -> {
      assertThat(g.file()).isEqualTo("t/region=eu/part.parquet");
      assertThat(g.prunedBy()).isEqualTo(PruningLevel.PARTITION);
    });
    assertThat(r.subList(4, 8)).extracting(RowGroupReport::file).containsOnly("t/region=us/part.parquet");
    assertThat(r.subList(4, 8)).extracting(RowGroupReport::index).containsExactly(0, 1, 2, 3);
    RowGroupReport first = r.get(4);
    assertThat(first.prunedBy()).isNull();
    assertThat(first.pagesPruned()).isZero();
    assertThat(first.rowsRead()).isEqualTo(500);
    assertThat(first.rowsPassing()).isEqualTo(500);
    RowGroupReport second = r.get(5);
    assertThat(second.prunedBy()).isNull();
    assertThat(second.pagesTotal()).isEqualTo(5);
    assertThat(second.pagesPruned()).isEqualTo(3); // ids 700..999
    assertThat(second.rowsRead()).isEqualTo(200);
    assertThat(second.rowsPassing()).isEqualTo(200);
    assertThat(r.subList(6, 8)).allSatisfy(g -> {
      assertThat(g.prunedBy()).isEqualTo(PruningLevel.STATISTICS);
      assertThat(g.rowsRead()).isZero();
    });
    // the sums are the scan's metrics
    assertThat(r.stream().mapToLong(RowGroupReport::pagesPruned).sum()).isEqualTo(m.asMap().get("pages_pruned"));
    assertThat(r.stream().mapToLong(RowGroupReport::rowsRead).sum()).isEqualTo(m.rowsScanned());
    assertThat(r.stream().filter(g -> g.prunedBy() != null).count()).isEqualTo(m.rowGroupsPruned());
    // statistics of the predicate's stored columns (not the partition column)
    assertThat(second.stats()).extracting(ChunkStats::column).containsExactly("id");
    assertThat(second.stats().get(0).min()).isEqualTo("500");
    assertThat(second.stats().get(0).max()).isEqualTo("999");
    assertThat(second.stats().get(0).nullCount()).isZero();
    assertThat(second.rows()).isEqualTo(500);
    assertThat(second.compressedBytes()).isPositive();
  }

  @Test
  void statisticsAreShownAsSqlValues() {
    ScanMetrics m = ScanMetrics.recordingRowGroups();
    ScanPredicate p = new ScanPredicate.And(List.of(
        new Compare("day", Op.GE, DAY0.plusDays(100).toEpochDay(), new ArrowType.Date(DateUnit.DAY)),
        new Compare("price", Op.GE, new BigDecimal("0.00"), new ArrowType.Decimal(10, 2, 128))));
    scan(p, null, m);
    RowGroupReport g = m.rowGroupReports().get(5); // us file, row group 1: ids 500..999
    assertThat(g.stats()).extracting(ChunkStats::column).containsExactly("day", "price");
    assertThat(g.stats().get(0).min()).isEqualTo(DAY0.plusDays(50).toString());
    assertThat(g.stats().get(0).max()).isEqualTo(DAY0.plusDays(99).toString());
    assertThat(g.stats().get(1).min()).isEqualTo("625.00");
    assertThat(g.stats().get(1).max()).isEqualTo("1248.75");
    assertThat(g.prunedBy()).isEqualTo(PruningLevel.STATISTICS);
  }
}
