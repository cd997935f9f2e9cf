package dev.quiver.spark;

import dev.quiver.server.QuiverServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: part (c) of {@code bench scaleout} — Spark SQL {@code local[2]} over Quiver (two in-process replicas,
 * each the other's peer; the connector's {@code maxEndpoints} 1, 2, 4 = Spark partitions) vs Spark's own Parquet
 * reader on the same files (the pruning benchmark's SF-1 layouts in java.io.tmpdir, written by {@code bench pruning}
 * or {@code bench scaleout}), each scan written to Spark's {@code noop} sink (every row produced, nothing collected).
 * Writes {@code scaleout-spark.md}, which {@code bench scaleout} appends to {@code scaleout.md}:
 * {@code mvn -B -o -pl spark -am test -Dtest=ScaleOutSparkMeasure -Dquiver.measure=true
 * -Dsurefire.failIfNoSpecifiedTests=false [-Dquiver.scaleout.runs=3] [-Dquiver.scaleout.out=../bench/results]}.
 */
@EnabledIfSystemProperty(named = "quiver.measure", matches = "true")
class ScaleOutSparkMeasure {
  record Scan(String name, String table, String sql) {}

  static final List<Scan> SCANS = List.of(
      new Scan("selective (one month, shipdate layout)", "lineitem_shipdate", "SELECT l_orderkey, l_partkey, l_quantity, "
          + "l_extendedprice, l_discount, l_shipdate FROM %s WHERE l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01'"),
      new Scan("wide (l_quantity < 10, natural layout)", "lineitem_natural", "SELECT l_orderkey, l_partkey, l_suppkey, "
          + "l_quantity, l_extendedprice, l_discount, l_shipdate, l_shipmode FROM %s WHERE l_quantity < 10"));

