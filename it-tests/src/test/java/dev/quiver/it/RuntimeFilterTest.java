package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Runtime filters: a hash join's build keys, once built, prune the probe side's Parquet scan (its own pruning level,
 * {@code row_groups_pruned_runtime}, and {@code runtime_filter=[…]} on the scan line of EXPLAIN ANALYZE). Over a fact
 * table sorted by its key (200,000 rows, 20 row groups, NULL keys in the last) and a small dimension, every answer
 * equals the same query with pruning off and DuckDB's over the same files; joins that must keep unmatched probe rows
 * (LEFT, ANTI) get no filter.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RuntimeFilterTest {
  @TempDir
  static Path dir;
  TestServer server;
  Connection on;
  Connection off;
  Connection duck;

  @BeforeAll
  void start() throws Exception {
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      s.execute("COPY (SELECT CASE WHEN i >= 198000 THEN NULL ELSE i END AS k, i % 97 AS v, i % 3 AS g FROM range(200000) t(i)"
          + " ORDER BY i) TO '" + dir.resolve("fact.parquet") + "' (FORMAT parquet, ROW_GROUP_SIZE 10240)");
      // 100 keys inside one row group of fact (50,000 .. 50,099), tagged 'x'; 100 spread over all of it, tagged 'y'
      s.execute("COPY (SELECT 50000 + i AS k, 'x' AS tag, i AS w FROM range(100) t(i) UNION ALL "
          + "SELECT i * 1999 AS k, 'y' AS tag, i AS w FROM range(100) t(i)) TO '" + dir.resolve("dim.parquet")
          + "' (FORMAT parquet)");
      s.execute("COPY (SELECT i AS g, 'g' || i AS name FROM range(3) t(i)) TO '" + dir.resolve("groups.parquet")
          + "' (FORMAT parquet)");
      for (String t : List.of("fact", "dim", "groups")) {
        s.execute("CREATE VIEW " + t + " AS SELECT * FROM '" + dir.resolve(t + ".parquet") + "'");
      }
    }
    server = TestServer.start(dir);
    on = server.jdbc();
    off = server.jdbcWithoutPruning();
  }

  @AfterAll
  void stop() throws Exception {
    on.close();
    off.close();
    duck.close();
    server.close();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      // inner join, the build keys in one row group of the fact table: 19 of 20 pruned by the runtime filter
      "SELECT count(*), sum(f.v) FROM fact f JOIN dim d ON f.k = d.k WHERE d.tag = 'x'|19",
      // a semi join (EXISTS) likewise
      "SELECT count(*), sum(v) FROM fact f WHERE EXISTS (SELECT 1 FROM dim d WHERE d.k = f.k AND d.tag = 'x')|19",
      // through another join on the probe side (the key flows from fact through fact JOIN groups)
      "SELECT g.name, count(*) FROM fact f JOIN groups g ON f.g = g.g JOIN dim d ON f.k = d.k WHERE d.tag = 'x' GROUP BY g.name|19",
      // through a projection that renames the key
      "SELECT count(*) FROM (SELECT k AS key, v FROM fact) f JOIN dim d ON f.key = d.k WHERE d.tag = 'x'|19",
      // keys spread over the whole table: the set prunes nothing (every row group holds some), the answer is right
      "SELECT count(*), sum(f.v) FROM fact f JOIN dim d ON f.k = d.k WHERE d.tag = 'y'|0",
      // no build rows: every row group pruned
      "SELECT count(*) FROM fact f JOIN dim d ON f.k = d.k WHERE d.tag = 'none'|20",
      // a range once there are more than 1,024 distinct keys: fact's keys 100,000 .. 101,499 against itself
      "SELECT count(*) FROM fact f JOIN (SELECT k FROM fact WHERE k BETWEEN 100000 AND 101499) s ON f.k = s.k|19"})
  void buildKeysPruneTheProbeScan(String sql, int pruned) throws Exception {
    Map<String, Long> m = JoinPruningTest.scan(on, sql, "fact");
    assertThat(m).as(m.toString()).containsKey("row_groups_pruned_runtime");
    assertThat(m.get("row_groups_pruned_runtime")).as(m.toString()).isGreaterThanOrEqualTo((long) pruned);
    assertThat(m.get("row_groups_pruned")).as(m.toString()).isGreaterThanOrEqualTo(m.get("row_groups_pruned_runtime"));
    List<String> expected = JoinPruningTest.sorted(TestServer.rows(duck, sql));
    assertThat(JoinPruningTest.sorted(TestServer.rows(on, sql))).isEqualTo(expected);
    assertThat(JoinPruningTest.sorted(TestServer.rows(off, sql))).isEqualTo(expected);
    assertThat(JoinPruningTest.scan(off, sql, "fact")).doesNotContainKey("row_groups_pruned_runtime");
    List<String> plan = TestServer.explain(on, "EXPLAIN ANALYZE " + sql);
    assertThat(plan).anyMatch(l -> l.contains("ParquetScanExec: table=fact ") && l.contains(" runtime_filter=["));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "SELECT count(*), count(d.k) FROM fact f LEFT JOIN dim d ON f.k = d.k AND d.tag = 'x'",
      "SELECT count(*) FROM fact f WHERE NOT EXISTS (SELECT 1 FROM dim d WHERE d.k = f.k AND d.tag = 'x')",
      "SELECT count(*) FROM fact f WHERE f.k NOT IN (SELECT k FROM dim WHERE tag = 'x')"})
  void joinsThatKeepUnmatchedProbeRowsGetNoFilter(String sql) throws Exception {
    Map<String, Long> m = JoinPruningTest.scan(on, sql, "fact");
    assertThat(m).as(m.toString()).doesNotContainKey("row_groups_pruned_runtime");
    assertThat(m.get("row_groups_pruned")).isZero();
    assertThat(JoinPruningTest.sorted(TestServer.rows(on, sql))).isEqualTo(JoinPruningTest.sorted(TestServer.rows(duck, sql)));
  }
}
