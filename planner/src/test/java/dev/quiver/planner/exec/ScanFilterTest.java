package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.TestTables;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.plan.LogicalPlan;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan's exact filter called from many threads at once, as the scan's pool does: one compiled filter (an
 * IN list long enough to be probed in a hash set, built lazily on the first call) selects the same rows on
 * every thread, equal to a brute-force answer (NaN meets NaN, -0.0 meets 0.0, NULL never matches).
 */
class ScanFilterTest {
  @TempDir
  Path dir;
  final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  static final double[] ITEMS = {0.0, 1.5, Double.NaN, 2, 3, 4, 5, 6, 7, 8};

  static boolean brute(Double x) {
    if (x == null) return false;
    for (double i : ITEMS) if (x.isNaN() ? Double.isNaN(i) : x == i) return true;
    return false;
  }

  @Test
  void selectsTheSameRowsFromManyThreadsAtOnce() throws Exception {
    QueryEngine engine = new QueryEngine(TestTables.create(dir));
    LogicalPlan p = engine.prepare("SELECT i32 FROM t WHERE f64 IN (0.0, 1.5, CAST('NaN' AS DOUBLE), 2, 3, 4, 5, 6, 7, 8)",
        allocator).plan();
    while (!(p instanceof LogicalPlan.TableScan)) p = p.children().get(0);
    LogicalPlan.TableScan scan = (LogicalPlan.TableScan) p;
    assertThat(scan.exact()).hasSize(1);
    int n = 4_096;
    int threads = 8;
    java.util.Random r = new java.util.Random(20261201);
    Double[] pool = {null, Double.NaN, -0.0, 0.0, 1.5, -1.5, 2.0, 8.0, 9.0, 7.5, Double.POSITIVE_INFINITY};
    for (int round = 0; round < 5; round++) {
      Double[] values = new Double[n];
      boolean[] expected = new boolean[n];
      int expectedCount = 0;
      for (int i = 0; i < n; i++) {
        values[i] = pool[r.nextInt(pool.length)];
        expected[i] = brute(values[i]);
        if (expected[i]) expectedCount++;
      }
      assertThat(expectedCount).isBetween(n / 10, n - n / 10);
      ScanFilter filter = ScanFilter.of(scan, EvalContext.utcNow()); // fresh: its hash set not built yet
      assertThat(filter.columns()).containsExactly("f64");
      List<VectorSchemaRoot> batches = new ArrayList<>();
      ExecutorService executor = Executors.newFixedThreadPool(threads);
      try {
        for (int t = 0; t < threads; t++) {
          Float8Vector v = new Float8Vector("f64", allocator);
          batches.add(new VectorSchemaRoot(List.of(v.getField()), List.<FieldVector>of(v), 0));
          v.allocateNew(n);
          for (int i = 0; i < n; i++) if (values[i] != null) v.set(i, values[i]);
          v.setValueCount(n);
          batches.get(t).setRowCount(n);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Future<boolean[]>> results = new ArrayList<>();
        for (VectorSchemaRoot b : batches) {
          results.add(executor.submit(() -> {
            start.await();
            boolean[] keep = new boolean[n];
            int count = filter.select(b, allocator, keep);
            assertThat(count).isEqualTo(countOf(keep));
            return keep;
          }));
        }
        start.countDown();
        for (Future<boolean[]> f : results) assertThat(f.get()).isEqualTo(expected);
      } finally {
        executor.shutdown();
        batches.forEach(VectorSchemaRoot::close);
      }
    }
  }

  private static int countOf(boolean[] keep) {
    int c = 0;
    for (boolean k : keep) if (k) c++;
    return c;
  }
}
