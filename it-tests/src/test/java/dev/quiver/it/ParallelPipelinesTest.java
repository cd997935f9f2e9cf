package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quiver.sample.SampleData;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Through JDBC, the same queries with {@code quiver.parallel_pipelines} on (the default: filters, projections,
 * hash join probes and partial aggregations in the scan's row-group tasks) and off (one session SETs it) give the
 * same rows in the same order, and an expression that fails inside a scan task gives the same error.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParallelPipelinesTest {
  TestServer server;
  Connection on;
  Connection off;

  @BeforeAll
  void start() throws Exception {
    server = TestServer.start(SampleData.ensure());
    on = server.jdbc();
    off = server.jdbc();
    try (Statement s = off.createStatement()) {
      s.execute("SET quiver.parallel_pipelines = false");
    }
  }

  @AfterAll
  void stop() throws Exception {
    on.close();
    off.close();
    server.close();
  }

  @Test
  void theSettingIsShownAndOnByDefault() throws Exception {
    assertThat(TestServer.rows(on, "SHOW quiver.parallel_pipelines").toString()).contains("true");
    assertThat(TestServer.rows(off, "SHOW quiver.parallel_pipelines").toString()).contains("false");
    assertThat(String.join("\n", TestServer.explain(on, "EXPLAIN SELECT l_returnflag, count(*) FROM lineitem GROUP BY 1")))
        .contains("AggregateExec: mode=partial").contains("pipeline=[partial_aggregate]");
    assertThat(String.join("\n", TestServer.explain(off, "EXPLAIN SELECT l_returnflag, count(*) FROM lineitem GROUP BY 1")))
        .doesNotContain("mode=partial").doesNotContain("pipeline=");
  }

  @Test
  void onAndOffAnswerTheSame() throws Exception {
    for (String sql : List.of(
        // TPC-H Q1, Q6
        "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, "
            + "sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, "
            + "sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, "
            + "avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order "
            + "FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY "
            + "GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
        "SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' "
            + "AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
        // groups in order of first appearance, NULL keys and values, many groups
        "SELECT NULLIF(l_returnflag, 'R') AS f, l_linestatus, count(*), sum(NULLIF(l_quantity, 1)), "
            + "avg(NULLIF(l_discount, 0)), min(l_shipdate), max(l_comment) FROM lineitem GROUP BY 1, 2",
        "SELECT l_orderkey, count(*), sum(l_quantity), max(l_extendedprice), avg(l_linenumber) FROM lineitem "
            + "GROUP BY l_orderkey",
        "SELECT l_suppkey, sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE l_shipmode = 'AIR' "
            + "GROUP BY l_suppkey",
        // nothing matches: every row group pruned or emptied
        "SELECT count(*), sum(l_quantity), min(l_comment) FROM lineitem WHERE l_shipdate < DATE '1900-01-01'",
        "SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_quantity + 0 > 1000",
        // filters and projections only, in file order
        "SELECT l_orderkey, l_extendedprice * (1 - l_discount) FROM lineitem WHERE l_discount + 0 > 0.09",
        "SELECT count(DISTINCT l_suppkey), sum(l_quantity * 1.5e0) FROM lineitem")) {
      List<List<Object>> a = TestServer.rows(on, sql);
      assertThat(a).as(sql).isNotEmpty().isEqualTo(TestServer.rows(off, sql));
    }
  }

  @Test
  void joinsProbedInScanTasksAnswerTheSameInTheSameOrder() throws Exception {
    String chain = "SELECT n_name, count(*), sum(l_extendedprice * (1 - l_discount)) FROM lineitem "
        + "JOIN orders ON l_orderkey = o_orderkey JOIN customer ON o_custkey = c_custkey "
        + "JOIN nation ON c_nationkey = n_nationkey WHERE o_orderdate < DATE '1994-01-01' GROUP BY n_name";
    assertThat(String.join("\n", TestServer.explain(on, "EXPLAIN " + chain)))
        .contains("pipeline=[hash_join, hash_join, hash_join, partial_aggregate]")
        .containsPattern("HashJoinExec: type=INNER keys=\\[c_nationkey = n_nationkey\\] \\[in scan tasks\\]");
    for (String sql : List.of(chain,
        // pairs in probe order, a residual, a projection above
        "SELECT l_orderkey, l_linenumber, o_orderdate, l_quantity + 1 FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
            + "AND o_totalprice > l_extendedprice * 20 WHERE l_quantity > 45",
        // LEFT: unmatched probe rows padded, in place
        "SELECT l_orderkey, l_linenumber, p_name FROM lineitem LEFT JOIN part ON l_partkey = p_partkey AND p_size < 3 "
            + "WHERE l_quantity < 3",
        // SEMI, ANTI, NOT IN with and without a NULL on the build side
        "SELECT l_orderkey, l_linenumber FROM lineitem WHERE l_partkey IN (SELECT p_partkey FROM part WHERE p_size = 7)",
        "SELECT count(*), sum(l_quantity) FROM lineitem WHERE NOT EXISTS (SELECT 1 FROM part WHERE p_partkey = l_partkey "
            + "AND p_size > 10)",
        "SELECT count(*) FROM lineitem WHERE l_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_acctbal > 0)",
        "SELECT count(*) FROM lineitem WHERE l_suppkey NOT IN (SELECT NULLIF(s_suppkey, 3) FROM supplier)",
        // two keys, a string key, a fan-out (every line of an order with every other)
        "SELECT count(*), sum(ps_supplycost * l_quantity) FROM lineitem JOIN partsupp ON l_partkey = ps_partkey "
            + "AND l_suppkey = ps_suppkey",
        "SELECT l_shipmode, count(*) FROM lineitem JOIN (SELECT DISTINCT o_orderpriority AS m FROM orders) p "
            + "ON l_shipinstruct = m OR l_shipmode = m GROUP BY l_shipmode",
        "SELECT count(*), sum(a.l_quantity), max(b.l_comment) FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey "
            + "WHERE a.l_linenumber <> b.l_linenumber",
        // no build rows
        "SELECT count(*) FROM lineitem JOIN part ON l_partkey = p_partkey WHERE p_size > 1000")) {
      List<List<Object>> a = TestServer.rows(on, sql);
      assertThat(a).as(sql).isEqualTo(TestServer.rows(off, sql));
    }
  }

  @Test
  void aFanOutJoinAndWhatIsAboveItProbeOnTheQueryThread() throws Exception {
    // about 120 build rows per order status: more than a scan task may multiply a row group by
    String sql = "SELECT b.o_orderstatus, count(*), sum(a.o_totalprice), min(b.o_orderdate) FROM orders a "
        + "JOIN orders b ON a.o_orderstatus = b.o_orderstatus WHERE a.o_orderkey < 1000 AND b.o_orderkey < 3000 "
        + "GROUP BY 1";
    String planned = String.join("\n", TestServer.explain(on, "EXPLAIN " + sql));
    assertThat(planned).contains("pipeline=[hash_join, partial_aggregate]");
    String ran = String.join("\n", TestServer.explain(on, "EXPLAIN ANALYZE " + sql));
    assertThat(ran).contains("pipeline=[]").doesNotContain("[in scan tasks]")
        .containsPattern("AggregateExec: mode=partial .* output_rows=[1-3] ");
    assertThat(TestServer.rows(on, sql)).isEqualTo(TestServer.rows(off, sql)).hasSize(3);
  }

  @Test
  void anErrorInAScanTaskIsTheSameError() {
    for (String sql : List.of("SELECT l_returnflag, sum(l_quantity / (l_tax - l_tax)) FROM lineitem GROUP BY 1",
        "SELECT l_orderkey FROM lineitem WHERE l_orderkey / (l_linenumber - 3) > 1",
        "SELECT l_orderkey FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE l_orderkey / (o_shippriority) > 1")) {
      SQLException a = catchThrowableOfType(() -> TestServer.rows(on, sql), SQLException.class);
      SQLException b = catchThrowableOfType(() -> TestServer.rows(off, sql), SQLException.class);
      assertThat((Object) a).as(sql).isNotNull();
      assertThat((Object) b).as(sql).isNotNull();
      assertThat(a.getMessage()).isEqualTo(b.getMessage());
    }
  }
}
