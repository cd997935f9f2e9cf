package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Exact pushdown on the sample data: a conjunct the scan evaluates itself is not evaluated again above it
 * ({@code EXPLAIN} shows it in the scan's {@code exact=[…]}, and no filter), the answer equals DuckDB's on the
 * same file, with pruning on and off, and {@code rows_filtered_late} counts every row the scan read and dropped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExactPushdownTest {
  static final String QUERY = "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'";
  TestServer server;
  Connection jdbc;
  Path data;

  @BeforeAll
  void start() throws Exception {
    data = SampleData.ensure();
    server = TestServer.start(data);
    jdbc = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    jdbc.close();
    server.close();
  }

  private long duckDb(String where) throws Exception {
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      return TestServer.scalarLong(duck, "SELECT count(*) FROM read_parquet('" + data.resolve("lineitem.parquet")
          + "') WHERE " + where);
    }
  }

  @Test
  void theCountQueryFiltersOnlyInTheScan() throws Exception {
    List<String> plan = TestServer.explain(jdbc, "EXPLAIN " + QUERY);
    assertThat(plan).as(String.join("\n", plan)).noneMatch(l -> l.contains("Filter"));
    assertThat(plan).filteredOn(l -> l.contains("TableScan: lineitem")).singleElement().asString()
        .contains("projection=[]").contains("predicate=l_shipdate < DATE '1992-03-01'")
        .contains("exact=[l_shipdate < DATE '1992-03-01']");
    assertThat(plan).filteredOn(l -> l.contains("ParquetScanExec")).singleElement().asString()
        .contains("columns=[]").contains("exact=[l_shipdate < DATE '1992-03-01']");

    long expected = duckDb("l_shipdate < DATE '1992-03-01'");
    assertThat(expected).isPositive();
    assertThat(TestServer.scalarLong(jdbc, QUERY)).isEqualTo(expected);
    Map<String, Long> m = TestServer.scanMetrics(jdbc, QUERY);
    assertThat(m.get("row_groups_pruned")).isPositive();
    assertThat(m.get("rows_filtered_late")).isEqualTo(m.get("rows_scanned") - expected);

    try (Connection off = server.jdbc(); Statement s = off.createStatement()) {
      s.execute("SET quiver.scan.pruning = false");
      assertThat(TestServer.scalarLong(off, QUERY)).isEqualTo(expected);
      Map<String, Long> all = TestServer.scanMetrics(off, QUERY);
      assertThat(all.get("row_groups_pruned")).isZero();
      assertThat(all.get("rows_filtered_late")).isEqualTo(all.get("rows_scanned") - expected);
      assertThat(all.get("rows_scanned")).isEqualTo(duckDb("TRUE"));
    }
  }

  /** What the scan cannot evaluate stays above it (and shows as residual); the rest does not. */
  @Test
  void onlyTheUnsupportedConjunctStaysAbove() throws Exception {
    String q = "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01' AND l_quantity * 2 > 40";
    List<String> plan = TestServer.explain(jdbc, "EXPLAIN " + q);
    assertThat(plan).filteredOn(l -> l.contains("FilterExec")).singleElement().asString()
        .contains("l_quantity").doesNotContain("l_shipdate");
    assertThat(plan).filteredOn(l -> l.contains("ParquetScanExec")).singleElement().asString()
        .contains("exact=[l_shipdate < DATE '1992-03-01']").contains("residual=(l_quantity * 2) > 40");
    assertThat(TestServer.scalarLong(jdbc, q)).isEqualTo(duckDb("l_shipdate < DATE '1992-03-01' AND l_quantity * 2 > 40"));
  }
}
