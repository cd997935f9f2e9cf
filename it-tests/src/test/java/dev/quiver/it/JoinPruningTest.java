package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A predicate on one side of a join (written in WHERE, in ON, inside a derived table, or implied through
 * the join key) still reaches that side's scan and prunes its row groups; the result equals the same
 * query with pruning off (a second session with {@code quiver.scan.pruning = false}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JoinPruningTest {
  TestServer server;
  Connection on;
  Connection off;

  @BeforeAll
  void start() throws Exception {
    server = TestServer.start(SampleData.ensure());
    on = server.jdbc();
    off = server.jdbcWithoutPruning();
  }

  @AfterAll
  void stop() throws Exception {
    on.close();
    off.close();
    server.close();
  }

  /** The metrics of the scan of {@code table} in EXPLAIN ANALYZE. */
  static Map<String, Long> scan(Connection c, String sql, String table) throws Exception {
    List<String> lines = TestServer.explain(c, "EXPLAIN ANALYZE " + sql);
    String line = lines.stream().filter(l -> l.contains("ParquetScanExec: table=" + table + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no scan of " + table + " in " + lines));
    Map<String, Long> m = new LinkedHashMap<>();
    Matcher matcher = Pattern.compile("(\\w+)=(\\d+)(?=\\s|$)").matcher(line);
    while (matcher.find()) m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
    return m;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "SELECT count(*), sum(o_totalprice) FROM lineitem, orders WHERE l_orderkey = o_orderkey AND l_shipdate < DATE '1992-02-15'|lineitem",
      "SELECT count(*) FROM orders JOIN lineitem ON l_orderkey = o_orderkey AND l_shipdate >= DATE '1998-11-01'|lineitem",
      "SELECT o_orderpriority, count(*) FROM orders LEFT JOIN lineitem ON l_orderkey = o_orderkey WHERE l_shipdate < DATE '1992-02-15' GROUP BY o_orderpriority|lineitem",
      "SELECT count(*) FROM (SELECT l_orderkey FROM lineitem WHERE l_shipdate > DATE '1998-11-15') t JOIN orders ON o_orderkey = t.l_orderkey|lineitem",
      "SELECT count(*) FROM orders WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND l_shipdate < DATE '1992-02-15')|lineitem",
      "SELECT count(*) FROM lineitem JOIN orders ON o_orderkey = l_orderkey WHERE l_orderkey < 5000|orders"})
  void predicateOnOneSidePrunesThatSide(String sql, String table) throws Exception {
    Map<String, Long> m = scan(on, sql, table);
    assertThat(m.get("row_groups_pruned")).as(m.toString()).isPositive();
    assertThat(sorted(TestServer.rows(on, sql))).isEqualTo(sorted(TestServer.rows(off, sql)));
    assertThat(scan(off, sql, table).get("row_groups_pruned")).isZero();
  }

  static List<String> sorted(List<List<Object>> rows) {
    List<String> out = new ArrayList<>();
    for (List<Object> r : rows) out.add(r.toString());
    out.sort(null);
    return out;
  }
}
