package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sums of integers split into the scan's tasks (without GROUP BY, or under one string key taken by dictionary index)
 * keep the rule of the single-phase plan: the answer is the exact total, an error only when that total does not fit
 * BIGINT — whatever a task's own running total did. Row groups of 100 rows (a task each): key {@code a}'s total in
 * the first row groups leaves BIGINT and the later ones bring it back; {@code c}'s does not come back; {@code b} has
 * only NULLs. Expected values are computed here with {@link BigInteger}, and each query is also run single-phase.
 */
class IntegerSumSplitTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  static final List<Object[]> ROWS = new ArrayList<>(); // s (String or null), x (Long or null)
  static final long THIRD = Long.MAX_VALUE / 3;

  static final MessageType SCHEMA = org.apache.parquet.schema.Types.buildMessage()
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.INT64).named("x")
      .named("t");

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("t"));
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t/a.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(100).withPageRowCountLimit(50).withDictionaryEncoding(true)
        .build()) {
      for (int i = 0; i < 1_000; i++) {
        String s;
        Long x;
        if (i < 400) { // the first four row groups: a and c climb past BIGINT
          s = i % 4 == 0 ? "a" : i % 4 == 1 ? "c" : i % 4 == 2 ? "b" : null;
          x = s == null ? Long.valueOf(i) : s.equals("b") ? null : i < 16 ? THIRD : 0L;
        } else { // the next ones: a comes back down, c goes on, padding in between
          s = i % 5 == 0 ? "a" : i % 5 == 1 ? "c" : i % 5 == 2 ? "b" : "pad";
          x = s.equals("b") ? null : s.equals("pad") ? 1L : i < 420 ? (s.equals("a") ? -THIRD : THIRD) : 7L;
        }
        Group row = g.newGroup();
        if (s != null) row.append("s", s);
        if (x != null) row.append("x", x);
        w.write(row);
        ROWS.add(new Object[] {s, x});
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT);
  }

  /** {@code s → sum(x)} of the rows {@code where} keeps, exact ("null" the NULL key; null when no value). */
  static Map<String, BigInteger> expected(Predicate<Object[]> where) {
    Map<String, BigInteger> out = new HashMap<>();
    for (Object[] row : ROWS) {
      if (!where.test(row)) continue;
      String key = String.valueOf(row[0]);
      out.putIfAbsent(key, null);
      if (row[1] != null) out.merge(key, BigInteger.valueOf((Long) row[1]), BigInteger::add);
    }
    return out;
  }

  static Map<String, BigInteger> run(String sql, QuerySettings settings) {
    Map<String, BigInteger> out = new HashMap<>();
    for (List<Object> row : TestTables.run(engine, sql, settings)) {
      out.put(String.valueOf(row.get(0)), row.get(1) == null ? null : BigInteger.valueOf((Long) row.get(1)));
    }
    return out;
  }

  @Test
  void theTotalIsExactWhateverATasksRunningTotalDid() {
    Map<String, BigInteger> want = expected(r -> !"c".equals(r[0]));
    // a's partial totals leave BIGINT in its first tasks; its total (and every other) fits
    // (4 rows of +MAX/3 in the first task, 4 of -MAX/3 in the fifth, then 116 rows of 7)
    assertThat(want.get("a")).isEqualTo(BigInteger.valueOf(7L * 116));
    String sql = "SELECT s, sum(x) FROM t WHERE s IS NULL OR s <> 'c' GROUP BY s";
    assertThat(TestTables.explain(engine, sql, QuerySettings.DEFAULT)).contains("mode=partial");
    assertThat(run(sql, QuerySettings.DEFAULT)).isEqualTo(want);
    assertThat(run(sql, QuerySettings.DEFAULT.withParallelPipelines(false))).isEqualTo(want);
    assertThat(want.get("b")).isNull(); // only NULLs: NULL, split or not
    assertThat(want).containsKey("b");
  }

  @Test
  void anUngroupedSumIsSplitAndExactToo() {
    for (String key : List.of("a", "b", "pad")) {
      String sql = "SELECT '" + key + "', sum(x) FROM t WHERE s = '" + key + "'";
      assertThat(TestTables.explain(engine, sql, QuerySettings.DEFAULT)).as(sql).contains("mode=partial");
      assertThat(run(sql, QuerySettings.DEFAULT)).as(sql).isEqualTo(expected(r -> key.equals(r[0])));
    }
  }

  @Test
  void aTotalPastBigintIsAnErrorSplitOrNot() {
    assertThat(expected(r -> "c".equals(r[0])).get("c")).isGreaterThan(BigInteger.valueOf(Long.MAX_VALUE));
    for (QuerySettings settings : List.of(QuerySettings.DEFAULT, QuerySettings.DEFAULT.withParallelPipelines(false))) {
      assertThatThrownBy(() -> run("SELECT s, sum(x) FROM t GROUP BY s", settings))
          .isInstanceOf(QuiverException.class).hasMessageContaining("sum(x) overflows BIGINT")
          .satisfies(e -> assertThat(((QuiverException) e).code()).isEqualTo(ErrorCode.DATA_ERROR));
    }
  }

  @Test
  void underSeveralKeysOrAnIntegerKeyTheSumStaysSinglePhase() {
    // measured slower split (bench/results/aggregation.md): the tasks' states are many
    for (String sql : List.of("SELECT s, x, sum(x) FROM t WHERE x BETWEEN 0 AND 1000 GROUP BY s, x",
        "SELECT x, sum(x) FROM t WHERE x BETWEEN 0 AND 1000 GROUP BY x")) {
      assertThat(TestTables.explain(engine, sql, QuerySettings.DEFAULT)).as(sql).doesNotContain("mode=partial");
    }
  }
}
