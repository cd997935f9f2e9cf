package dev.quiver.it;

import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.sample.SampleData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The 22 TPC-H queries (validation parameters, {@code tpch/qNN.sql} resources of sample-data) on the sample
 * data's eight TPC-H tables (SF 0.1), answered by a real Quiver server through the Flight SQL JDBC driver
 * and by DuckDB over the same Parquet files, compared with {@link ResultComparison}.
 *
 * <p>{@code -Dquiver.tpchDir=DIR} runs on another directory of {@code <table>.parquet} files;
 * {@code -Dquiver.skipUnsupported=true} reports queries Quiver refuses as UNIMPLEMENTED as skipped
 * instead of failed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TpchTest {
  static final List<String> TABLES = List.of("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region");
  /** Quiver stops a query after this long (its statement timeout), so a runaway plan fails instead of hanging. */
  static final long QUERY_TIMEOUT_MS = 300_000;

  TestServer server;
  Connection quiver;
  Connection duck;

  /** The directory with the eight TPC-H tables: {@code -Dquiver.tpchDir}, else the sample data's. */
  static Path tpchDir() {
    String explicit = System.getProperty("quiver.tpchDir");
    Path dir = explicit != null && !explicit.isBlank() ? Path.of(explicit) : SampleData.ensure();
    for (String t : TABLES) {
      if (!Files.isRegularFile(dir.resolve(t + ".parquet"))) {
        fail(dir + " has no " + t + ".parquet: the TPC-H tests need all eight TPC-H tables (sample data "
            + SampleData.VERSION + " of the installed quiver-sample-data; re-install it with "
            + "`mvn -q -B -o -pl sample-data install -DskipTests`, or point -Dquiver.tpchDir at such a directory)");
      }
    }
    return dir;
  }

  /** A view per TPC-H table in DuckDB over the file in {@code dir}. */
  static void createDuckDbViews(Connection duck, Path dir, List<String> tables) throws SQLException {
    try (Statement s = duck.createStatement()) {
      for (String t : tables) {
        s.execute("CREATE OR REPLACE VIEW " + t + " AS SELECT * FROM read_parquet('"
            + dir.resolve(t + ".parquet").toAbsolutePath().toString().replace("'", "''") + "')");
      }
    }
  }

  /** Sets Quiver's statement timeout on this session (kept by the driver's session cookie). */
  static void limitQueryTime(Connection quiver, long millis) throws SQLException {
    try (Statement s = quiver.createStatement()) {
      s.execute("SET quiver.statement_timeout_ms = " + millis);
    }
  }

  /** Whether a Quiver failure is Quiver refusing SQL it does not support yet (Flight UNIMPLEMENTED). */
  static boolean isUnsupported(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.contains("UNIMPLEMENTED") || m.contains(" is not supported")) return true;
    }
    return false;
  }

  /** The Flight SQL driver's message without the "Error while executing SQL "<the query>": " it puts first. */
  static String quiverMessage(SQLException e, String sql) {
    String m = String.valueOf(e.getMessage());
    String prefix = "Error while executing SQL \"" + sql + "\": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  @BeforeAll
  void start() throws Exception {
    Path dir = tpchDir();
    duck = DriverManager.getConnection("jdbc:duckdb:");
    createDuckDbViews(duck, dir, TABLES);
    server = TestServer.start(dir);
    quiver = server.jdbc();
    limitQueryTime(quiver, QUERY_TIMEOUT_MS);
  }

  @AfterAll
  void stop() throws Exception {
    try (AutoCloseable s = server; AutoCloseable q = quiver; AutoCloseable d = duck) {
      // closed in reverse order: DuckDB, the Quiver connection, then the server (which fails on leaks)
    }
  }

  static Stream<String> queries() {
    return IntStream.rangeClosed(1, 22).mapToObj(i -> String.format("q%02d", i));
  }

  static String sql(String name) throws IOException {
    try (InputStream in = TpchTest.class.getResourceAsStream("/tpch/" + name + ".sql")) {
      if (in == null) throw new IOException("no resource /tpch/" + name + ".sql");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void matchesDuckDb(String name) throws Exception {
    String sql = sql(name);
    ResultComparison.Result expected;
    try {
      expected = ResultComparison.fetch(duck, sql);
    } catch (SQLException e) {
      throw new AssertionError("DuckDB cannot run TPC-H " + name + " (a bug in the query file):\n" + sql, e);
    }
    ResultComparison.Result actual;
    long started = System.nanoTime();
    try {
      actual = ResultComparison.fetch(quiver, sql);
    } catch (SQLException e) {
      if (Boolean.getBoolean("quiver.skipUnsupported") && isUnsupported(e)) {
        Assumptions.abort("Quiver does not support TPC-H " + name + " yet: " + quiverMessage(e, sql));
      }
      throw new AssertionError("Quiver failed on TPC-H " + name + ": " + quiverMessage(e, sql) + "\nquery:\n" + sql, e);
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    ResultComparison.compare(sql, expected, actual).ifPresent(m -> {
      throw new AssertionError("TPC-H " + name + ": " + m);
    });
    System.out.printf("TPC-H %s: %d rows, Quiver %d ms%n", name, actual.size(), millis);
  }
}
