package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.planner.SpillDirectory;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Grace hash join: with a 48 MiB query memory limit, a join building on all of the sample's lineitem (600,000 rows)
 * spills both sides to 16 partitions under the spill directory and joins them one at a time; every join type's answer
 * equals DuckDB's over the same files, EXPLAIN ANALYZE shows the bytes spilled, and the directory is empty after
 * every query — answered, timed out or failed. A sort of all of lineitem spills sorted runs and merges them into
 * DuckDB's order; an aggregation of 600,000 groups spills them to 16 partitions and equals DuckDB's groups. A NOT IN (which needs the whole build side) still fails cleanly, and
 * an unusable spill directory is a clear RESOURCE_EXHAUSTED naming {@code --spill-dir}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpillTest {
  static final long LIMIT = 48L << 20;
  @TempDir
  static Path spillDir;
  Path before;
  TestServer server;
  Connection jdbc;
  Connection duck;

  @BeforeAll
  void start() throws Exception {
    before = SpillDirectory.get();
    SpillDirectory.set(spillDir);
    Path data = SampleData.ensure();
    server = TestServer.start(data, LIMIT);
    jdbc = server.jdbc();
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      for (String t : List.of("lineitem", "orders", "part")) {
        s.execute("CREATE VIEW " + t + " AS SELECT * FROM '" + data.resolve(t + ".parquet") + "'");
      }
    }
  }

  @AfterAll
  void stop() throws Exception {
    SpillDirectory.set(before);
    jdbc.close();
    duck.close();
    server.close();
  }

  @AfterEach
  void spillFilesAreGone() throws Exception {
    try (Stream<Path> left = Files.list(spillDir)) {
      assertThat(left).isEmpty();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "SELECT count(*), sum(b.l_quantity) FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey "
          + "AND a.l_linenumber = b.l_linenumber AND a.l_comment <> b.l_shipinstruct",
      "SELECT count(*), count(b.l_orderkey), sum(b.l_tax) FROM lineitem a LEFT JOIN lineitem b "
          + "ON a.l_orderkey = b.l_orderkey AND a.l_linenumber = b.l_linenumber + 1 AND b.l_comment > a.l_comment",
      "SELECT count(*), count(a.l_orderkey), count(b.l_orderkey) FROM lineitem a FULL JOIN lineitem b "
          + "ON a.l_orderkey = b.l_orderkey AND a.l_linenumber = b.l_linenumber + 2 AND b.l_comment < a.l_comment",
      "SELECT count(*), sum(a.l_quantity) FROM lineitem a WHERE EXISTS (SELECT 1 FROM lineitem b "
          + "WHERE b.l_orderkey = a.l_orderkey AND b.l_linenumber = a.l_linenumber + 1 AND b.l_comment > a.l_comment)",
      "SELECT count(*), sum(a.l_quantity) FROM lineitem a WHERE NOT EXISTS (SELECT 1 FROM lineitem b "
          + "WHERE b.l_orderkey = a.l_orderkey AND b.l_linenumber = a.l_linenumber + 1 AND b.l_comment > a.l_comment)",
      // a string key: NULL-free, with duplicates
      "SELECT count(*), sum(b.l_quantity) FROM lineitem a JOIN lineitem b ON a.l_comment = b.l_comment "
          + "AND a.l_orderkey = b.l_orderkey"})
  void aJoinOverTheLimitSpillsAndAnswersRight(String sql) throws Exception {
    List<String> plan = TestServer.explain(jdbc, "EXPLAIN ANALYZE " + sql);
    assertThat(plan).as(String.join("\n", plan)).anyMatch(l -> l.contains("HashJoinExec:")
        && l.matches(".* spilled_bytes=[1-9]\\d* spill_partitions=16 .*"));
    try (Stream<Path> left = Files.list(spillDir)) {
      assertThat(left).isEmpty();
    }
    assertThat(JoinPruningTest.sorted(TestServer.rows(jdbc, sql)))
        .isEqualTo(JoinPruningTest.sorted(TestServer.rows(duck, sql)));
  }

  /**
   * External sort: all of lineitem sorted under the 48 MiB limit writes sorted runs and merges them; the rows come in
   * DuckDB's order (the keys end in the unique (l_orderkey, l_linenumber), so the order is total).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "SELECT l_comment, l_orderkey, l_linenumber, l_partkey FROM lineitem ORDER BY l_comment DESC, l_orderkey, l_linenumber",
      "SELECT l_partkey, l_suppkey, l_orderkey, l_linenumber, l_shipinstruct FROM lineitem "
          + "ORDER BY l_partkey % 1000, l_shipinstruct, l_orderkey DESC, l_linenumber"})
  void aSortOverTheLimitSpillsRunsAndAnswersInOrder(String sql) throws Exception {
    List<String> plan = TestServer.explain(jdbc, "EXPLAIN ANALYZE " + sql);
    assertThat(plan).as(String.join("\n", plan)).anyMatch(l -> l.contains("SortExec:")
        && l.matches(".* spill_runs=([2-9]|\\d\\d+) spilled_bytes=[1-9]\\d*.*"));
    List<List<Object>> ours = TestServer.rows(jdbc, sql);
    List<List<Object>> theirs = TestServer.rows(duck, sql);
    assertThat(ours).hasSize(theirs.size());
    for (int i = 0; i < ours.size(); i++) assertThat(ours.get(i).toString()).as("row " + i).isEqualTo(theirs.get(i).toString());
  }

  /**
   * Aggregation spilling: 600,000 groups of lineitem under the 48 MiB limit go to 16 partitions on disk and are
   * aggregated one at a time; the groups equal DuckDB's.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "SELECT l_orderkey, l_linenumber, count(*), sum(l_quantity), avg(l_discount), max(l_shipdate) "
          + "FROM lineitem GROUP BY l_orderkey, l_linenumber",
      "SELECT l_comment, count(*), min(l_orderkey), sum(l_extendedprice) FROM lineitem GROUP BY l_comment"})
  void anAggregationOverTheLimitSpillsPartitionsAndAnswersRight(String sql) throws Exception {
    List<String> plan = TestServer.explain(jdbc, "EXPLAIN ANALYZE " + sql);
    assertThat(plan).as(String.join("\n", plan)).anyMatch(l -> l.contains("AggregateExec: mode=final")
        && l.matches(".* spilled_bytes=[1-9]\\d* spill_partitions=16.*"));
    assertThat(JoinPruningTest.sorted(TestServer.rows(jdbc, sql)))
        .isEqualTo(JoinPruningTest.sorted(TestServer.rows(duck, sql)));
  }

  @Test
  void aTimedOutSpillingJoinLeavesNothingBehind() throws Exception {
    try (Connection c = server.jdbc()) {
      try (Statement s = c.createStatement()) {
        s.execute("SET quiver.statement_timeout_ms = 300");
      }
      assertThatThrownBy(() -> TestServer.rows(c, "SELECT count(*) FROM lineitem a JOIN lineitem b "
          + "ON a.l_partkey = b.l_partkey AND a.l_comment < b.l_comment"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(MemoryLimitTest.status((SQLException) e)).contains("TIMED_OUT"));
    }
    // the server keeps serving
    assertThat(TestServer.scalarLong(jdbc, "SELECT count(*) FROM orders JOIN lineitem ON o_orderkey = l_orderkey"))
        .isEqualTo(TestServer.scalarLong(duck, "SELECT count(*) FROM lineitem"));
  }

  @Test
  void notInNeedsTheWholeBuildSideAndFailsCleanly() {
    assertThatThrownBy(() -> TestServer.rows(jdbc, "SELECT count(*) FROM part WHERE p_comment NOT IN "
        + "(SELECT l_comment FROM lineitem)"))
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(MemoryLimitTest.status((SQLException) e)).startsWith("RESOURCE_EXHAUSTED: "));
  }

  @Test
  void anUnusableSpillDirectoryIsAClearError() throws Exception {
    Path notADirectory = Files.writeString(spillDir.resolve("a-file"), "x");
    SpillDirectory.set(notADirectory);
    try {
      assertThatThrownBy(() -> TestServer.rows(jdbc, "SELECT count(*) FROM lineitem a JOIN lineitem b "
          + "ON a.l_orderkey = b.l_orderkey AND a.l_linenumber = b.l_linenumber AND a.l_comment <> b.l_shipinstruct"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(MemoryLimitTest.status((SQLException) e))
              .startsWith("RESOURCE_EXHAUSTED: ").contains("could not spill to").contains("--spill-dir"));
    } finally {
      SpillDirectory.set(spillDir);
      Files.delete(notADirectory);
    }
  }
}
