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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Range and inequality joins: a join with no equality but inequalities that bound a build-side value by probe-side
 * values sorts the build rows by that value and takes each probe row's candidates from the slice its bounds allow
 * ({@code sorted_by=…} in EXPLAIN, {@code candidates} far below the product). Over events sorted by id (200,000 rows,
 * duplicates, NULLs) and bands with NULL, crossed, duplicate and out-of-range bounds, every join type's answer equals
 * DuckDB's over the same files and the same query with pruning off; the bounds on a scanned column prune that scan
 * at run time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RangeJoinTest {
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
      s.execute("COPY (SELECT CASE WHEN i % 1000 = 7 THEN NULL ELSE i // 2 END AS id, (hash(i) % 1000)::INT AS qty, "
          + "CASE WHEN i % 777 = 5 THEN 'NaN'::DOUBLE ELSE (hash(i) % 1000) / 10.0 END AS price, "
          + "(DATE '2024-01-01' + (i / 1000)::INT) AS d FROM range(200000) t(i) ORDER BY i) TO '"
          + dir.resolve("events.parquet") + "' (FORMAT parquet, ROW_GROUP_SIZE 10240)");
      s.execute("COPY (SELECT * FROM (VALUES "
          + "(1, 100::BIGINT, 120::BIGINT, DATE '2024-01-03', DATE '2024-01-05', 1.5::DOUBLE, 2.5::DOUBLE), "
          + "(2, 110, 111, DATE '2024-02-01', DATE '2024-02-01', -0.0, 0.0), "
          + "(3, 500, 400, NULL, DATE '2024-03-01', 90.0, 'NaN'), "
          + "(4, NULL, 50, DATE '2024-06-01', NULL, NULL, 3.0), "
          + "(5, 99990, 99999, DATE '2024-07-01', DATE '2024-07-19', 50.0, 49.0), "
          + "(6, 110, 111, DATE '2023-12-01', DATE '2024-01-01', 99.8, 99.9), "
          + "(7, -5, 2, DATE '2025-01-01', DATE '2025-02-01', 'NaN', 'NaN'), "
          + "(8, 200000, 300000, DATE '2024-04-09', DATE '2024-04-10', -1.0, 0.1)) v(b, lo, hi, since, until, plo, phi)) TO '"
          + dir.resolve("bands.parquet") + "' (FORMAT parquet)");
      // 1,000 short intervals: [100 k, 100 k + 10]
      s.execute("COPY (SELECT i AS s, i * 100 AS lo, i * 100 + 10 AS hi FROM range(1000) t(i)) TO '"
          + dir.resolve("slots.parquet") + "' (FORMAT parquet)");
      for (String t : List.of("events", "bands", "slots")) {
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
  @ValueSource(strings = {
      "SELECT b.b, count(*), sum(e.qty) FROM events e JOIN bands b ON e.id BETWEEN b.lo AND b.hi GROUP BY b.b",
      "SELECT b.b, count(*), sum(e.qty) FROM bands b JOIN events e ON e.id BETWEEN b.lo AND b.hi GROUP BY b.b",
      "SELECT b.b, count(e.id), sum(e.qty) FROM bands b LEFT JOIN events e ON e.id BETWEEN b.lo AND b.hi GROUP BY b.b",
      "SELECT count(*), count(b.b), sum(e.qty) FROM events e LEFT JOIN bands b ON e.id BETWEEN b.lo AND b.hi",
      "SELECT b.b, count(e.id) FROM events e RIGHT JOIN bands b ON e.id BETWEEN b.lo AND b.hi GROUP BY b.b",
      "SELECT count(*), count(b.b), count(e.id) FROM events e FULL JOIN bands b ON e.id BETWEEN b.lo AND b.hi",
      // strict bounds, offsets on the sorted side, one bound only
      "SELECT b.b, count(*) FROM events e JOIN bands b ON e.id > b.lo + 3 AND e.id < b.hi - 1 GROUP BY b.b",
      "SELECT b.b, count(*) FROM events e JOIN bands b ON b.hi - 1 >= e.id AND 2 + b.lo <= e.id GROUP BY b.b",
      "SELECT b.b, count(*) FROM events e JOIN bands b ON e.id < b.lo AND e.id >= 99000 GROUP BY b.b",
      // dates, and an extra condition that is not a bound
      "SELECT b.b, count(*), sum(e.qty) FROM events e JOIN bands b ON e.d BETWEEN b.since AND b.until GROUP BY b.b",
      "SELECT b.b, count(*) FROM events e JOIN bands b ON e.id BETWEEN b.lo AND b.hi AND e.qty % 2 <> b.b % 2 GROUP BY b.b",
      // doubles: -0 and 0, NaN above every number, NULL and crossed bounds
      "SELECT b.b, count(*), sum(e.qty) FROM events e JOIN bands b ON e.price BETWEEN b.plo AND b.phi GROUP BY b.b",
      "SELECT b.b, count(*) FROM events e JOIN bands b ON e.price > b.plo AND e.price < b.phi GROUP BY b.b",
      // semi, anti
      "SELECT count(*), sum(qty) FROM events e WHERE EXISTS (SELECT 1 FROM bands b WHERE e.id BETWEEN b.lo AND b.hi)",
      "SELECT count(*), sum(qty) FROM events e WHERE NOT EXISTS (SELECT 1 FROM bands b WHERE e.id BETWEEN b.lo AND b.hi)",
      // the subquery correlated by a range that once ran for minutes: its domain joined by a band
      "SELECT count(*) FROM events e1 WHERE e1.id < 3000 AND qty > ALL "
          + "(SELECT qty FROM events e2 WHERE e2.id BETWEEN e1.id + 1 AND e1.id + 3)",
      "SELECT count(*), sum(e1.qty) FROM events e1 WHERE e1.id BETWEEN 5000 AND 6000 AND e1.qty < "
          + "(SELECT avg(qty) FROM events e2 WHERE e2.id > e1.id - 10 AND e2.id <= e1.id)"})
  void answersEqualDuckDbAndPruningOff(String sql) throws Exception {
    List<String> expected = JoinPruningTest.sorted(TestServer.rows(duck, sql));
    assertThat(JoinPruningTest.sorted(TestServer.rows(on, sql))).isEqualTo(expected);
    assertThat(JoinPruningTest.sorted(TestServer.rows(off, sql))).isEqualTo(expected);
    List<String> plan = TestServer.explain(on, "EXPLAIN ANALYZE " + sql);
    assertThat(plan).as(String.join("\n", plan)).anyMatch(l -> l.contains("HashJoinExec:") && l.contains(" sorted_by="));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      // a value bounded from both sides by the other side's (each side's id bounds the other's)
      "SELECT count(*) FROM events e1 JOIN events e2 ON e2.id BETWEEN e1.id - 2 AND e1.id + 2 WHERE e1.qty < 10",
      // the build side's intervals, of length at most 10: the slice is the intervals that start at most 10 before
      "SELECT count(*) FROM events e JOIN slots s ON e.id BETWEEN s.lo AND s.hi"})
  void candidatesAreTheRangesNotTheProduct(String sql) throws Exception {
    String join = TestServer.explain(on, "EXPLAIN ANALYZE " + sql).stream()
        .filter(l -> l.contains("HashJoinExec:")).findFirst().orElseThrow();
    long candidates = Long.parseLong(join.replaceAll(".* candidates=(\\d+).*", "$1"));
    long answer = ((Number) TestServer.rows(duck, sql).get(0).get(0)).longValue();
    assertThat(answer).isPositive();
    // each candidate a pair inside its range (or, for intervals, an interval starting within 10 before), never
    // the product (about 400 million and 200 million pairs)
    assertThat(candidates).as(join).isBetween(answer, 2 * answer);
    assertThat(JoinPruningTest.sorted(TestServer.rows(on, sql)))
        .isEqualTo(JoinPruningTest.sorted(TestServer.rows(duck, sql)));
  }

  @Test
  void boundsOnAScannedColumnPruneItAtRunTime() throws Exception {
    String sql = "SELECT count(*), sum(e.qty) FROM events e JOIN bands b ON e.id BETWEEN b.lo AND b.hi WHERE b.b = 1";
    Map<String, Long> m = JoinPruningTest.scan(on, sql, "events");
    // ids 100 .. 120 lie in the first of 20 row groups
    assertThat(m.get("row_groups_pruned_runtime")).as(m.toString()).isEqualTo(19L);
    assertThat(TestServer.explain(on, "EXPLAIN ANALYZE " + sql))
        .anyMatch(l -> l.contains("ParquetScanExec: table=events ") && l.contains("runtime_filter=[id >= 100 AND id <= 120]"));
    assertThat(JoinPruningTest.sorted(TestServer.rows(on, sql)))
        .isEqualTo(JoinPruningTest.sorted(TestServer.rows(duck, sql)));
  }
}
