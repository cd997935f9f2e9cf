package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dependent subqueries (correlated IN / ANY as values, correlation in the select list, non-aggregate scalar
 * subqueries, LATERAL) over two 10,000-row tables are planned once per distinct outer value and joined back by
 * hash, not re-run per outer row: each answers in seconds (a per-row re-execution or a nested-loop join would
 * compare 10^8 pairs), its physical plan has no join without keys, and its answer equals the one computed here by
 * plain Java maps.
 */
class DependentSubqueryScaleTest {
  static final int N = 10_000;
  @TempDir
  static Path dir;
  static QueryEngine engine;
  /** b's rows by key: each key of a has zero, one or two rows in b. */
  static final Map<Long, List<Long>> B = new HashMap<>();
  static final long[] AK = new long[N];
  static final Long[] AV = new Long[N];

  static final MessageType T = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("k")
      .optional(PrimitiveTypeName.INT64).named("v")
      .required(PrimitiveTypeName.INT64).named("n")
      .named("t");
  /** b's value of row number 2k (the first of key k), by k. */
  static final Map<Long, Long> FIRST = new HashMap<>();

  @BeforeAll
  static void write() throws IOException {
    SimpleGroupFactory g = new SimpleGroupFactory(T);
    try (ParquetWriter<Group> a = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("a.parquet"))).withType(T).build();
         ParquetWriter<Group> b = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("b.parquet"))).withType(T).build()) {
      for (int i = 0; i < N; i++) {
        AK[i] = i;
        AV[i] = i % 13 == 0 ? null : (long) (i * 7 % 101);
        Group row = g.newGroup().append("k", AK[i]).append("n", (long) i);
        if (AV[i] != null) row.append("v", AV[i]);
        a.write(row);
        // b: key i/2 (two rows per key for the lower half of a's keys), values with some NULLs
        long bk = i / 2;
        Long bv = i % 17 == 0 ? null : (long) (i * 11 % 103);
        Group brow = g.newGroup().append("k", bk).append("n", (long) i);
        if (i % 2 == 0) FIRST.put(bk, bv);
        if (bv != null) brow.append("v", bv);
        b.write(brow);
        B.computeIfAbsent(bk, x -> new ArrayList<>()).add(bv);
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()));
  }

  @Test
  void correlatedInAsAValue() {
    // three-valued: TRUE when found, NULL when not found and a NULL is about, FALSE otherwise
    long[] expected = new long[3];
    for (int i = 0; i < N; i++) {
      List<Long> items = B.getOrDefault(AK[i], List.of());
      Boolean in;
      if (items.isEmpty()) {
        in = false;
      } else if (AV[i] != null && items.contains(AV[i])) {
        in = true;
      } else {
        in = AV[i] == null || items.contains(null) ? null : false;
      }
      // ... OR v > 1000: never TRUE, NULL when v is
      Boolean m = Boolean.TRUE.equals(in) ? Boolean.TRUE : AV[i] == null ? null : in;
      expected[m == null ? 2 : m ? 0 : 1]++;
    }
    assertAnswer("SELECT count(*) FILTER (WHERE m), count(*) FILTER (WHERE NOT m), count(*) FILTER (WHERE m IS NULL) "
        + "FROM (SELECT v IN (SELECT b.v FROM b WHERE b.k = a.k) OR v > 1000 AS m FROM a) q",
        List.of(expected[0], expected[1], expected[2]));
  }

  @Test
  void correlatedAnyAsAValue() {
    long expected = 0;
    for (int i = 0; i < N; i++) {
      List<Long> items = B.getOrDefault(AK[i], List.of());
      if (AV[i] == null) continue;
      long v = AV[i];
      if (items.stream().anyMatch(x -> x != null && v < x)) expected++;
    }
    assertAnswer("SELECT count(*) FROM a WHERE v < ANY (SELECT b.v FROM b WHERE b.k = a.k) OR k < 0", List.of(expected));
  }

  @Test
  void nonAggregateScalarSubquery() {
    // one row per key for the lower half of a's keys (b's even rows), none for the others
    long count = 0;
    long sum = 0;
    for (int i = 0; i < N; i++) {
      Long x = FIRST.get(AK[i]);
      if (x != null) {
        count++;
        sum += x;
      }
    }
    assertAnswer("SELECT count(x), sum(x) FROM (SELECT (SELECT b.v FROM b WHERE b.k = a.k AND b.n % 2 = 0) AS x FROM a) q",
        List.of(count, sum));
    // two rows for a key: the query fails, naming the problem
    try {
      run("SELECT sum(x) FROM (SELECT (SELECT b.v FROM b WHERE b.k = a.k) AS x FROM a) q");
      throw new AssertionError("no error");
    } catch (dev.quiver.common.QuiverException e) {
      assertThat(e.code()).isEqualTo(dev.quiver.common.ErrorCode.DATA_ERROR);
      assertThat(e.getMessage()).contains("more than one row returned by a subquery used as an expression");
    }
  }

  @Test
  void correlationInTheSelectList() {
    long sum = 0;
    for (int i = 0; i < N; i++) {
      List<Long> items = B.getOrDefault(AK[i], List.of());
      // count(b.v) + a.k: a count over no rows is 0
      sum += items.stream().filter(x -> x != null).count() + AK[i];
    }
    assertAnswer("SELECT sum(x) FROM (SELECT (SELECT count(b.v) + a.k FROM b WHERE b.k = a.k) AS x FROM a) q", List.of(sum));
  }

  @Test
  void lateral() {
    long rows = 0;
    long sum = 0;
    for (int i = 0; i < N; i++) {
      for (Long x : B.getOrDefault(AK[i], List.of())) {
        rows++;
        if (x != null) sum += x + AK[i];
      }
    }
    assertAnswer("SELECT count(*), sum(s.w) FROM a, LATERAL (SELECT b.v + a.k AS w FROM b WHERE b.k = a.k) s",
        List.of(rows, sum));
  }

  @Test
  void nestedLateralSubqueries() {
    // each correlated level is planned twice (its outer columns found first): nesting is bounded by the parse cost
    // (7 levels of subqueries), and the planner refuses past 20,000 plans as a safety net
    assertThat(run(nestedLateral(4))).containsExactly(List.of(1L));
  }

  /** {@code SELECT count(*) FROM a a0, LATERAL (SELECT a1.k FROM a a1, LATERAL (…) WHERE a1.k = a0.k) …}, {@code depth} levels. */
  private static String nestedLateral(int depth) {
    String inner = "SELECT a" + depth + ".k FROM a a" + depth + " WHERE a" + depth + ".k = a" + (depth - 1) + ".k AND a"
        + depth + ".k = 7";
    for (int i = depth - 1; i >= 1; i--) {
      inner = "SELECT a" + i + ".k FROM a a" + i + ", LATERAL (" + inner + ") s" + (i + 1) + " WHERE a" + i + ".k = a" + (i - 1)
          + ".k";
    }
    return "SELECT count(*) FROM a a0, LATERAL (" + inner + ") s1";
  }

  /** Runs {@code sql} (bounded: seconds, where a quadratic plan takes minutes) and checks its one row, if given. */
  private static void assertAnswer(String sql, List<Long> expected) {
    String plan = String.join("\n", run("EXPLAIN " + sql).stream().map(r -> String.valueOf(r.get(0))).toList());
    assertThat(plan).as(plan).doesNotContain("keys=[]");
    long start = System.nanoTime();
    List<List<Object>> rows = run(sql);
    long seconds = (System.nanoTime() - start) / 1_000_000_000L;
    assertThat(seconds).as("seconds for " + sql).isLessThan(60);
    assertThat(rows).hasSize(1);
    List<Long> actual = new ArrayList<>();
    for (Object o : rows.get(0)) actual.add(o == null ? null : ((Number) o).longValue());
    assertThat(actual).as(sql).isEqualTo(expected);
  }

  /** Runs {@code sql}; the allocator is closed after, so a leak fails the test. */
  private static List<List<Object>> run(String sql) {
    try (BufferAllocator allocator = new RootAllocator(256 << 20)) {
      return TestTables.run(engine, allocator, sql);
    }
  }
}
