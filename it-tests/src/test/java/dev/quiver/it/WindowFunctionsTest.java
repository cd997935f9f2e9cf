package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.SampleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Window functions through JDBC compared with DuckDB's answers on the same Parquet files: a generated table
 * {@code w} (partitions of different sizes and a NULL partition, ties and NULLs in the order key, NULL values,
 * BIGINT / DECIMAL / DOUBLE / VARCHAR / DATE / BOOLEAN columns) and the sample data's {@code orders}. Every
 * query's result is compared as a multiset (in order where it has an ORDER BY), DOUBLEs within 1e-9.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WindowFunctionsTest {
  @TempDir
  static Path dir;
  TestServer server;
  Connection quiver;
  Connection duck;

  @BeforeAll
  void start() throws Exception {
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      s.execute("CREATE TABLE w AS SELECT i AS id, "
          + "CASE WHEN i % 11 = 0 THEN NULL ELSE CAST(i % 7 AS INTEGER) END AS g, "
          + "CASE WHEN i % 13 = 0 THEN NULL ELSE CAST((i * 37) % 50 AS INTEGER) END AS o, "
          + "CASE WHEN i % 9 = 0 THEN NULL ELSE CAST((i * 7919) % 1000 - 500 AS BIGINT) END AS v, "
          + "CAST(((i * 31) % 997) / 8.0 AS DECIMAL(12,3)) AS dec, "
          + "CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 13) % 101) / 7.0 END AS d, "
          + "'name-' || (i % 5) AS s, "
          + "DATE '2020-01-01' + CAST(i % 40 AS INTEGER) AS dt, "
          + "i % 3 = 0 AS b "
          + "FROM range(0, 3000) r(i)");
      s.execute("COPY w TO '" + dir.resolve("w.parquet") + "' (FORMAT parquet, ROW_GROUP_SIZE 1000)");
      Path orders = SampleData.ensure().resolve("orders.parquet");
      Files.createSymbolicLink(dir.resolve("orders.parquet"), orders);
      s.execute("CREATE VIEW orders AS SELECT * FROM '" + orders + "'");
      s.execute("CREATE VIEW w_file AS SELECT * FROM '" + dir.resolve("w.parquet") + "'");
    }
    server = TestServer.start(dir);
    quiver = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    if (quiver != null) quiver.close();
    if (duck != null) duck.close();
    if (server != null) server.close();
  }

  static Stream<String> queries() {
    String p = "PARTITION BY g ORDER BY o, id";
    return Stream.of(
        // ranking
        "SELECT id, row_number() OVER (" + p + ") FROM w",
        "SELECT id, rank() OVER (PARTITION BY g ORDER BY o), dense_rank() OVER (PARTITION BY g ORDER BY o) FROM w",
        "SELECT id, percent_rank() OVER (PARTITION BY g ORDER BY o), cume_dist() OVER (PARTITION BY g ORDER BY o) FROM w",
        "SELECT id, rank() OVER (PARTITION BY g ORDER BY o DESC NULLS FIRST), dense_rank() OVER (ORDER BY s, o DESC) FROM w",
        "SELECT id, ntile(4) OVER (" + p + "), ntile(7) OVER (ORDER BY id), ntile(5000) OVER (ORDER BY id) FROM w",
        "SELECT id, row_number() OVER (ORDER BY d DESC NULLS LAST, id) FROM w",
        // lag / lead
        "SELECT id, lag(v) OVER (" + p + "), lead(v) OVER (" + p + ") FROM w",
        "SELECT id, lag(v, 3, 0) OVER (" + p + "), lead(dec, 2, -1) OVER (" + p + "), lag(s, 1, 'none') OVER (" + p + ") FROM w",
        "SELECT id, lead(dt, 1) OVER (PARTITION BY s ORDER BY id), lag(b, 2) OVER (PARTITION BY s ORDER BY id) FROM w",
        // value functions
        "SELECT id, first_value(v) OVER (" + p + "), last_value(v) OVER (" + p + "), nth_value(v, 3) OVER (" + p + ") FROM w",
        "SELECT id, first_value(s) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), "
            + "last_value(dt) OVER (PARTITION BY g ORDER BY o, id RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM w",
        "SELECT id, nth_value(d, 2) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 PRECEDING AND 3 FOLLOWING) FROM w",
        // aggregates: whole partition, running (default frame with ties), sliding
        "SELECT id, count(*) OVER (PARTITION BY g), count(v) OVER (PARTITION BY g), sum(v) OVER (PARTITION BY g), "
            + "avg(v) OVER (PARTITION BY g), min(v) OVER (PARTITION BY g), max(s) OVER (PARTITION BY g) FROM w",
        "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o), count(*) OVER (PARTITION BY g ORDER BY o), "
            + "avg(d) OVER (PARTITION BY g ORDER BY o) FROM w",
        "SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW), "
            + "avg(v) OVER (ORDER BY id ROWS BETWEEN 10 PRECEDING AND 10 FOLLOWING) FROM w",
        "SELECT id, sum(dec) OVER (" + p + " ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING), "
            + "avg(dec) OVER (" + p + " ROWS BETWEEN 1 FOLLOWING AND 4 FOLLOWING) FROM w",
        "SELECT id, sum(d) OVER (" + p + " ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING), "
            + "count(d) OVER (" + p + " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM w",
        "SELECT id, min(v) OVER (" + p + " ROWS BETWEEN 4 PRECEDING AND 2 FOLLOWING), "
            + "max(v) OVER (" + p + " ROWS BETWEEN 4 PRECEDING AND 2 FOLLOWING), min(s) OVER (" + p + " ROWS 3 PRECEDING) FROM w",
        "SELECT id, max(dt) OVER (PARTITION BY s ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 5 FOLLOWING), "
            + "min(dec) OVER (PARTITION BY s ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) FROM w",
        "SELECT id, bool_and(b) OVER (" + p + " ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), "
            + "bool_or(b) OVER (PARTITION BY g ORDER BY o) FROM w",
        "SELECT id, stddev_samp(v) OVER (" + p + " ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING), "
            + "var_pop(d) OVER (PARTITION BY g ORDER BY o) FROM w",
        "SELECT id, count(DISTINCT o) OVER (PARTITION BY g), sum(DISTINCT v) OVER (PARTITION BY s) FROM w",
        // RANGE with offsets (ties and NULLs in the key), GROUPS, EXCLUDE
        "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 3 PRECEDING AND 3 FOLLOWING), "
            + "count(*) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) FROM w",
        "SELECT id, count(*) OVER (PARTITION BY g ORDER BY o DESC RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING), "
            + "min(v) OVER (PARTITION BY g ORDER BY o DESC NULLS FIRST RANGE BETWEEN CURRENT ROW AND 4 FOLLOWING) FROM w",
        "SELECT id, sum(v) OVER (PARTITION BY s ORDER BY d RANGE BETWEEN 0.5 PRECEDING AND 0.5 FOLLOWING) FROM w",
        "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY dec RANGE BETWEEN 10 PRECEDING AND 2.5 FOLLOWING) FROM w",
        "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 2 PRECEDING AND 1 FOLLOWING), "
            + "count(*) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) FROM w",
        "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW), "
            + "count(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE GROUP) FROM w",
        "SELECT id, max(v) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES), "
            + "first_value(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING EXCLUDE TIES) FROM w",
        // with GROUP BY, QUALIFY, named windows, filters, ORDER BY and LIMIT, empty input
        "SELECT g, sum(v), sum(sum(v)) OVER (ORDER BY g), rank() OVER (ORDER BY count(*) DESC, g) FROM w GROUP BY g",
        "SELECT s, dt, count(*), avg(count(*)) OVER (PARTITION BY s ORDER BY dt ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) "
            + "FROM w GROUP BY s, dt",
        "SELECT id, g, v FROM w QUALIFY row_number() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST, id) <= 2",
        "SELECT id, sum(v) OVER x, max(v) OVER x, row_number() OVER x FROM w WINDOW x AS (PARTITION BY s ORDER BY id)",
        "SELECT id, r FROM (SELECT id, g, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM w) t WHERE g = 3 AND r < 10",
        "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY id) AS s FROM w WHERE o > 25 ORDER BY s DESC, id LIMIT 20",
        "SELECT id, row_number() OVER (ORDER BY id), sum(v) OVER () FROM w WHERE g = 99",
        "SELECT DISTINCT g, count(*) OVER (PARTITION BY g) FROM w",
        // the sample data
        "SELECT o_orderkey, rank() OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC) FROM orders",
        "SELECT o_orderkey, sum(o_totalprice) OVER (PARTITION BY o_orderpriority ORDER BY o_orderdate, o_orderkey "
            + "ROWS BETWEEN 100 PRECEDING AND CURRENT ROW) FROM orders",
        "SELECT o_orderdate, count(*) OVER (ORDER BY o_orderdate RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders "
            + "WHERE o_orderkey < 2000");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void matchesDuckDb(String sql) throws SQLException {
    ResultComparison.Result expected = ResultComparison.fetch(duck, sql.replace(" FROM w", " FROM w_file"));
    ResultComparison.Result actual = ResultComparison.fetch(quiver, sql);
    ResultComparison.assertSameResults(sql, expected, actual);
  }

  @Test
  void explainShowsTheWindow() throws SQLException {
    List<String> plan = TestServer.explain(quiver, "EXPLAIN SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) FROM w");
    assertThat(String.join("\n", plan)).contains("Window: row_number() OVER (PARTITION BY g ORDER BY id ASC NULLS LAST)")
        .contains("WindowExec: row_number()");
  }

  @Test
  void aStatementTimeoutStopsAWindowThatWouldRunForMinutes() throws Exception {
    // a frame with EXCLUDE is recomputed per row: 150,000 rows x 300,000-row frames
    String sql = "SELECT count(*), sum(x) FROM (SELECT stddev_samp(o_totalprice) OVER (ORDER BY o_orderkey "
        + "ROWS BETWEEN 150000 PRECEDING AND 150000 FOLLOWING EXCLUDE CURRENT ROW) AS x FROM orders) t";
    try (Connection c = server.jdbc(); Statement st = c.createStatement()) {
      st.execute("SET quiver.statement_timeout_ms = 2000");
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> TestServer.rows(c, sql)).isInstanceOf(SQLException.class)
          .hasMessageContaining("statement timeout of 2000 ms");
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(20_000);
    }
  }

  @Test
  void overTheMemoryLimitSpillsByPartitionOrFailsClearly() throws Exception {
    // the window holds all of lineitem (600,000 rows at the sample's scale) over a 16 MiB query limit: with a
    // PARTITION BY it spills by partition and answers as in memory
    String partitioned = "SELECT count(*), sum(x) FROM (SELECT sum(l_quantity) OVER (PARTITION BY l_suppkey ORDER BY "
        + "l_shipdate, l_orderkey, l_linenumber) AS x FROM lineitem) t";
    List<List<Object>> inMemory;
    try (TestServer large = TestServer.start(SampleData.ensure(), 1L << 30); Connection c = large.jdbc()) {
      inMemory = TestServer.rows(c, partitioned);
    }
    try (TestServer small = TestServer.start(SampleData.ensure(), 16L << 20); Connection c = small.jdbc()) {
      assertThat(TestServer.rows(c, partitioned)).isEqualTo(inMemory);
      String plan = String.join("\n", TestServer.rows(c, "EXPLAIN ANALYZE " + partitioned).stream()
          .map(r -> String.valueOf(r.get(0))).toList());
      assertThat(plan).containsPattern("WindowExec: .*spilled_bytes=[1-9]");
      // without one, it cannot be split: RESOURCE_EXHAUSTED
      assertThatThrownBy(() -> TestServer.rows(c, "SELECT l_orderkey, sum(l_quantity) OVER (ORDER BY l_shipdate) "
          + "FROM lineitem"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(MemoryLimitTest.status((SQLException) e)).startsWith("RESOURCE_EXHAUSTED: ")
              .contains("memory"));
      // the server still answers
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM nation")).isEqualTo(25);
    }
  }
}
