package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Joins emit their output in batches of at most the session's batch rows, resuming the probe between
 * batches (in the middle of one probe row's matches, too): every join type, hash and nested-loop, gives
 * the same rows as a brute-force nested loop over {@link TestTables}' rows whatever the batch size, and
 * no batch is larger than the bound.
 */
class BoundedJoinOutputTest extends EngineTest {
  static final List<Object[]> ROWS = TestTables.rows();

  /** Rows of {@code sql} run with {@code batchRows}; asserts that no batch exceeds it. */
  private List<String> run(String sql, int batchRows) {
    List<String> out = new ArrayList<>();
    PreparedQuery q = engine.prepare(sql, allocator, QuerySettings.DEFAULT.withBatchRows(batchRows));
    try (QueryExecution ex = engine.execute(q, allocator)) {
      VectorSchemaRoot next;
      while ((next = ex.next()) != null) {
        try (VectorSchemaRoot b = next) {
          assertThat(b.getRowCount()).as("rows of one batch of %s", sql).isLessThanOrEqualTo(batchRows);
          for (int i = 0; i < b.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (var v : b.getFieldVectors()) row.add(v.getObject(i));
            out.add(row.toString());
          }
        }
      }
    }
    return out;
  }

  private static String row(Object... values) {
    List<Object> l = new ArrayList<>();
    for (Object v : values) l.add(v);
    return l.toString();
  }

  private static Boolean eqInt(Object a, Object b) {
    return a == null || b == null ? null : a.equals(b);
  }

  /** SQL {@code a < b} on doubles (NaN above every number, NaN = NaN). */
  private static boolean lessDouble(Object a, Object b) {
    if (a == null || b == null) return false;
    double x = (Double) a;
    double y = (Double) b;
    return x != y && Double.compare(x, y) < 0 && !(Double.isNaN(x) && Double.isNaN(y));
  }

  /** Brute-force {@code t a <type> JOIN t b ON on(a, b)} listing (a.i32, a.f64, b.i32, b.f64). */
  private static List<String> nestedLoop(String type, BiPredicate<Object[], Object[]> on) {
    List<String> expected = new ArrayList<>();
    boolean[] rightMatched = new boolean[ROWS.size()];
    for (Object[] a : ROWS) {
      boolean matched = false;
      for (int j = 0; j < ROWS.size(); j++) {
        Object[] b = ROWS.get(j);
        if (on.test(a, b)) {
          matched = true;
          rightMatched[j] = true;
          expected.add(row(a[1], a[3], b[1], b[3]));
        }
      }
      if (!matched && (type.equals("LEFT") || type.equals("FULL"))) expected.add(row(a[1], a[3], null, null));
    }
    if (type.equals("RIGHT") || type.equals("FULL")) {
      for (int j = 0; j < ROWS.size(); j++) if (!rightMatched[j]) expected.add(row(null, null, ROWS.get(j)[1], ROWS.get(j)[3]));
    }
    return expected;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 1_000_000})
  void hashJoinsOfEveryTypeGiveTheSameRowsInBoundedBatches(int batchRows) {
    // i8 has few distinct values: a fan-out of many build rows per probe row, cut across batches
    BiPredicate<Object[], Object[]> on = (a, b) -> Boolean.TRUE.equals(eqInt(a[0], b[0])) && lessDouble(a[3], b[3]);
    for (String type : List.of("INNER", "LEFT", "RIGHT", "FULL")) {
      assertThat(run("SELECT a.i32, a.f64, b.i32, b.f64 FROM t a " + type + " JOIN t b ON a.i8 = b.i8 AND a.f64 < b.f64",
          batchRows)).as(type).containsExactlyInAnyOrderElementsOf(nestedLoop(type, on));
    }
    BiPredicate<Object[], Object[]> keyOnly = (a, b) -> Boolean.TRUE.equals(eqInt(a[0], b[0]));
    assertThat(run("SELECT a.i32, a.f64, b.i32, b.f64 FROM t a JOIN t b ON a.i8 = b.i8", batchRows))
        .containsExactlyInAnyOrderElementsOf(nestedLoop("INNER", keyOnly));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 1_000_000})
  void nestedLoopJoinsOfEveryTypeGiveTheSameRowsInBoundedBatches(int batchRows) {
    BiPredicate<Object[], Object[]> on = (a, b) -> lessDouble(a[3], b[3]);
    for (String type : List.of("INNER", "LEFT", "RIGHT", "FULL")) {
      assertThat(run("SELECT a.i32, a.f64, b.i32, b.f64 FROM t a " + type + " JOIN t b ON a.f64 < b.f64", batchRows))
          .as(type).containsExactlyInAnyOrderElementsOf(nestedLoop(type, on));
    }
    assertThat(run("SELECT a.i32, a.f64, b.i32, b.f64 FROM t a CROSS JOIN t b", batchRows))
        .containsExactlyInAnyOrderElementsOf(nestedLoop("INNER", (a, b) -> true));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 1_000_000})
  void semiAntiAndNullAwareAntiJoinsInBoundedBatches(int batchRows) {
    List<String> exists = new ArrayList<>();
    List<String> notExists = new ArrayList<>();
    for (Object[] a : ROWS) {
      boolean any = ROWS.stream().anyMatch(b -> Boolean.TRUE.equals(eqInt(a[0], b[0])) && lessDouble(a[3], b[3]));
      (any ? exists : notExists).add(row(a[1], a[3]));
    }
    assertThat(run("SELECT a.i32, a.f64 FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.i8 = a.i8 AND a.f64 < b.f64)",
        batchRows)).containsExactlyInAnyOrderElementsOf(exists);
    assertThat(run("SELECT a.i32, a.f64 FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.i8 = a.i8 AND a.f64 < b.f64)",
        batchRows)).containsExactlyInAnyOrderElementsOf(notExists);
    // NOT IN over a subquery without NULLs: the rows whose i32 is not positive (NULL i32 is never TRUE)
    List<String> notIn = new ArrayList<>();
    for (Object[] a : ROWS) if (a[1] != null && (Integer) a[1] <= 0) notIn.add(row(a[1], a[3]));
    assertThat(run("SELECT i32, f64 FROM t WHERE i32 NOT IN (SELECT i32 FROM t WHERE i32 > 0)", batchRows))
        .containsExactlyInAnyOrderElementsOf(notIn);
  }

  @Test
  void aLimitOverAFanOutJoinStopsPullingAfterItsRows() {
    // 56 x 56 candidate pairs; with 7-row batches the limit is reached in the first batches
    assertThat(run("SELECT a.i32, b.i32 FROM t a CROSS JOIN t b LIMIT 10", 7)).hasSize(10);
  }

  @Test
  void aNestedLoopJoinChecksCancellationAtLeastOncePerBatchOfCandidates() {
    // 56 x 56 x 56 = 175,616 candidate pairs, all rejected by the condition: no output batch at all, so a
    // check per output batch (before) was a check per input batch only (a few dozen)
    AtomicInteger checks = new AtomicInteger();
    PreparedQuery q = engine.prepare("SELECT count(*) FROM t a, t b, t c WHERE a.f64 + b.f64 + c.f64 > 1e300",
        allocator, QuerySettings.DEFAULT.withBatchRows(64));
    try (QueryExecution ex = engine.execute(q, allocator, checks::incrementAndGet)) {
      VectorSchemaRoot b;
      while ((b = ex.next()) != null) b.close();
    }
    assertThat(checks.get()).isGreaterThanOrEqualTo(56 * 56 * 56 / 64);
  }

  @Test
  void aJoinCancelledInTheMiddleOfAProbeBatchReleasesItsMemory() {
    AtomicInteger checks = new AtomicInteger();
    Cancellation cancelLater = () -> {
      if (checks.incrementAndGet() > 200) throw new QuiverException(ErrorCode.CANCELLED, "query cancelled by the client");
    };
    PreparedQuery q = engine.prepare("SELECT count(*) FROM t a, t b, t c WHERE a.f64 + b.f64 + c.f64 > 1e300",
        allocator, QuerySettings.DEFAULT.withBatchRows(64));
    assertThatThrownBy(() -> {
      try (QueryExecution ex = engine.execute(q, allocator, cancelLater)) {
        VectorSchemaRoot b;
        while ((b = ex.next()) != null) b.close();
      }
    }).isInstanceOf(QuiverException.class).hasMessageContaining("cancelled");
    // it stopped at the first check that threw: the thread that threw checks no more, and each other worker thread
    // running a piece of the query at that moment may make at most a few checks before it sees the cancellation
    // (exactly 201 on one thread; CI once saw 202)
    assertThat(checks.get()).isBetween(201, 201 + 4 * Runtime.getRuntime().availableProcessors());
    assertThat(allocator.getAllocatedMemory()).isZero(); // and the allocator closes without a leak
  }
}
