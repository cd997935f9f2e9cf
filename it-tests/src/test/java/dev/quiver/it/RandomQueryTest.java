package dev.quiver.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Differential test: {@link QueryGenerator}'s random queries (fixed seed) over the TPC-H tables and an
 * {@code alltypes} table, each answered by a real Quiver server (JDBC) and by DuckDB over the same
 * Parquet files, compared with {@link ResultComparison}.
 *
 * <p>{@code -Dquiver.randomSeed=N} (decimal or 0x hex) runs another seed, {@code -Dquiver.randomQueries=N}
 * another number of queries, {@code -Dquiver.skipUnsupported=true} reports queries that Quiver refuses as
 * UNIMPLEMENTED as skipped instead of failed. A failure names the seed and the query.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RandomQueryTest {
  static final long DEFAULT_SEED = 20_261_130L;
  static final long SEED = Long.getLong("quiver.randomSeed", DEFAULT_SEED);
  static final int COUNT = Integer.getInteger("quiver.randomQueries", 400);
  static final long QUERY_TIMEOUT_MS = 60_000;

  @TempDir
  static Path dir;

  final List<String> queries = new QueryGenerator(SEED).generate(COUNT);
  /** DuckDB's answers, by query index, computed once. */
  final Map<Integer, ResultComparison.Result> expected = new ConcurrentHashMap<>();
  TestServer server;
  Connection quiver;
  Connection duck;

  @BeforeAll
  void start() throws Exception {
    System.out.println("RandomQueryTest: seed " + SEED + " (-Dquiver.randomSeed=" + SEED + "), " + COUNT + " queries");
    Path tpch = TpchTest.tpchDir();
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      s.execute("CREATE TABLE alltypes_src AS " + QueryGenerator.alltypesSql());
      s.execute("COPY alltypes_src TO '" + dir.resolve(QueryGenerator.ALLTYPES + ".parquet")
          + "' (FORMAT parquet, ROW_GROUP_SIZE 1024)");
      s.execute("DROP TABLE alltypes_src");
    }
    for (String t : TpchTest.TABLES) linkOrCopy(tpch.resolve(t + ".parquet"), dir.resolve(t + ".parquet"));
    List<String> tables = new ArrayList<>(TpchTest.TABLES);
    tables.add(QueryGenerator.ALLTYPES);
    TpchTest.createDuckDbViews(duck, dir, tables);
    server = TestServer.start(dir);
    quiver = server.jdbc();
    TpchTest.limitQueryTime(quiver, QUERY_TIMEOUT_MS);
  }

  private static void linkOrCopy(Path from, Path to) throws IOException {
    try {
      Files.createLink(to, from);
    } catch (IOException | UnsupportedOperationException e) {
      Files.copy(from, to);
    }
  }

  @AfterAll
  void stop() throws Exception {
    try (AutoCloseable s = server; AutoCloseable q = quiver; AutoCloseable d = duck) {
      // closed in reverse order: DuckDB, the Quiver connection, then the server (which fails on leaks)
    }
  }

  private String where(int index) {
    return "random query #" + index + " of seed " + SEED + " (rerun with -Dtest=RandomQueryTest -Dquiver.randomSeed="
        + SEED + (COUNT != 400 ? " -Dquiver.randomQueries=" + COUNT : "") + ")";
  }

  private ResultComparison.Result duckDb(int index) throws SQLException {
    ResultComparison.Result r = expected.get(index);
    if (r == null) {
      r = ResultComparison.fetch(duck, queries.get(index));
      expected.put(index, r);
    }
    return r;
  }

  /** Every generated query must run on DuckDB: one that does not is a bug of the generator. */
  @Test
  @Order(1)
  void duckDbRunsEveryGeneratedQuery() {
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < queries.size(); i++) {
      try {
        duckDb(i);
      } catch (SQLException e) {
        failures.add("#" + i + ": " + queries.get(i) + "\n    " + e.getMessage().lines().findFirst().orElse(""));
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError("QueryGenerator bug: DuckDB rejects " + failures.size() + " of " + queries.size()
          + " generated queries (seed " + SEED + "):\n" + String.join("\n", failures));
    }
  }

  Stream<Arguments> cases() {
    return IntStream.range(0, queries.size()).mapToObj(i -> Arguments.of(i, queries.get(i)));
  }

  @ParameterizedTest(name = "#{0}: {1}")
  @MethodSource("cases")
  @Order(2)
  void matchesDuckDb(int index, String sql) {
    ResultComparison.Result want;
    try {
      want = duckDb(index);
    } catch (SQLException e) {
      throw new AssertionError("QueryGenerator bug: DuckDB rejects " + where(index) + ": " + e.getMessage()
          + "\nquery:\n  " + sql, e);
    }
    ResultComparison.Result got;
    try {
      got = ResultComparison.fetch(quiver, sql);
    } catch (SQLException e) {
      if (Boolean.getBoolean("quiver.skipUnsupported") && TpchTest.isUnsupported(e)) {
        Assumptions.abort("Quiver does not support this yet: " + TpchTest.quiverMessage(e, sql));
      }
      throw new AssertionError("Quiver failed on " + where(index) + ": " + TpchTest.quiverMessage(e, sql) + "\nquery:\n  " + sql
          + "\nDuckDB answers " + want.size() + " rows", e);
    }
    ResultComparison.compare(sql, want, got).ifPresent(m -> {
      throw new AssertionError(where(index) + "\n" + m);
    });
  }
}
