package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.profile.ColumnDescription;
import dev.quiver.planner.profile.ColumnStat;
import dev.quiver.planner.profile.PlanNode;
import dev.quiver.planner.profile.ProfileOptions;
import dev.quiver.planner.profile.ProfiledRun;
import dev.quiver.planner.profile.RowGroupOutcome;
import dev.quiver.planner.profile.RowGroupOutcome.Outcome;
import dev.quiver.planner.profile.ScanProfile;
import dev.quiver.planner.profile.TableDescription;
import dev.quiver.sample.SampleData;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.statistics.IntStatistics;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link QueryEngine#runProfiled}, {@link QueryEngine#describeTable}: the console's view of a run and of a table. */
class ProfileTest {
  static final String PRUNING = "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'";
  static Path sample;
  static QueryEngine engine;

  @TempDir
  static Path dir;
  static QueryEngine written;
  static final int GROUP = 1_000;

  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void setUp() throws Exception {
    sample = SampleData.ensure();
    engine = new QueryEngine(Catalog.open(sample.toString()));
    // 10 row groups: tag has 3 values per group from a per-group alphabet (dictionary), code a bloom filter
    MessageType schema = Types.buildMessage()
        .required(PrimitiveTypeName.INT64).named("id")
        .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("tag")
        .required(PrimitiveTypeName.INT64).named("code")
        .named("t");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t.parquet")))
        .withType(schema).withRowGroupRowCountLimit(GROUP).withBloomFilterEnabled("code", true)
        .withDictionaryEncoding("code", false).build()) {
      for (long id = 0; id < 10 * GROUP; id++) {
        w.write(f.newGroup().append("id", id).append("tag", "g" + id / GROUP + "-" + id % 3).append("code", code(id)));
      }
    }
    written = new QueryEngine(Catalog.open(dir.toString()));
  }

  static long code(long id) {
    return id * 7919 % 1_000_003; // unsorted: statistics cannot prune an equality
  }

  @AfterEach
  void close() {
    assertThat(allocator.getAllocatedMemory()).as("memory left allocated").isZero();
    allocator.close();
  }

  ProfiledRun run(QueryEngine e, String sql, boolean oracle) {
    return e.runProfiled(sql, allocator, QuerySettings.DEFAULT, Cancellation.NONE, new ProfileOptions(100, oracle));
  }

  /** The rows of {@code sql}'s EXPLAIN ANALYZE. */
  List<String> explainAnalyze(QueryEngine e, String sql) {
    List<String> lines = new ArrayList<>();
    PreparedQuery q = e.prepare("EXPLAIN ANALYZE " + sql, allocator);
    try (QueryExecution x = e.execute(q, allocator)) {
      VectorSchemaRoot b;
      while ((b = x.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          for (int i = 0; i < b.getRowCount(); i++) lines.add(((VarCharVector) batch.getVector(0)).getObject(i).toString());
        }
      }
    }
    return lines;
  }

  static Map<String, Long> scanMetrics(List<String> explain) {
    String line = explain.stream().filter(l -> l.contains("ParquetScanExec")).findFirst().orElseThrow();
    Map<String, Long> m = new HashMap<>();
    Matcher x = Pattern.compile("(row_groups_\\w+|pages_pruned|rows_scanned|bytes_scanned)=(\\d+)").matcher(line);
    while (x.find()) m.put(x.group(1), Long.parseLong(x.group(2)));
    return m;
  }

  static long count(List<RowGroupOutcome> groups, Outcome o) {
    return groups.stream().filter(g -> g.outcome() == o).count();
  }

  @Test
  void thePruningQueryShowsNineGroupsPrunedByStatisticsAndPagesPrunedInTheTenth() throws Exception {
    ProfiledRun run = run(engine, PRUNING, false);
    assertThat(run.columnTypes()).containsExactly("BIGINT");
    assertThat(run.rowCount()).isEqualTo(1);
    assertThat(run.truncated()).isFalse();
    assertThat(run.profile().scans()).hasSize(1);
    ScanProfile scan = run.profile().scans().get(0);
    assertThat(scan.table()).isEqualTo("lineitem");
    assertThat(scan.predicateColumns()).containsExactly("l_shipdate");
    assertThat(scan.oracle()).isFalse();
    List<RowGroupOutcome> groups = scan.rowGroups();
    assertThat(groups).hasSize(10);
    assertThat(count(groups, Outcome.PRUNED_STATISTICS)).isEqualTo(9);
    assertThat(count(groups, Outcome.READ_PAGES_PRUNED)).isEqualTo(1);
    RowGroupOutcome read = groups.stream().filter(g -> g.outcome() == Outcome.READ_PAGES_PRUNED).findFirst().orElseThrow();
    assertThat(read.pagesPruned()).isPositive().isLessThan(read.pagesTotal());
    assertThat(read.rowsRead()).isPositive().isLessThan(read.rows());
    assertThat(read.rowsMatching()).isEqualTo(-1);

    // independently: the footer's min of l_shipdate decides which row groups can hold a date before 1992-03-01
    long cutoff = LocalDate.parse("1992-03-01").toEpochDay();
    Configuration conf = new Configuration();
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(
        new org.apache.hadoop.fs.Path(sample.resolve("lineitem.parquet").toUri()), conf))) {
      List<BlockMetaData> blocks = r.getFooter().getBlocks();
      assertThat(blocks).hasSize(10);
      for (int i = 0; i < blocks.size(); i++) {
        ColumnChunkMetaData c = blocks.get(i).getColumns().stream()
            .filter(x -> x.getPath().toDotString().equals("l_shipdate")).findFirst().orElseThrow();
        IntStatistics s = (IntStatistics) c.getStatistics();
        RowGroupOutcome g = groups.get(i);
        assertThat(g.index()).isEqualTo(i);
        assertThat(g.file()).isEqualTo("lineitem.parquet");
        assertThat(g.rows()).isEqualTo(blocks.get(i).getRowCount());
        assertThat(g.compressedBytes()).isEqualTo(blocks.get(i).getCompressedSize());
        assertThat(g.outcome() == Outcome.PRUNED_STATISTICS).as("row group %d", i).isEqualTo(s.getMin() >= cutoff);
        ColumnStat st = g.stats().get(0);
        assertThat(st.column()).isEqualTo("l_shipdate");
        assertThat(st.min()).isEqualTo(LocalDate.ofEpochDay(s.getMin()).toString());
        assertThat(st.max()).isEqualTo(LocalDate.ofEpochDay(s.getMax()).toString());
        assertThat(st.nullCount()).isEqualTo(s.getNumNulls());
      }
    }

    // the same counts as EXPLAIN ANALYZE of the same query
    Map<String, Long> explained = scanMetrics(explainAnalyze(engine, PRUNING));
    assertThat(explained.get("row_groups_pruned_statistics")).isEqualTo(9);
    assertThat(explained.get("pages_pruned")).isEqualTo(groups.stream().mapToLong(RowGroupOutcome::pagesPruned).sum());
    assertThat(explained.get("rows_scanned")).isEqualTo(groups.stream().mapToLong(RowGroupOutcome::rowsRead).sum());
    for (var e : explained.entrySet()) assertThat(scan.metrics()).containsEntry(e.getKey(), e.getValue());

    // the physical tree: the scan node carries the scan's metrics
    PlanNode node = find(run.profile().physical(), scan.nodeId());
    assertThat(node.operator()).isEqualTo("ParquetScanExec");
    assertThat(node.detail()).contains("table=lineitem").contains("l_shipdate < DATE '1992-03-01'");
    assertThat(node.attributes()).containsEntry("row_groups_pruned_statistics", "9");
    assertThat(node.attributes()).doesNotContainKey("files");
    assertThat(run.profile().physical().outputRows()).isEqualTo(1);
    assertThat(run.profile().logical().outputRows()).isEqualTo(-1);
    assertThat(run.profile().logical().operator()).isNotBlank();
  }

  static PlanNode find(PlanNode n, String id) {
    if (n.id().equals(id)) return n;
    for (PlanNode c : n.children()) {
      PlanNode f = find(c, id);
      if (f != null) return f;
    }
    return null;
  }

  @Test
  void theOracleCountsTheRowsThatReallyMatchPerRowGroup() {
    ProfiledRun run = run(engine, PRUNING, true);
    long count = Long.parseLong(run.rows().get(0).get(0));
    ScanProfile scan = run.profile().scans().get(0);
    assertThat(scan.oracle()).isTrue();
    assertThat(scan.rowGroups()).allSatisfy(g -> assertThat(g.rowsMatching()).isNotNegative());
    assertThat(scan.rowGroups().stream().mapToLong(RowGroupOutcome::rowsMatching).sum()).isEqualTo(count);
    // pruning is safe: a pruned row group holds no match
    assertThat(scan.rowGroups()).filteredOn(g -> g.outcome() == Outcome.PRUNED_STATISTICS)
        .allSatisfy(g -> assertThat(g.rowsMatching()).isZero());
    // the oracle's rows are the query's: the run's count(*) is the count of the matching rows
    assertThat(count).isPositive();
  }

  @Test
  void dictionaryAndBloomOutcomes() {
    ScanProfile dict = run(written, "SELECT count(*) FROM t WHERE tag = 'g3-05'", false).profile().scans().get(0);
    assertThat(count(dict.rowGroups(), Outcome.PRUNED_STATISTICS)).isEqualTo(9);
    assertThat(count(dict.rowGroups(), Outcome.PRUNED_DICTIONARY)).isEqualTo(1);
    assertThat(dict.rowGroups().get(3).outcome()).isEqualTo(Outcome.PRUNED_DICTIONARY);
    assertThat(dict.rowGroups().get(3).stats().get(0)).satisfies(s -> {
      assertThat(s.min()).isEqualTo("g3-0");
      assertThat(s.max()).isEqualTo("g3-2");
      assertThat(s.hasDictionary()).isTrue();
    });

    // the sample's events: 'refund' sorts inside every row group's [min, max] of kind, and is in no dictionary
    ScanProfile events = run(engine, "SELECT count(*) FROM events WHERE kind = 'refund'", true).profile().scans().get(0);
    assertThat(events.rowGroups()).isNotEmpty().allSatisfy(g -> {
      assertThat(g.outcome()).isEqualTo(Outcome.PRUNED_DICTIONARY);
      assertThat(g.rowsMatching()).isZero();
    });

    long present = code(4_321);
    ProfiledRun bloomRun = run(written, "SELECT id FROM t WHERE code = " + present, true);
    assertThat(bloomRun.rows()).containsExactly(List.of("4321"));
    ScanProfile bloom = bloomRun.profile().scans().get(0);
    assertThat(count(bloom.rowGroups(), Outcome.PRUNED_BLOOM)).isGreaterThanOrEqualTo(8); // FPP 1%
    assertThat(bloom.rowGroups().get(4).outcome()).isIn(Outcome.READ, Outcome.READ_PAGES_PRUNED);
    assertThat(bloom.rowGroups().get(4).rowsMatching()).isEqualTo(1);
    assertThat(bloom.rowGroups().get(4).stats().get(0).hasBloomFilter()).isTrue();
    assertThat(bloom.rowGroups().stream().mapToLong(RowGroupOutcome::rowsMatching).sum()).isEqualTo(1);
  }

  @Test
  void rowGroupsAnsweredFromStatisticsAndPrunedByATopNAreTheirOwnOutcomes() {
    ScanProfile stats = run(engine, "SELECT count(*), min(l_orderkey), max(l_orderkey) FROM lineitem", false)
        .profile().scans().get(0);
    assertThat(stats.rowGroups()).hasSize(10).allSatisfy(g -> {
      assertThat(g.outcome()).isEqualTo(Outcome.FROM_STATISTICS);
      assertThat(g.rowsRead()).isZero();
    });
    // the sample's lineitem is sorted by l_shipdate: the ten latest sit in its last row group (a day may straddle
    // two), the others cannot beat them
    ScanProfile top = run(engine, "SELECT l_shipdate FROM lineitem ORDER BY l_shipdate DESC LIMIT 10", false)
        .profile().scans().get(0);
    assertThat(count(top.rowGroups(), Outcome.PRUNED_TOP_N)).isGreaterThanOrEqualTo(8);
    assertThat(top.rowGroups().get(9).outcome()).isIn(Outcome.READ, Outcome.READ_PAGES_PRUNED);
  }

  @Test
  void theSimplifiersRewritesAreListedOnlyWhenItIsOn() {
    String sql = "SELECT count(*) FROM lineitem WHERE extract(year FROM l_shipdate) = 1995";
    ProfiledRun on = run(engine, sql, false);
    assertThat(on.profile().simplified()).isTrue();
    assertThat(on.profile().steps()).isNotEmpty();
    assertThat(on.profile().steps()).anySatisfy(s -> {
      assertThat(s.rule()).isEqualTo("RangeForMonotonicFunction");
      assertThat(s.before()).contains("1995");
      assertThat(s.after()).contains("DATE '1995-01-01'").contains("DATE '1996-01-01'");
    });
    assertThat(on.profile().steps()).allSatisfy(s -> assertThat(s.before()).isNotEqualTo(s.after()));
    ProfiledRun off = engine.runProfiled(sql, allocator, QuerySettings.DEFAULT.withSimplify(false), Cancellation.NONE,
        new ProfileOptions(10, false));
    assertThat(off.profile().simplified()).isFalse();
    assertThat(off.profile().steps()).isEmpty();
    assertThat(off.rows()).isEqualTo(on.rows());
    // pushable only when simplified: the simplified run prunes, the other reads every row group
    assertThat(count(on.profile().scans().get(0).rowGroups(), Outcome.PRUNED_STATISTICS)).isPositive();
    assertThat(off.profile().scans().get(0).rowGroups()).allSatisfy(g -> assertThat(g.outcome()).isEqualTo(Outcome.READ));
  }

  @Test
  void rowsAreTextAsAClientShowsThem() {
    ProfiledRun run = engine.runProfiled(
        "SELECT l_orderkey, l_shipdate, l_extendedprice, l_shipmode, CAST(NULL AS INTEGER) AS n FROM lineitem "
            + "ORDER BY l_orderkey, l_linenumber LIMIT 3",
        allocator, QuerySettings.DEFAULT, Cancellation.NONE, new ProfileOptions(2, false));
    assertThat(run.columnNames()).containsExactly("l_orderkey", "l_shipdate", "l_extendedprice", "l_shipmode", "n");
    assertThat(run.columnTypes()).containsExactly("BIGINT", "DATE", "DECIMAL(12,2)", "VARCHAR", "INTEGER");
    assertThat(run.rowCount()).isEqualTo(3);
    assertThat(run.rows()).hasSize(2);
    assertThat(run.truncated()).isTrue();
    List<List<Object>> expected = TestTables.run(engine, allocator,
        "SELECT l_orderkey, l_shipdate, l_extendedprice, l_shipmode FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 2");
    for (int i = 0; i < 2; i++) {
      List<String> row = run.rows().get(i);
      assertThat(row.get(0)).isEqualTo(expected.get(i).get(0).toString());
      assertThat(row.get(1)).isEqualTo(LocalDate.ofEpochDay(((Number) expected.get(i).get(1)).longValue()).toString());
      assertThat(row.get(2)).isEqualTo(((java.math.BigDecimal) expected.get(i).get(2)).toPlainString()).matches("\\d+\\.\\d\\d");
      assertThat(row.get(3)).isEqualTo(expected.get(i).get(3).toString());
      assertThat(row.get(4)).isNull();
    }
  }

  @Test
  void aJoinHasAScanProfilePerScanNode() {
    ProfiledRun run = run(engine, "SELECT o_orderpriority, count(*) FROM orders JOIN lineitem ON l_orderkey = o_orderkey "
        + "WHERE l_shipdate < DATE '1992-03-01' AND o_orderdate >= DATE '1992-01-01' GROUP BY o_orderpriority "
        + "ORDER BY o_orderpriority", true);
    assertThat(run.rowCount()).isEqualTo(5);
    List<ScanProfile> scans = run.profile().scans();
    assertThat(scans).extracting(ScanProfile::table).containsExactlyInAnyOrder("orders", "lineitem");
    assertThat(scans).extracting(ScanProfile::nodeId).doesNotHaveDuplicates();
    for (ScanProfile s : scans) {
      PlanNode node = find(run.profile().physical(), s.nodeId());
      assertThat(node).isNotNull();
      assertThat(node.operator()).isEqualTo("ParquetScanExec");
      assertThat(node.outputRows()).isNotNegative();
      assertThat(s.rowGroups()).isNotEmpty().allSatisfy(g -> assertThat(g.rowsMatching()).isNotNegative());
    }
    assertThat(run.profile().logical().children()).isNotEmpty();
  }

  @Test
  void describesATableFromItsFooters() {
    assertThat(engine.tableNames()).contains("lineitem", "events", "orders");
    TableDescription t = engine.describeTable("lineitem");
    assertThat(t.name()).isEqualTo("lineitem");
    assertThat(t.rows()).isEqualTo(600_572);
    assertThat(t.files()).hasSize(1);
    assertThat(t.files().get(0).rowGroups()).hasSize(10);
    assertThat(t.files().get(0).rowGroups().stream().mapToLong(g -> g.rows()).sum()).isEqualTo(600_572);
    assertThat(t.files().get(0).path()).isEqualTo("lineitem.parquet");
    assertThat(t.bytes()).isEqualTo(sample.resolve("lineitem.parquet").toFile().length());
    assertThat(t.sortedBy()).contains("l_shipdate").doesNotContain("l_comment", "l_orderkey");
    ColumnDescription ship = t.columns().stream().filter(c -> c.name().equals("l_shipdate")).findFirst().orElseThrow();
    assertThat(ship.sqlType()).isEqualTo("DATE");
    assertThat(ship.physicalType()).startsWith("INT32");
    assertThat(ship.pageIndex()).isTrue();
    assertThat(ship.codec()).isNotBlank();
    assertThat(ship.compressedBytes()).isPositive();
    ColumnStat first = t.files().get(0).rowGroups().get(0).columns().stream()
        .filter(c -> c.column().equals("l_shipdate")).findFirst().orElseThrow();
    assertThat(first.min()).matches("\\d{4}-\\d\\d-\\d\\d");
    assertThat(LocalDate.parse(first.min())).isBeforeOrEqualTo(LocalDate.parse(first.max()));

    TableDescription events = engine.describeTable("EVENTS");
    assertThat(events.rows()).isEqualTo(SampleData.EVENTS_ROWS);
    assertThat(events.sortedBy()).contains("event_time", "event_id");
  }

  @Test
  void anUnknownTableIsNotFound() {
    assertThatThrownBy(() -> engine.describeTable("no_such_table"))
        .isInstanceOfSatisfying(QuiverException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageContaining("no_such_table");
  }

  @Test
  void onlyQueriesAreProfiled() {
    assertThatThrownBy(() -> run(engine, "EXPLAIN " + PRUNING, false))
        .isInstanceOfSatisfying(QuiverException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED));
    assertThatThrownBy(() -> run(engine, "SELECT nope FROM lineitem", false))
        .isInstanceOfSatisfying(QuiverException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageContaining("1:8");
  }

  @Test
  void cancellationStopsTheRunAndReleasesItsMemory() {
    String sql = "SELECT l_orderkey, l_comment FROM lineitem WHERE l_quantity < 30";
    QuerySettings small = QuerySettings.DEFAULT.withBatchRows(1024);
    AtomicInteger checks = new AtomicInteger();
    ProfiledRun full = engine.runProfiled(sql, allocator, small, checks::incrementAndGet, new ProfileOptions(10, false));
    int run = checks.get();
    assertThat(full.rowCount()).isPositive();
    assertThat(run).isGreaterThan(200); // a check per batch and operator: planning is a small prefix of them
    checks.set(0);
    engine.runProfiled(sql, allocator, small, checks::incrementAndGet, new ProfileOptions(10, true));
    int withOracle = checks.get();
    assertThat(withOracle - run).as("checks of the oracle's reading").isGreaterThan(200);
    // cancelled half-way through the execution, then half-way through the oracle's second reading
    for (int at : new int[] {run / 2, run + (withOracle - run) / 2}) {
      AtomicInteger n = new AtomicInteger();
      Cancellation cancel = () -> {
        if (n.incrementAndGet() > at) throw new QuiverException(ErrorCode.CANCELLED, "cancelled by the test");
      };
      assertThatThrownBy(() -> engine.runProfiled(sql, allocator, small, cancel, new ProfileOptions(10, true)))
          .isInstanceOfSatisfying(QuiverException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
      assertThat(allocator.getAllocatedMemory()).as("memory left after cancelling at check %d", at).isZero();
    }
    // the allocator is closed by close(): anything left allocated fails the test
  }
}
