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
 * Through JDBC, the same queries with {@code quiver.parallel_pipelines} on (the default: filters, projections and
 * partial aggregations in the scan's row-group tasks) and off (one session SETs it) give the same rows in the same
 * order, and an expression that fails inside a scan task gives the same error.
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
  void anErrorInAScanTaskIsTheSameError() {
    for (String sql : List.of("SELECT l_returnflag, sum(l_quantity / (l_tax - l_tax)) FROM lineitem GROUP BY 1",
        "SELECT l_orderkey FROM lineitem WHERE l_orderkey / (l_linenumber - 3) > 1")) {
      SQLException a = catchThrowableOfType(() -> TestServer.rows(on, sql), SQLException.class);
      SQLException b = catchThrowableOfType(() -> TestServer.rows(off, sql), SQLException.class);
      assertThat((Object) a).as(sql).isNotNull();
      assertThat((Object) b).as(sql).isNotNull();
      assertThat(a.getMessage()).isEqualTo(b.getMessage());
    }
  }
}
