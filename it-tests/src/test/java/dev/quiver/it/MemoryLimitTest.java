package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.SampleData;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Queries whose hash tables need more than the per-query memory limit and cannot spill fail with
 * RESOURCE_EXHAUSTED naming the limit, release everything (the server's allocator check on close fails
 * on a leak), and the server keeps answering; a sort, which spills, answers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MemoryLimitTest {
  static final long LIMIT = 16L << 20;
  TestServer server;
  Connection jdbc;

  @BeforeAll
  void start() throws Exception {
    server = TestServer.start(SampleData.ensure(), LIMIT);
    jdbc = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    jdbc.close();
    server.close();
  }

  static String status(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String s = t.toString();
      if (t.getClass().getName().endsWith("FlightRuntimeException")) return s.substring(s.indexOf(": ") + 2);
    }
    return String.valueOf(e);
  }

  /**
   * A sort that retains every row spills instead (SpillTest): under the limit it answers as a server with room does.
   * (A count(DISTINCT) of l_comment spills too, but at 16 MiB the scan's partial aggregation tasks, whose tables do
   * not spill, sometimes run out first; SpillTest aggregates at 48 MiB.)
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT l_comment, l_orderkey FROM lineitem ORDER BY l_comment"}) // stable: ties in file order on both
  void spillingOperatorsAnswerUnderTheLimit(String sql) throws Exception {
    List<List<Object>> limited = TestServer.rows(jdbc, sql);
    try (TestServer roomy = TestServer.start(SampleData.ensure()); Connection c = roomy.jdbc()) {
      assertThat(limited).isEqualTo(TestServer.rows(c, sql));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      // a hash aggregation with ~600k groups, single-phase (an integer sum under two keys is not split into
      // states): cannot spill
      "SELECT l_comment, l_linestatus, count(*), sum(l_linenumber) FROM lineitem GROUP BY l_comment, l_linestatus",
      // a NOT IN building on all of lineitem (a join with keys spills instead: SpillTest)
      "SELECT count(*) FROM part WHERE p_comment NOT IN (SELECT l_comment FROM lineitem)"})
  void overTheLimitFailsCleanlyAndTheServerKeepsServing(String sql) throws Exception {
    assertThatThrownBy(() -> TestServer.rows(jdbc, sql))
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(status((SQLException) e)).startsWith("RESOURCE_EXHAUSTED: "));
    assertThat(TestServer.scalarLong(jdbc, "SELECT count(*) FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey"))
        .isEqualTo(25);
    assertThat(TestServer.rows(jdbc, "SELECT o_orderpriority, count(*) FROM orders GROUP BY o_orderpriority")).hasSize(5);
  }
}
