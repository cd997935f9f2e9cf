package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.SqlFuzzer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL fuzzer through a real server and the JDBC driver: a slice of {@link SqlFuzzer}'s inputs (another seed
 * than the planner's SqlFuzzTest) and every case of {@code fuzz-regressions.sql}. Each must run, or fail with a
 * Flight status that is not INTERNAL (nor UNKNOWN: no file here is corrupt) and whose description is a message:
 * no Java class names or stack, not the data directory's path, short enough for a gRPC trailer. No statement
 * may hang (the session has a statement timeout; planning is bounded by the SQL limits), and afterwards the
 * server still answers, runs nothing, and closes without a leaked buffer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlFuzzServerTest {
  static final long SEED = Long.getLong("quiver.fuzz.seed", 20_240_611L) + 1;
  static final int INPUTS = Integer.getInteger("quiver.fuzz.server.inputs", 300);
  static final long HANG_MS = 60_000;

  @TempDir
  static Path dir;
  Path data;
  TestServer server;
  Connection jdbc;
  ExecutorService executor;

  @BeforeAll
  void start() throws Exception {
    data = Files.createDirectories(dir.resolve("data"));
    SqlFuzzer.writeTables(data, 0.0005);
    server = TestServer.start(data);
    executor = newExecutor();
    jdbc = connect();
  }

  @AfterAll
  void stop() throws Exception {
    executor.shutdownNow();
    if (jdbc != null) jdbc.close();
    server.close(); // fails on a leaked buffer
  }

  private static ExecutorService newExecutor() {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "fuzz-client");
      t.setDaemon(true);
      return t;
    });
  }

  private Connection connect() throws SQLException {
    Connection c = server.jdbc();
    try (Statement s = c.createStatement()) {
      s.execute("SET quiver.statement_timeout_ms = 2000");
    }
    return c;
  }

  @Test
  void fuzzedStatementsGetACleanAnswer() throws Exception {
    SqlFuzzer fuzzer = SqlFuzzer.standard();
    List<String> failures = new ArrayList<>();
    Map<String, Integer> statuses = new java.util.TreeMap<>();
    long start = System.nanoTime();
    for (int i = 0; i < INPUTS; i++) {
      String sql = fuzzer.generate(SEED, i);
      String problem = check(sql, statuses);
      if (problem != null) failures.add("input " + i + " of seed " + SEED + ": " + cut(sql) + "\n    -> " + problem);
    }
    System.out.printf("SqlFuzzServerTest: %d inputs (seed %d) in %.1f s: %s%n", INPUTS, SEED,
        (System.nanoTime() - start) / 1e9, statuses);
    assertThat(failures).as("seed %d", SEED).isEmpty();
    stillServing();
  }

  @Test
  void regressionCasesGetACleanAnswer() throws Exception {
    List<String> cases = SqlFuzzer.regressions();
    List<String> failures = new ArrayList<>();
    Map<String, Integer> statuses = new java.util.TreeMap<>();
    long start = System.nanoTime();
    for (int i = 0; i < cases.size(); i++) {
      long t0 = System.nanoTime();
      String problem = check(cases.get(i), statuses);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      if (ms > 1_000) System.out.println("  regression case " + (i + 1) + " took " + ms + " ms: " + cases.get(i).substring(0, Math.min(80, cases.get(i).length())));
      if (problem != null) failures.add("regression case " + (i + 1) + ": " + cut(cases.get(i)) + "\n    -> " + problem);
    }
    System.out.printf("SqlFuzzServerTest: %d regression cases in %.1f s: %s%n", cases.size(), (System.nanoTime() - start) / 1e9,
        statuses);
    assertThat(failures).isEmpty();
    stillServing();
  }

  @Test
  void theStatementSizeLimitIsTheServersToSet() throws Exception {
    try (dev.quiver.server.QuiverServer small = dev.quiver.server.QuiverServer.start(
            dev.quiver.server.ServerConfig.of(data.toString(), "127.0.0.1", 0).withMaxStatementBytes(100));
        Connection c = java.sql.DriverManager.getConnection(small.jdbcUrl())) {
      String prefix = "SELECT count(*) FROM t WHERE s <> '";
      String fits = prefix + "é".repeat((100 - prefix.length() - 1) / 2) + "'"; // two bytes each
      assertThat(fits.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(100);
      assertThat(TestServer.scalarLong(c, fits)).isPositive();
      Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> TestServer.scalarLong(c, fits.replace("'", "é'")));
      Status status = flightStatus(t);
      assertThat(status).as(String.valueOf(t)).isNotNull();
      assertThat(status.code()).isEqualTo("INVALID_ARGUMENT");
      assertThat(status.description()).isEqualTo("the statement is 104 bytes, over the limit of 100 bytes per statement");
    }
  }

  private void stillServing() throws Exception {
    assertThat(TestServer.scalarLong(jdbc, "SELECT count(*) FROM t")).isEqualTo(56);
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (server.runningQueries() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
    assertThat(server.runningQueries()).isZero();
  }

  /** A Flight status: its code's name and its description. */
  record Status(String code, String description) {}

  /**
   * The status of the Flight error among {@code t}'s causes, or null. The JDBC driver shades Flight's classes
   * ({@code org.apache.arrow.driver.jdbc.shaded.org.apache.arrow.flight.FlightRuntimeException}): found by name.
   */
  static Status flightStatus(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getClass().getSimpleName().equals("FlightRuntimeException")) {
        try {
          Object status = c.getClass().getMethod("status").invoke(c);
          return new Status(String.valueOf(status.getClass().getMethod("code").invoke(status)),
              (String) status.getClass().getMethod("description").invoke(status));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return null;
  }

  /** Runs {@code sql} through JDBC; null when the answer is clean, else what is wrong with it. */
  private String check(String sql, Map<String, Integer> statuses) throws Exception {
    Future<Throwable> f = executor.submit(() -> {
      try (Statement st = jdbc.createStatement()) {
        if (st.execute(sql)) {
          try (ResultSet rs = st.getResultSet()) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
              for (int c = 1; c <= columns; c++) rs.getString(c);
            }
          }
        }
        return null;
      } catch (Throwable t) {
        return t;
      }
    });
    Throwable t;
    try {
      t = f.get(HANG_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException hang) {
      f.cancel(true);
      executor.shutdownNow();
      executor = newExecutor();
      jdbc = connect(); // the old connection is stuck with the hung call
      return "no answer after " + HANG_MS + " ms";
    }
    if (t == null) {
      statuses.merge("OK", 1, Integer::sum);
      return null;
    }
    Status flight = flightStatus(t);
    if (flight == null) {
      // the driver's own refusal (e.g. a statement with '?' that it cannot run unbound) is no server answer
      statuses.merge("driver", 1, Integer::sum);
      String m = String.valueOf(t.getMessage());
      return t instanceof SQLException && !m.contains("\tat ") ? null : "not a Flight error: " + t;
    }
    String code = flight.code();
    statuses.merge(code, 1, Integer::sum);
    String description = flight.description();
    if (List.of("INTERNAL", "UNKNOWN", "UNAVAILABLE").contains(code)) return code + ": " + description;
    String problem = SqlFuzzer.messageProblem(description);
    if (problem != null) return problem;
    if (description.contains(data.toAbsolutePath().toString()) || description.contains(dir.toAbsolutePath().toString())) {
      return "the description shows the data directory: " + description;
    }
    return null;
  }

  private static String cut(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "… (" + s.length() + " chars)" : s;
  }
}
