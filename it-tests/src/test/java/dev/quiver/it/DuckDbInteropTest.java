package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Parquet files written by another engine (DuckDB: INT32/INT64/DOUBLE with NaN/DECIMAL/VARCHAR/DATE/
 * TIMESTAMP/BOOLEAN with NULLs, dictionary and plain pages, snappy/zstd/gzip/uncompressed), queried
 * through Quiver's JDBC path and compared with DuckDB's own answers on the same files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DuckDbInteropTest {
  static final String[] CODECS = {"snappy", "zstd", "gzip", "uncompressed"};

  @TempDir
  static Path dir;
  TestServer server;
  Connection quiver;
  Connection duck;

  @BeforeAll
  void start() throws Exception {
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      s.execute("CREATE TABLE t AS SELECT "
          + "CAST(i AS INTEGER) AS i32, "
          + "CASE WHEN i % 17 = 0 THEN NULL ELSE CAST(i * 7919 % 100003 AS BIGINT) END AS i64, "
          + "CASE WHEN i % 97 = 0 THEN 'NaN'::DOUBLE WHEN i % 89 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END AS d, "
          + "CAST((i % 5000) / 8.0 AS DECIMAL(18,3)) AS dec, "
          + "CASE WHEN i % 13 = 0 THEN NULL ELSE 'name-' || (i % 50) END AS s, "
          + "'unique-' || i AS u, "
          + "DATE '2020-01-01' + CAST(i / 20 AS INTEGER) AS dt, "
          + "TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i * 37) SECOND AS ts, "
          + "i % 3 = 0 AS b "
          + "FROM range(0, 20000) r(i)");
      for (String codec : CODECS) {
        s.execute("COPY t TO '" + dir.resolve("t_" + codec + ".parquet") + "' (FORMAT parquet, COMPRESSION " + codec
            + ", ROW_GROUP_SIZE 2048)");
      }
    }
    server = TestServer.start(dir);
    quiver = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    quiver.close();
    duck.close();
    server.close();
  }

  static Stream<Arguments> cases() {
    String[] predicates = {
        "TRUE", "i32 > 15000", "i32 < 100 OR i32 >= 19990", "i64 = 42", "i64 IS NULL", "i64 IS NOT NULL AND i64 < 500",
        "d < 0.25", "d > 0.75", "d <> 0.5", "d = CAST('NaN' AS DOUBLE)", "d IS NULL", "dec >= 600.5", "dec BETWEEN 10 AND 11",
        "s = 'name-7'", "s IN ('name-1', 'name-2', 'name-3')", "s IS NULL", "s <> 'name-7'", "u = 'unique-12345'",
        "dt < DATE '2020-03-01'", "dt BETWEEN DATE '2021-01-01' AND DATE '2021-01-31'",
        "ts < TIMESTAMP '2020-01-02 00:00:00'", "ts >= TIMESTAMP '2020-01-08 12:00:00'", "b", "NOT b",
        "NOT (i32 < 10000 OR d > 0.9)", "i32 IN (1, 2, 3, 19999)", "i32 NOT IN (1, 2, 3)", "u > 'unique-9'",
    };
    List<Arguments> out = new ArrayList<>();
    for (String codec : CODECS) {
      for (String p : predicates) out.add(Arguments.of("t_" + codec, p));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} WHERE {1}")
  @MethodSource("cases")
  void aggregatesMatchDuckDb(String table, String predicate) throws Exception {
    String q = "SELECT count(*), count(i64), sum(i64), min(i32), max(i32), min(s), max(u), min(dt), max(dt), "
        + "sum(dec), min(dec), count(d), count(b), min(ts), max(ts) FROM " + table + " WHERE " + predicate;
    List<Object> mine = TestServer.rows(quiver, q).get(0);
    List<Object> theirs = TestServer.rows(duck, q.replace(" FROM " + table, " FROM '" + dir.resolve(table + ".parquet") + "'")).get(0);
    for (int i = 0; i < mine.size(); i++) {
      assertThat(normalize(mine.get(i))).as("column %d of %s", i + 1, q).isEqualTo(normalize(theirs.get(i)));
    }
  }

  @Test
  void rowsMatchDuckDb() throws Exception {
    String q = "SELECT i32, i64, d, dec, s, u, dt, b FROM t_zstd WHERE i32 < 300 OR s = 'name-3'";
    List<String> mine = TestServer.rows(quiver, q).stream().map(DuckDbInteropTest::row).toList();
    List<String> theirs = TestServer.rows(duck, q.replace("t_zstd", "'" + dir.resolve("t_zstd.parquet") + "'"))
        .stream().map(DuckDbInteropTest::row).toList();
    assertThat(mine).isNotEmpty().containsExactlyInAnyOrderElementsOf(theirs);
  }

  @Test
  void sortedColumnPrunesAndNanHazardDoesNot() throws Exception {
    Map<String, Long> m = TestServer.scanMetrics(quiver, "SELECT count(*) FROM t_snappy WHERE i32 > 15000");
    assertThat(m.get("row_groups_total")).isEqualTo(10);
    assertThat(m.get("row_groups_pruned_statistics")).isEqualTo(7);
    // DuckDB leaves NaN out of min/max; 'd > 0.75' must not prune groups that only hold NaN above 0.75
    assertThat(TestServer.scanMetrics(quiver, "SELECT count(*) FROM t_snappy WHERE d > 0.999").get("row_groups_pruned"))
        .isZero();
  }

  private static String row(List<Object> r) {
    StringBuilder sb = new StringBuilder();
    for (Object o : r) sb.append(normalize(o)).append('|');
    return sb.toString();
  }

  /** A value as comparable text: numbers by value, dates and timestamps by their ISO text. */
  static String normalize(Object o) {
    if (o == null) return "NULL";
    if (o instanceof java.sql.Blob b) {
      try {
        return java.util.HexFormat.of().formatHex(b.getBytes(1, (int) b.length()));
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    if (o instanceof byte[] b) return java.util.HexFormat.of().formatHex(b);
    if (o instanceof Double d) return d.isNaN() ? "NaN" : new BigDecimal(d).round(new java.math.MathContext(12)).stripTrailingZeros().toPlainString();
    if (o instanceof Float f) return normalize((double) f);
    if (o instanceof BigDecimal b) return b.stripTrailingZeros().toPlainString();
    if (o instanceof Number n) return new BigDecimal(n.toString()).stripTrailingZeros().toPlainString();
    if (o instanceof java.sql.Timestamp t) return t.toLocalDateTime().toString();
    if (o instanceof java.time.LocalDateTime t) return t.toString();
    if (o instanceof java.time.OffsetDateTime t) return t.toLocalDateTime().toString();
    if (o instanceof java.sql.Date d) return d.toLocalDate().toString();
    if (o instanceof java.time.LocalDate d) return d.toString();
    return o.toString();
  }
}
