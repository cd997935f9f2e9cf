package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.Events;
import dev.quiver.sample.Lineitem;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.server.QuiverServer;
import io.trino.tpch.LineItem;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Quiver serving {@code hdfs://} through the Hadoop client, against a real in-process HDFS
 * (MiniDFSCluster: a NameNode and a DataNode over loopback RPC). The same Parquet files are served by
 * a second server from the local file system; every query must answer the same on both, and the
 * same as brute force over the generators' rows, and prune the same row groups.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HdfsTest {
  static final double SF = 0.01;
  static final int ROW_GROUP = 4096;
  /** Rows and generator seed of each file of the hive-partitioned {@code events} table. */
  static final long[][] EVENT_FILES = {{1, 3_000, 11}, {2, 2_000, 12}, {2, 1_000, 13}}; // batch, rows, seed
  static final int EVENT_ROW_GROUP = 500;

  @TempDir
  static Path tmp;
  String previousTestBuildData;
  MiniDFSCluster cluster;
  DistributedFileSystem dfs;
  String hdfsData;
  TestServer onHdfs;
  TestServer onLocal;
  Connection hdfs;
  Connection local;
  List<LineItem> rows;
  List<Object[]> events; // each row followed by its batch

  @BeforeAll
  void start() throws Exception {
    // the minicluster keeps everything (name and data directories, tmp files) under the temp dir
    Path base = Files.createDirectories(tmp.resolve("dfs"));
    previousTestBuildData = System.getProperty("test.build.data");
    System.setProperty("test.build.data", base.toString());
    Configuration conf = new HdfsConfiguration();
    conf.set("hadoop.tmp.dir", base.resolve("tmp").toString());
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.toString());
    // the cluster starts while the files are written (both take seconds)
    ExecutorService starter = Executors.newSingleThreadExecutor();
    Future<MiniDFSCluster> starting = starter.submit(() -> {
      MiniDFSCluster c = new MiniDFSCluster.Builder(conf, base.toFile()).numDataNodes(1).storagesPerDatanode(1).build();
      try {
        c.waitActive();
      } catch (IOException | RuntimeException e) {
        c.shutdown();
        throw e;
      }
      return c;
    });
    starter.shutdown();
    Path data = Files.createDirectories(tmp.resolve("data"));
    try {
      Lineitem.write(data.resolve("lineitem.parquet"), SF, Lineitem.Order.SHIPDATE, ROW_GROUP, b -> b);
      rows = Lineitem.generate(SF);
      rows.sort(Comparator.comparingInt(LineItem::getShipDate).thenComparingLong(LineItem::getOrderKey)
          .thenComparingInt(LineItem::getLineNumber));
      events = new ArrayList<>();
      int part = 0;
      for (long[] f : EVENT_FILES) {
        Path file = Files.createDirectories(data.resolve("events/batch=" + f[0])).resolve("part-" + part++ + ".parquet");
        Events.write(file, f[1], f[2], EVENT_ROW_GROUP);
        Random r = new Random(f[2]);
        for (long i = 0; i < f[1]; i++) events.add(new Object[] {Events.row(r, i), f[0]});
      }
    } finally {
      cluster = starting.get(); // also when writing failed, so that @AfterAll shuts it down
    }

    // the test's own client, not the cached one: Quiver must reach HDFS with nothing but its own configuration
    dfs = (DistributedFileSystem) FileSystem.newInstance(cluster.getURI(), conf);
    hdfsData = cluster.getURI() + "/warehouse/data";
    org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path(hdfsData);
    dfs.mkdirs(target.getParent());
    dfs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(data.toUri()), target);
    // a table only on HDFS
    dfs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(data.resolve("events/batch=2/part-1.parquet").toUri()),
        new org.apache.hadoop.fs.Path(target, "doomed.parquet"));

    onHdfs = TestServer.start(hdfsData);
    onLocal = TestServer.start(data);
    hdfs = onHdfs.jdbc();
    local = onLocal.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    // JDBC connections, the servers (which fail on allocator leaks), Quiver's cached HDFS client and the
    // test's, the cluster, the system property: each closed even if one before it failed
    AutoCloseable quiverClient = cluster == null || onHdfs == null ? null
        : () -> FileSystem.get(cluster.getURI(), onHdfs.hadoopConf()).close();
    AutoCloseable shutdown = cluster == null ? null : cluster::shutdown;
    Exception failure = null;
    for (AutoCloseable c : new AutoCloseable[] {hdfs, local, onHdfs, onLocal, quiverClient, dfs, shutdown, this::restoreProperty}) {
      try {
        if (c != null) c.close();
      } catch (Exception e) {
        if (failure == null) failure = e;
        else failure.addSuppressed(e);
      }
    }
    if (failure != null) throw failure;
  }

  private void restoreProperty() {
    if (previousTestBuildData == null) System.clearProperty("test.build.data");
    else System.setProperty("test.build.data", previousTestBuildData);
  }

  private static int day(String iso) {
    return (int) LocalDate.parse(iso).toEpochDay();
  }

  private static BigDecimal cents(long unscaled) {
    return BigDecimal.valueOf(unscaled, 2);
  }

  /** The rows of {@code sql} on HDFS, asserted equal to the rows of the same query on the local files. */
  private List<List<Object>> both(String sql) throws Exception {
    List<List<Object>> got = TestServer.rows(hdfs, sql);
    assertThat(got).as(sql).isEqualTo(TestServer.rows(local, sql));
    return got;
  }

  private static List<String> tableNames(Connection c) throws Exception {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = c.getMetaData().getTables(null, null, "%", null)) {
      while (rs.next()) out.add(rs.getString("TABLE_NAME"));
    }
    return out;
  }

  @Test
  void sameTablesOnHdfsPlusTheOneOnlyThere() throws Exception {
    assertThat(tableNames(local)).containsExactly("events", "lineitem");
    assertThat(tableNames(hdfs)).containsExactly("doomed", "events", "lineitem");
  }

  @Test
  void quiverReachesHdfsWithItsOwnConfiguration() throws Exception {
    // the cached client Quiver read the files through was made from its configuration, not the test's
    FileSystem used = FileSystem.get(cluster.getURI(), onHdfs.hadoopConf());
    assertThat(used).isInstanceOf(DistributedFileSystem.class).isNotSameAs(dfs);
    assertThat(used.getConf()).isSameAs(onHdfs.hadoopConf());
  }

  @Test
  void countAndSums() throws Exception {
    List<Object> r = both("SELECT count(*), sum(l_quantity), sum(l_extendedprice), sum(l_orderkey) FROM lineitem").get(0);
    assertThat(((Number) r.get(0)).longValue()).isEqualTo(rows.size());
    assertThat((BigDecimal) r.get(1)).isEqualByComparingTo(cents(rows.stream().mapToLong(li -> li.getQuantity() * 100).sum()));
    assertThat((BigDecimal) r.get(2)).isEqualByComparingTo(cents(rows.stream().mapToLong(LineItem::getExtendedPriceInCents).sum()));
    assertThat(((Number) r.get(3)).longValue()).isEqualTo(rows.stream().mapToLong(LineItem::getOrderKey).sum());
  }

  @Test
  void filteredAggregate() throws Exception {
    String sql = "SELECT count(*), sum(l_extendedprice), min(l_orderkey), max(l_orderkey) FROM lineitem"
        + " WHERE l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1995-04-01' AND l_discount > 0.05";
    List<LineItem> match = rows.stream().filter(li -> li.getShipDate() >= day("1995-01-01")
        && li.getShipDate() < day("1995-04-01") && li.getDiscountPercent() > 5).toList();
    assertThat(match).isNotEmpty();
    List<Object> r = both(sql).get(0);
    assertThat(((Number) r.get(0)).longValue()).isEqualTo(match.size());
    assertThat((BigDecimal) r.get(1)).isEqualByComparingTo(cents(match.stream().mapToLong(LineItem::getExtendedPriceInCents).sum()));
    assertThat(((Number) r.get(2)).longValue()).isEqualTo(match.stream().mapToLong(LineItem::getOrderKey).min().orElseThrow());
    assertThat(((Number) r.get(3)).longValue()).isEqualTo(match.stream().mapToLong(LineItem::getOrderKey).max().orElseThrow());
  }

  @Test
  void groupBy() throws Exception {
    List<List<Object>> got = both("SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity) FROM lineitem"
        + " GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus");
    Map<String, long[]> expected = new TreeMap<>();
    for (LineItem li : rows) {
      long[] a = expected.computeIfAbsent(li.getReturnFlag() + "|" + li.getStatus(), k -> new long[2]);
      a[0]++;
      a[1] += li.getQuantity() * 100L;
    }
    assertThat(got).hasSize(expected.size());
    int i = 0;
    for (var e : expected.entrySet()) {
      List<Object> r = got.get(i++);
      assertThat(r.get(0) + "|" + r.get(1)).isEqualTo(e.getKey());
      assertThat(((Number) r.get(2)).longValue()).isEqualTo(e.getValue()[0]);
      assertThat((BigDecimal) r.get(3)).isEqualByComparingTo(cents(e.getValue()[1]));
    }
  }

  @Test
  void hivePartitionedDirectoryOnHdfs() throws Exception {
    List<List<Object>> got = both("SELECT batch, count(*), sum(retries), sum(event_id) FROM events GROUP BY batch ORDER BY batch");
    Map<Long, long[]> expected = new TreeMap<>();
    for (Object[] e : events) {
      Object[] row = (Object[]) e[0];
      long[] a = expected.computeIfAbsent((Long) e[1], k -> new long[3]);
      a[0]++;
      a[1] += (Integer) row[8];
      a[2] += (Long) row[0];
    }
    assertThat(got).hasSize(expected.size());
    int i = 0;
    for (var e : expected.entrySet()) {
      List<Object> r = got.get(i++);
      assertThat(((Number) r.get(0)).longValue()).isEqualTo(e.getKey());
      assertThat(((Number) r.get(1)).longValue()).isEqualTo(e.getValue()[0]);
      assertThat(((Number) r.get(2)).longValue()).isEqualTo(e.getValue()[1]);
      assertThat(((Number) r.get(3)).longValue()).isEqualTo(e.getValue()[2]);
    }
    long purchases = events.stream().filter(e -> (Long) e[1] == 2 && ((Object[]) e[0])[2].equals("purchase")).count();
    List<Object> r = both("SELECT count(*) FROM events WHERE batch = 2 AND kind = 'purchase'").get(0);
    assertThat(((Number) r.get(0)).longValue()).isEqualTo(purchases);
  }

  /** The scan metrics of {@code EXPLAIN ANALYZE query} on HDFS, asserted equal to those on the local files. */
  private Map<String, Long> sameMetrics(String query) throws Exception {
    Map<String, Long> m = TestServer.scanMetrics(hdfs, query);
    assertThat(m).as(query).containsKeys("row_groups_total", "row_groups_pruned_statistics", "rows_scanned")
        .isEqualTo(TestServer.scanMetrics(local, query));
    return m;
  }

  @ParameterizedTest
  @ValueSource(strings = {"1993-01-01", "1995-06-15", "1998-08-01"})
  void explainAnalyzeShowsStatisticsPruningOnHdfs(String cutoff) throws Exception {
    String q = "SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_shipdate >= DATE '" + cutoff + "'";
    Map<String, Long> m = sameMetrics(q);
    // rows are sorted by l_shipdate in groups of ROW_GROUP: a group is skipped iff its largest date is before the cutoff
    long groups = 0;
    long skipped = 0;
    for (int from = 0; from < rows.size(); from += ROW_GROUP) {
      groups++;
      if (rows.get(Math.min(rows.size(), from + ROW_GROUP) - 1).getShipDate() < day(cutoff)) skipped++;
    }
    assertThat(skipped).isPositive();
    assertThat(m.get("row_groups_total")).isEqualTo(groups);
    assertThat(m.get("row_groups_pruned_statistics")).isEqualTo(skipped);
    assertThat(m.get("rows_scanned")).isLessThan(rows.size());
  }

  @Test
  void explainAnalyzeShowsPartitionPruningOnHdfs() throws Exception {
    Map<String, Long> m = sameMetrics("SELECT sum(retries) FROM events WHERE batch = 2");
    long batchOneGroups = (EVENT_FILES[0][1] + EVENT_ROW_GROUP - 1) / EVENT_ROW_GROUP;
    assertThat(m.get("row_groups_pruned_partition")).isEqualTo(batchOneGroups);
  }

  @Test
  void missingDataDirectoryOnHdfsIsNotFoundNamingIt() throws Exception {
    String missing = cluster.getURI() + "/warehouse/nope";
    assertThatThrownBy(() -> QuiverServer.start(missing, "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY).close())
        .isInstanceOf(QuiverException.class)
        .satisfies(e -> assertThat(((QuiverException) e).code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageContaining(missing);
    assertThat(TestServer.scalarLong(hdfs, "SELECT count(*) FROM lineitem")).isEqualTo(rows.size());
  }

  /** A file replaced on HDFS (rename over it) is read with its new footer; a deleted one is no table any more. */
  @Test
  void fileReplacedOrDeletedOnHdfsIsSeenByTheNextQuery() throws Exception {
    org.apache.hadoop.fs.Path changing = new org.apache.hadoop.fs.Path(hdfsData + "/changing.parquet");
    org.apache.hadoop.fs.Path staged = new org.apache.hadoop.fs.Path(hdfsData + "/_changing.tmp");
    Path events = tmp.resolve("data/events");
    try {
      dfs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(events.resolve("batch=2/part-1.parquet").toUri()), changing);
      assertThat(TestServer.scalarLong(hdfs, "SELECT count(*) FROM changing")).isEqualTo(EVENT_FILES[1][1]);
      dfs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(events.resolve("batch=1/part-0.parquet").toUri()), staged);
      dfs.rename(staged, changing, org.apache.hadoop.fs.Options.Rename.OVERWRITE);
      assertThat(TestServer.scalarLong(hdfs, "SELECT count(*) FROM changing")).isEqualTo(EVENT_FILES[0][1]);
      assertThat(TestServer.scalarLong(hdfs, "SELECT sum(event_id) FROM changing"))
          .isEqualTo(TestServer.scalarLong(local, "SELECT sum(event_id) FROM events WHERE batch = 1"));
      assertThat(dfs.delete(changing, false)).isTrue();
      try (BufferAllocator allocator = new RootAllocator(); FlightSqlClient client = onHdfs.flightSql(allocator)) {
        assertThatThrownBy(() -> client.execute("SELECT sum(event_id) FROM changing"))
            .isInstanceOf(FlightRuntimeException.class)
            .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
            .hasMessageContaining("table changing does not exist");
      }
    } finally {
      dfs.delete(changing, false);
      dfs.delete(staged, false);
    }
    assertThat(both("SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1993-01-01'")).hasSize(1);
  }
}
