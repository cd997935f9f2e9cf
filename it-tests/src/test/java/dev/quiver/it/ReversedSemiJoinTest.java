package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A semi or anti join whose subquery side is large (the sample's 600,000 lineitem rows) and whose outer side is small
 * hashes the outer rows instead ({@code reversed=1} in EXPLAIN ANALYZE) and looks each subquery key up in them; where
 * the outer side is large too it joins as before. Every answer equals DuckDB's over the same files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReversedSemiJoinTest {
  TestServer server;
  Connection jdbc;
  Connection duck;

  @BeforeAll
  void start() throws Exception {
    Path data = SampleData.ensure();
    server = TestServer.start(data);
    jdbc = server.jdbc();
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      for (String t : List.of("lineitem", "orders")) {
        s.execute("CREATE VIEW " + t + " AS SELECT * FROM '" + data.resolve(t + ".parquet") + "'");
      }
    }
  }

  @AfterAll
  void stop() throws Exception {
    jdbc.close();
    duck.close();
    server.close();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "SELECT count(*), sum(o_totalprice) FROM orders WHERE o_custkey < 200 AND o_orderkey IN "
          + "(SELECT l_orderkey FROM lineitem WHERE l_quantity > 10)|true",
      "SELECT count(*), sum(o_totalprice) FROM orders WHERE o_custkey < 200 AND NOT EXISTS "
          + "(SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND l_quantity > 5)|true",
      // an outer key that is NULL: never matched, kept by NOT EXISTS, dropped by IN
      "SELECT count(*), count(k) FROM (SELECT CASE WHEN o_orderkey % 7 = 0 THEN NULL ELSE o_orderkey END AS k "
          + "FROM orders WHERE o_custkey < 300) o WHERE NOT EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o.k)|true",
      "SELECT count(*), count(k) FROM (SELECT CASE WHEN o_orderkey % 7 = 0 THEN NULL ELSE o_orderkey END AS k "
          + "FROM orders WHERE o_custkey < 300) o WHERE k IN (SELECT l_orderkey FROM lineitem)|true",
      // both sides large: the usual way round
      "SELECT count(*), sum(o_totalprice) FROM orders WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem "
          + "WHERE l_quantity > 10)|false"})
  void answersEqualDuckDb(String sql, boolean reversed) throws Exception {
    List<String> plan = TestServer.explain(jdbc, "EXPLAIN ANALYZE " + sql);
    assertThat(plan).as(String.join("\n", plan))
        .anyMatch(l -> l.contains("HashJoinExec: type=") && l.contains(" build_rows=") && (l.contains(" reversed=1 ") == reversed));
    assertThat(JoinPruningTest.sorted(TestServer.rows(jdbc, sql)))
        .isEqualTo(JoinPruningTest.sorted(TestServer.rows(duck, sql)));
  }
}
