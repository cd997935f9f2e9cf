package dev.quiver.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Spark {@code local[2]} reading a real Quiver server (on loopback, over the sample data) through the connector,
 * both as the {@code quiver} format (DataFrame API) and through the catalog ({@code quiver.main.lineitem}); answers
 * compared with DuckDB's over the same Parquet files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuiverSparkTest {
  static final List<String> TABLES = List.of("lineitem", "orders", "customer", "events");
  Path data;
  QuiverServer server;
  /** A second replica of the same data, {@code server}'s peer (and it its peer). */
  QuiverServer peer;
  String url;
  SparkSession spark;
  Connection duck;
  Connection quiverJdbc;

  @BeforeAll
  void start() throws Exception {
    data = SampleData.ensure();
    server = QuiverServer.start(data.toString(), "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY);
    peer = QuiverServer.start(data.toString(), "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY);
    byte[] secret = "spark-test-secret".getBytes(StandardCharsets.UTF_8);
    server.scaleOut(new QuiverServer.ScaleOut(1, List.of(peer.location()), null, secret));
    peer.scaleOut(new QuiverServer.ScaleOut(1, List.of(server.location()), null, secret));
    url = "grpc://127.0.0.1:" + server.port();
    spark = SparkSession.builder().master("local[2]").appName("quiver-spark-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.catalog.quiver", QuiverCatalog.class.getName())
        .config("spark.sql.catalog.quiver.url", url)
        .getOrCreate();
    for (String t : TABLES) {
      spark.read().format("quiver").option("url", url).option("table", t).load().createOrReplaceTempView("df_" + t);
    }
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      for (String t : TABLES) {
        s.execute("CREATE VIEW " + t + " AS SELECT * FROM read_parquet('"
            + data.resolve(t + ".parquet").toAbsolutePath().toString().replace("'", "''") + "')");
      }
    }
    quiverJdbc = DriverManager.getConnection(server.jdbcUrl());
  }

  @AfterAll
  void stop() throws Exception {
    if (spark != null) spark.stop();
    if (duck != null) duck.close();
    if (quiverJdbc != null) quiverJdbc.close();
    if (server != null) server.close();
    if (peer != null) peer.close();
  }

  static String tpch(String name) throws IOException {
    try (InputStream in = SampleData.class.getResourceAsStream("/tpch/" + name + ".sql")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** {@code sql} over the catalog's tables ({@code quiver.main.t}) or the format's temp views ({@code df_t}). */
  static String over(String sql, boolean catalog) {
    String out = sql;
    for (String t : TABLES) out = out.replaceAll("\\b" + t + "\\b", catalog ? "quiver.main." + t : "df_" + t);
    return out;
  }

  static List<List<Object>> rows(Dataset<Row> df) {
    List<List<Object>> out = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      List<Object> row = new ArrayList<>();
      for (int i = 0; i < r.length(); i++) row.add(normalize(r.get(i)));
      out.add(row);
    }
    return out;
  }

  List<List<Object>> duck(String sql) throws SQLException {
    try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<List<Object>> out = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) row.add(normalize(rs.getObject(i)));
        out.add(row);
      }
      return out;
    }
  }

  /** Numbers as BigDecimal rounded to 6 significant places after the point, dates as text. */
  static Object normalize(Object v) {
    if (v instanceof Double d && (d.isNaN() || d.isInfinite())) return d.toString();
    if (v instanceof Float f && (f.isNaN() || f.isInfinite())) return f.toString();
    if (v instanceof Number n) {
      BigDecimal d = n instanceof BigDecimal b ? b : new BigDecimal(n.toString());
      return d.setScale(4, java.math.RoundingMode.HALF_UP);
    }
    if (v instanceof java.sql.Timestamp t) return t.toInstant().toString();
    if (v instanceof java.time.OffsetDateTime t) return t.toInstant().toString();
    return v == null ? null : v.toString();
  }

  /** The Quiver scans of an executed query: their SQL and their partition counts. */
  static List<BatchScanExec> scans(Dataset<Row> df) {
    List<BatchScanExec> out = new ArrayList<>();
    SparkPlan plan = df.queryExecution().executedPlan();
    collect(plan, out);
    return out;
  }

  private static void collect(SparkPlan p, List<BatchScanExec> out) {
    if (p instanceof BatchScanExec b && b.scan() instanceof QuiverScan) out.add(b);
    scala.collection.Iterator<SparkPlan> it = p.children().iterator();
    while (it.hasNext()) collect(it.next(), out);
  }

  static String sqlOf(BatchScanExec b) {
    return ((QuiverScan) b.scan()).sql();
  }

  void assertSameAsDuckDb(String name) throws Exception {
    String q = tpch(name);
    List<List<Object>> expected = duck(q);
    assertThat(expected).isNotEmpty();
    for (boolean catalog : new boolean[] {true, false}) {
      Dataset<Row> df = spark.sql(over(q, catalog));
      assertThat(rows(df)).as(name + (catalog ? " via the catalog" : " via the format")).isEqualTo(expected);
      assertThat(scans(df)).isNotEmpty();
    }
  }

  @Test
  void tpchQ1() throws Exception {
    assertSameAsDuckDb("q01");
  }

  @Test
  void tpchQ6() throws Exception {
    assertSameAsDuckDb("q06");
  }

  @Test
  void tpchQ3JoinsThreeQuiverTables() throws Exception {
    assertSameAsDuckDb("q03");
  }

  /** The {@code key=value} metrics of the ParquetScanExec line of Quiver's EXPLAIN ANALYZE of {@code sql}. */
  Map<String, Long> scanMetrics(String sql) throws SQLException {
    return scanMetrics(quiverJdbc, sql);
  }

  static Map<String, Long> scanMetrics(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + sql)) {
      while (rs.next()) {
        String line = rs.getString(1);
        if (!line.contains("ParquetScanExec")) continue;
        Map<String, Long> m = new LinkedHashMap<>();
        Matcher matcher = Pattern.compile("(\\w+)=(\\d+)(?=\\s|$)").matcher(line);
        while (matcher.find()) m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        return m;
      }
    }
    throw new AssertionError("no ParquetScanExec line in EXPLAIN ANALYZE " + sql);
  }

  @Test
  void q6FiltersArePushedAndPruneRowGroups() throws Exception {
    Dataset<Row> df = spark.sql(over(tpch("q06"), true));
    List<BatchScanExec> scans = scans(df);
    assertThat(scans).hasSize(1);
    String sql = sqlOf(scans.get(0));
    assertThat(sql).contains("\"l_shipdate\" >= DATE '1994-01-01'").contains("\"l_shipdate\" < DATE '1995-01-01'")
        .contains("\"l_quantity\" < 24.00").contains("SUM(");
    assertThat(scans.get(0).toString()).contains(sql);
    Map<String, Long> m = scanMetrics(sql);
    assertThat(m.get("row_groups_pruned")).as(m.toString()).isPositive();
  }

  @Test
  void aggregatesArePushedWhenTheWholeAggregationRenders() throws Exception {
    String q = "SELECT l_returnflag, count(*), sum(l_quantity), min(l_shipdate), max(l_extendedprice) FROM lineitem "
        + "WHERE l_shipdate < DATE '1995-01-01' GROUP BY l_returnflag ORDER BY l_returnflag";
    Dataset<Row> df = spark.sql(over(q, true));
    assertThat(rows(df)).isEqualTo(duck(q));
    String sql = sqlOf(scans(df).get(0));
    assertThat(sql).contains("COUNT(*)").contains("SUM(\"l_quantity\")").contains("GROUP BY \"l_returnflag\"");
  }

  @Test
  void aFilterSparkCannotRenderStaysInSpark() throws Exception {
    String q = "SELECT count(*), sum(l_quantity) FROM lineitem WHERE upper(l_shipmode) = 'MAIL' AND l_quantity < 10";
    Dataset<Row> df = spark.sql(over(q, false));
    assertThat(rows(df)).isEqualTo(duck(q));
    String sql = sqlOf(scans(df).get(0));
    assertThat(sql).contains("\"l_quantity\" < 10").doesNotContainIgnoringCase("upper").doesNotContain("COUNT");
  }

  @Test
  void limitAndColumnsArePushed() {
    Dataset<Row> df = spark.sql("SELECT l_orderkey, l_comment FROM quiver.main.lineitem LIMIT 7");
    assertThat(df.collectAsList()).hasSize(7);
    String sql = sqlOf(scans(df).get(0));
    assertThat(sql).isEqualTo("SELECT \"l_orderkey\", \"l_comment\" FROM \"lineitem\" LIMIT 7");
  }

  @Test
  void theCatalogListsQuiverTables() {
    List<String> names = new ArrayList<>();
    for (Row r : spark.sql("SHOW TABLES IN quiver.main").collectAsList()) names.add(r.getString(1));
    assertThat(names).contains("lineitem", "orders", "customer", "nation");
  }

  @Test
  void fourEndpointsAcrossTwoReplicasAreFourSparkPartitions() throws Exception {
    spark.read().format("quiver").option("url", url).option("table", "lineitem").option("maxEndpoints", "4").load()
        .createOrReplaceTempView("df4_lineitem");
    // upper(...) stays in Spark, so no aggregate is pushed: a scan/filter/project Quiver splits into fragments
    String q = "SELECT count(*), sum(l_quantity), min(l_orderkey) FROM lineitem"
        + " WHERE l_shipdate >= DATE '1993-01-01' AND upper(l_shipmode) <> 'NONE'";
    Dataset<Row> df = spark.sql(q.replace("FROM lineitem", "FROM df4_lineitem"));
    assertThat(rows(df)).isEqualTo(duck(q));
    BatchScanExec scan = scans(df).get(0);
    assertThat(scan.inputRDD().getNumPartitions()).isEqualTo(4);
    List<String> locations = new ArrayList<>();
    for (var p : ((QuiverScan) scan.scan()).planInputPartitions()) {
      locations.addAll(List.of(((QuiverPartition) p).locations()));
      assertThat(p.preferredLocations()).containsExactly("127.0.0.1");
    }
    assertThat(locations).contains(server.location().getUri().toString(), peer.location().getUri().toString());
    // a pushed aggregation stays one endpoint, so one partition, with maxEndpoints 4 as well
    String agg = "SELECT l_linestatus, count(*), sum(l_quantity) FROM lineitem WHERE l_shipdate >= DATE '1993-01-01'"
        + " GROUP BY l_linestatus ORDER BY l_linestatus";
    Dataset<Row> aggDf = spark.sql(agg.replace("FROM lineitem", "FROM df4_lineitem"));
    assertThat(rows(aggDf)).isEqualTo(duck(agg));
    assertThat(sqlOf(scans(aggDf).get(0))).contains("COUNT(*)");
    assertThat(scans(aggDf).get(0).inputRDD().getNumPartitions()).isEqualTo(1);
    // the pushed predicate prunes on the peer as well
    try (Connection c = DriverManager.getConnection(peer.jdbcUrl())) {
      Map<String, Long> m = scanMetrics(c, ((QuiverScan) scan.scan()).sql());
      assertThat(m.get("row_groups_pruned")).as(m.toString()).isPositive();
    }
  }

  @Test
  void credentialsArePassedAndABearerTokenReachesTheExecutors() throws Exception {
    try (QuiverServer secured = QuiverServer.start(dev.quiver.server.ServerConfig.of(data.toString(), "127.0.0.1", 0)
        .withUsers(dev.quiver.server.Users.none().with("alice", "s3cret")))) {
      String secureUrl = "grpc://127.0.0.1:" + secured.port();
      long n = spark.read().format("quiver").option("url", secureUrl).option("table", "orders")
          .option("user", "alice").option("password", "s3cret").load()
          .filter("o_orderdate < DATE '1993-01-01'").count();
      assertThat(n).isEqualTo(((Number) duck("SELECT count(*) FROM orders WHERE o_orderdate < DATE '1993-01-01'")
          .get(0).get(0)).longValue());
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> spark.read().format("quiver").option("url", secureUrl)
          .option("table", "orders").option("user", "alice").option("password", "wrong").load().count())
          .hasStackTraceContaining("UNAUTHENTICATED");
    }
  }

  @Test
  void everyTypeOfEventsReadsThroughArrowColumnVectors() throws Exception {
    // timestamp with time zone, nullable int/string/double/decimal, boolean, unsigned tinyint (cast), smallint
    String rowsQ = "SELECT * FROM events WHERE event_id < 300 AND event_time >= TIMESTAMP '2024-01-01 00:00:01+00:00'"
        + " ORDER BY event_id";
    List<List<Object>> expected = duck(rowsQ);
    assertThat(expected).hasSizeGreaterThan(100);
    Dataset<Row> df = spark.sql(over(rowsQ, true));
    assertThat(rows(df)).isEqualTo(expected);
    assertThat(sqlOf(scans(df).get(0))).contains("\"event_time\" >= TIMESTAMP '2024-01-01 00:00:01.000000+00:00'")
        .contains("CAST(\"retries\" AS SMALLINT)");
    String aggQ = "SELECT kind, count(*), count(country), sum(score), sum(amount), sum(retries), sum(latency_ms),"
        + " min(event_time), max(event_time), sum(CASE WHEN is_mobile THEN 1 ELSE 0 END) FROM events"
        + " WHERE country IN ('DE', 'FR') AND score > 0.25 AND user_id IS NOT NULL GROUP BY kind ORDER BY kind";
    assertThat(rows(spark.sql(over(aggQ, false)))).isEqualTo(duck(aggQ));
  }

  @Test
  void tpchQ6ThroughTheDataFrameApi() throws Exception {
    org.apache.spark.sql.Column price = org.apache.spark.sql.functions.col("l_extendedprice");
    org.apache.spark.sql.Column discount = org.apache.spark.sql.functions.col("l_discount");
    Dataset<Row> df = spark.read().format("quiver").option("url", url).option("table", "lineitem").load()
        .filter("l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'")
        .filter(discount.between(new BigDecimal("0.05"), new BigDecimal("0.07")))
        .filter(org.apache.spark.sql.functions.col("l_quantity").lt(24))
        .agg(org.apache.spark.sql.functions.sum(price.multiply(discount)));
    assertThat(rows(df)).isEqualTo(duck(tpch("q06")));
  }

  @Test
  void tlsWithTrustedCertificatesAndUsers(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create(dir);
    try (QuiverServer secured = QuiverServer.start(dev.quiver.server.ServerConfig.of(data.toString(), "127.0.0.1", 0)
        .withUsers(dev.quiver.server.Users.none().with("bob", "hunter2")).withTls(cert.cert(), cert.key()))) {
      String tlsUrl = "grpc+tls://127.0.0.1:" + secured.port();
      long n = spark.read().format("quiver").option("url", tlsUrl).option("table", "orders")
          .option("trustedCertificates", cert.cert().toString()).option("user", "bob").option("password", "hunter2")
          .load().filter("o_orderdate < DATE '1993-01-01'").count();
      assertThat(n).isEqualTo(((Number) duck("SELECT count(*) FROM orders WHERE o_orderdate < DATE '1993-01-01'")
          .get(0).get(0)).longValue());
      // without trusting the certificate the handshake fails
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> spark.read().format("quiver").option("url", tlsUrl)
          .option("table", "orders").option("user", "bob").option("password", "hunter2").load().count())
          .hasStackTraceContaining("UNAVAILABLE");
    }
  }

  @Test
  void onePartitionPerEndpoint() {
    Dataset<Row> df = spark.sql("SELECT l_orderkey FROM quiver.main.lineitem WHERE l_shipdate < DATE '1993-01-01'");
    BatchScanExec scan = scans(df).get(0);
    // the server keeps its default of one endpoint per query here (the maxEndpoints test asks for 4)
    assertThat(scan.inputRDD().getNumPartitions()).isEqualTo(1);
  }
}
