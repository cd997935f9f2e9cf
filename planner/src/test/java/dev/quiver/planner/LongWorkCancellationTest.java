package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Work that runs long between two batches checks the query's cancellation as it goes: sorting, grouping
 * a big input, and ordering many joins at planning time (which is also fast enough to be harmless).
 */
class LongWorkCancellationTest extends EngineTest {

  /** A star of 64 joined tables: every table joined to t0, and a condition on each. */
  private static String star() {
    StringBuilder from = new StringBuilder("t t0");
    StringBuilder where = new StringBuilder("true");
    for (int i = 1; i < 64; i++) {
      from.append(", t t").append(i);
      where.append(" AND t0.i32 = t").append(i).append(".i32 AND t").append(i).append(".f64 < t0.f64 + ").append(i);
    }
    return "SELECT count(*) FROM " + from + " WHERE " + where;
  }

  /** The cancellation checks made while running {@code sql} to its end with 1,000,000-row batches. */
  private int checksWhileRunning(String sql) {
    AtomicInteger checks = new AtomicInteger();
    PreparedQuery q = engine.prepare(sql, allocator, QuerySettings.DEFAULT.withBatchRows(1_000_000));
    try (QueryExecution ex = engine.execute(q, allocator, checks::incrementAndGet)) {
      VectorSchemaRoot b;
      while ((b = ex.next()) != null) b.close();
    }
    return checks.get();
  }

  @Test
  void planningSixtyFourJoinedTablesTakesSecondsNotMinutes() {
    long start = System.nanoTime();
    PreparedQuery q = engine.prepare(star(), allocator);
    long ms = (System.nanoTime() - start) / 1_000_000;
    System.out.println("planned a 64-table star join in " + ms + " ms");
    assertThat(QueryEngine.render(q.plan()).stream().filter(l -> l.contains("TableScan")).count()).isEqualTo(64);
    assertThat(ms).isLessThan(30_000); // it took 100+ s
  }

  @Test
  void planningManyJoinsStopsWhenCancelled() {
    AtomicInteger checks = new AtomicInteger();
    Cancellation cancelSoon = () -> {
      if (checks.incrementAndGet() > 10) throw new QuiverException(ErrorCode.CANCELLED, "query cancelled by the client");
    };
    assertThatThrownBy(() -> engine.prepare(star(), allocator, QuerySettings.DEFAULT, null, cancelSoon))
        .isInstanceOf(QuiverException.class).hasMessageContaining("cancelled");
    assertThat(checks.get()).isEqualTo(11);
    // without a cancel, the same statement checks once per rule and per join placed
    AtomicInteger all = new AtomicInteger();
    engine.prepare(star(), allocator, QuerySettings.DEFAULT, null, all::incrementAndGet);
    assertThat(all.get()).isGreaterThanOrEqualTo(63);
  }

  @Test
  void sortingChecksCancellationAsItCompares() {
    // 175,616 rows: about 3 million comparisons; the joins and the scans check a few dozen times
    String join = " FROM t a, t b, t c";
    int base = checksWhileRunning("SELECT count(*) FROM (SELECT a.i32, b.f64, c.s" + join + ") x");
    int sorted = checksWhileRunning("SELECT count(*) FROM (SELECT a.i32, b.f64, c.s" + join + " ORDER BY c.s, b.f64, a.i32) x");
    System.out.println("checks without / with the sort: " + base + " / " + sorted);
    assertThat(sorted - base).isGreaterThanOrEqualTo(50);
  }

  @Test
  void groupingABigBatchChecksCancellationWithinIt() {
    String join = " FROM t a, t b, t c";
    int base = checksWhileRunning("SELECT count(*)" + join);
    int grouped = checksWhileRunning("SELECT count(*) FROM (SELECT c.s, b.i32, count(*), sum(a.i64)" + join
        + " GROUP BY c.s, b.i32) x");
    System.out.println("checks without / with grouping: " + base + " / " + grouped);
    assertThat(grouped - base).isGreaterThanOrEqualTo(20);
  }

  @Test
  void theScansWorkersCheckCancellationBetweenBatches() {
    // a filter inside the Parquet scan runs on the shared scan pool: its workers check the query's cancellation
    // between batches (they ignored it, and a 30,000-string IN kept them busy for minutes after the client left)
    java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    PreparedQuery q = engine.prepare("SELECT count(*) FROM t WHERE s IN ('s1', 's2')", allocator,
        QuerySettings.DEFAULT.withBatchRows(4));
    try (QueryExecution ex = engine.execute(q, allocator, () -> threads.add(Thread.currentThread().getName()))) {
      VectorSchemaRoot b;
      while ((b = ex.next()) != null) b.close();
    }
    assertThat(threads).anyMatch(n -> n.startsWith("quiver-scan"));
    // a cancel seen by a worker ends the query with that error, every batch released (the allocator checks)
    Cancellation inWorkers = () -> {
      if (Thread.currentThread().getName().startsWith("quiver-scan")) {
        throw new QuiverException(ErrorCode.CANCELLED, "query cancelled by the client");
      }
    };
    PreparedQuery again = engine.prepare("SELECT s FROM t WHERE s IN ('s1', 's2')", allocator,
        QuerySettings.DEFAULT.withBatchRows(4));
    assertThatThrownBy(() -> {
      try (QueryExecution ex = engine.execute(again, allocator, inWorkers)) {
        VectorSchemaRoot b;
        while ((b = ex.next()) != null) b.close();
      }
    }).isInstanceOf(QuiverException.class).hasMessageContaining("cancelled");
  }
}