  @Test
  void sparkOverQuiverVsSparkParquet() throws Exception {
    String sf = System.getProperty("quiver.scaleout.sf", "1.0");
    int runs = Integer.getInteger("quiver.scaleout.runs", 3);
    int warmUp = Integer.getInteger("quiver.scaleout.warmup", 2);
    Path out = Path.of(System.getProperty("quiver.scaleout.out", "../bench/results"));
    Path data = Path.of(System.getProperty("java.io.tmpdir"), "quiver-pruning-sf" + sf);
    for (Scan s : SCANS) {
      if (!Files.exists(data.resolve(s.table() + ".parquet"))) {
        throw new IllegalStateException(data.resolve(s.table() + ".parquet") + " is missing: run `bench scaleout --sf " + sf + "` first");
      }
    }
    byte[] secret = "scaleout-spark-secret".getBytes(StandardCharsets.UTF_8);
    StringBuilder md = new StringBuilder("## (c) Spark SQL over Quiver vs Spark's Parquet reader\n\n");
    md.append("Spark ").append(org.apache.spark.package$.MODULE$.SPARK_VERSION()).append(" `local[2]`, one JVM with two Quiver ")
        .append("replicas on loopback (each the other's peer); `Spark over Quiver, K endpoints` = the catalog ")
        .append("`quiver.main.<table>` with `maxEndpoints` K (K Spark partitions, alternately at each replica); `Spark Parquet` = ")
        .append("`spark.read.parquet` on the same file. Each scan is written to Spark's `noop` sink (all rows produced, none ")
        .append("collected). ").append(warmUp).append(" warm-up runs, then ").append(runs).append(" runs, median / min ms. ")
        .append("Row groups / MB read on the Quiver side: the pushed scan's EXPLAIN ANALYZE on a replica (column `Quiver RG read`, ")
        .append("`Quiver MB`); Spark's side: `Spark input MB` = the tasks' input metrics (Spark's ")
        .append("count of Hadoop file-system bytes; it visibly undercounts the vectorized Parquet reader here, shown as reported; over ")
        .append("Quiver it is 0, the bytes come over Flight); `JVM read MB` = the growth of this JVM's `rchar` (/proc/self/io: ")
        .append("bytes returned by read calls, page cache included) over one run, median — Spark's Parquet reader, or the ")
        .append("in-process Quiver replicas. Spark reports no row-group count.\n\n")
        .append("Command: `mvn -B -o -pl spark -am test -Dtest=ScaleOutSparkMeasure -Dquiver.measure=true ")
        .append("-Dsurefire.failIfNoSpecifiedTests=false -Dquiver.scaleout.runs=").append(runs).append(" -Dquiver.scaleout.warmup=").append(warmUp).append("`\n\n")
        .append("| scan | reader | ms (median / min) | vs Spark Parquet | vs Spark over Quiver 1 endpoint | Quiver RG read of total | Quiver MB | Spark input MB | JVM read MB | rows |\n")
        .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    try (QuiverServer a = QuiverServer.start(data.toString(), "127.0.0.1", 0, 3L << 30);
        QuiverServer b = QuiverServer.start(data.toString(), "127.0.0.1", 0, 3L << 30)) {
      a.scaleOut(new QuiverServer.ScaleOut(1, List.of(b.location()), null, secret));
      b.scaleOut(new QuiverServer.ScaleOut(1, List.of(a.location()), null, secret));
      String url = "grpc://127.0.0.1:" + a.port();
      SparkSession.Builder builder = SparkSession.builder().master("local[2]").appName("quiver-scaleout")
          .config("spark.ui.enabled", "false")
          .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.shuffle.partitions", "2").config("spark.sql.adaptive.enabled", "false");
      for (int k : new int[] {1, 2, 4}) {
        builder.config("spark.sql.catalog.quiver" + k, QuiverCatalog.class.getName())
            .config("spark.sql.catalog.quiver" + k + ".url", url)
            .config("spark.sql.catalog.quiver" + k + ".maxEndpoints", String.valueOf(k));
      }
      SparkSession spark = builder.getOrCreate();
      AtomicLong bytes = new AtomicLong();
      AtomicLong records = new AtomicLong();
      spark.sparkContext().addSparkListener(new SparkListener() {
        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
          if (end.taskMetrics() == null) return;
          bytes.addAndGet(end.taskMetrics().inputMetrics().bytesRead());
          records.addAndGet(end.taskMetrics().inputMetrics().recordsRead());
        }
      });
      try (Connection jdbc = DriverManager.getConnection(a.jdbcUrl())) {
        for (Scan s : SCANS) {
          spark.read().parquet(data.resolve(s.table() + ".parquet").toString()).createOrReplaceTempView("pq_" + s.table());
          Map<String, Long> m = metrics(jdbc, String.format(Locale.ROOT, s.sql(), s.table()));
          long rows;
          try (Statement st = jdbc.createStatement();
              ResultSet rs = st.executeQuery("SELECT count(*) FROM (" + String.format(Locale.ROOT, s.sql(), s.table()) + ") t")) {
            rs.next();
            rows = rs.getLong(1);
          }
          String rg = (m.getOrDefault("row_groups_total", 0L) - m.getOrDefault("row_groups_pruned", 0L)) + " of "
              + m.getOrDefault("row_groups_total", 0L);
          Map<String, String> readers = new LinkedHashMap<>();
          readers.put("Spark Parquet", "pq_" + s.table());
          for (int k : new int[] {1, 2, 4}) readers.put("Spark over Quiver, " + k + " endpoint" + (k == 1 ? "" : "s"), "quiver" + k + ".main." + s.table());
          Map<String, double[]> times = new LinkedHashMap<>();
          Map<String, Long> input = new LinkedHashMap<>();
          Map<String, Long> rchar = new LinkedHashMap<>();
          for (Map.Entry<String, String> r : readers.entrySet()) {
            String sql = String.format(Locale.ROOT, s.sql(), r.getValue());
            for (int i = 0; i < warmUp; i++) spark.sql(sql).write().format("noop").mode("overwrite").save();
            double[] ms = new double[runs];
            long[] io = new long[runs];
            for (int i = 0; i < runs; i++) {
              spark.sparkContext().listenerBus().waitUntilEmpty();
              bytes.set(0);
              records.set(0);
              long r0 = rchar();
              long t0 = System.nanoTime();
              spark.sql(sql).write().format("noop").mode("overwrite").save();
              ms[i] = (System.nanoTime() - t0) / 1e6;
              io[i] = rchar() - r0;
            }
            spark.sparkContext().listenerBus().waitUntilEmpty();
            Arrays.sort(ms);
            Arrays.sort(io);
            rchar.put(r.getKey(), io[runs / 2]);
            times.put(r.getKey(), ms);
            input.put(r.getKey(), bytes.get());
            System.out.printf(Locale.ROOT, "MEASURE %-40s %-32s median %8.1f ms  min %8.1f ms  input %.1f MB  rchar %.1f MB%n", s.name(),
                r.getKey(), ms[ms.length / 2], ms[0], bytes.get() / 1e6, io[runs / 2] / 1e6);
          }
          double pq = times.get("Spark Parquet")[runs / 2];
          double q1 = times.get("Spark over Quiver, 1 endpoint")[runs / 2];
          for (Map.Entry<String, double[]> t : times.entrySet()) {
            boolean quiver = !t.getKey().equals("Spark Parquet");
            double med = t.getValue()[runs / 2];
            md.append(String.format(Locale.ROOT, "| %s | %s | %.1f / %.1f | %.2f× | %s | %s | %s | %.1f | %.1f | %d |%n", s.name(), t.getKey(),
                med, t.getValue()[0], med / pq, quiver ? String.format(Locale.ROOT, "%.2f×", med / q1) : "—",
                quiver ? rg : "—", quiver ? String.format(Locale.ROOT, "%.1f", m.getOrDefault("bytes_scanned", 0L) / 1e6) : "—",
                input.get(t.getKey()) / 1e6, rchar.get(t.getKey()) / 1e6, rows));
          }
        }
      } finally {
        spark.stop();
      }
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("scaleout-spark.md"), md.toString());
    System.out.println(md);
  }

  /** This process's bytes read by read system calls so far (/proc/self/io rchar), 0 where that file does not exist. */
  static long rchar() throws java.io.IOException {
    Path io = Path.of("/proc/self/io");
    if (!Files.exists(io)) return 0;
    for (String line : Files.readAllLines(io)) {
      if (line.startsWith("rchar:")) return Long.parseLong(line.substring(6).trim());
    }
    return 0;
  }

  static Map<String, Long> metrics(Connection c, String sql) throws Exception {
    Map<String, Long> m = new LinkedHashMap<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + sql)) {
      while (rs.next()) {
        String line = rs.getString(1);
        if (!line.contains("ParquetScanExec")) continue;
        Matcher matcher = Pattern.compile("(\\w+)=(\\d+)(?=\\s|$)").matcher(line);
        while (matcher.find()) m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
      }
    }
    return m;
  }
}
