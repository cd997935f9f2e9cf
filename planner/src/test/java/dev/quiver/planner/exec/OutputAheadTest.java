package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * OutputAhead closed while a worker is still building a batch ahead: close waits for that batch and releases it
 * (the builder is held mid-batch by a latch, so the race is not left to chance).
 */
class OutputAheadTest {
  @Test
  void closeWaitsForABatchAWorkerIsBuildingAndReleasesIt() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (BufferAllocator allocator = new RootAllocator()) {
      CountDownLatch building = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      OutputAhead.Builder builder = (from, count) -> {
        if (from > 0) { // the batches after the first: built on a worker, held until released
          building.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        BigIntVector v = new BigIntVector("x", allocator);
        v.allocateNew(count);
        for (int i = 0; i < count; i++) v.set(i, from + i);
        v.setValueCount(count);
        return new VectorSchemaRoot(List.<FieldVector>of(v));
      };
      OutputAhead out = new OutputAhead(builder, 300, 100, pool, 2);
      try (VectorSchemaRoot first = out.next()) {
        assertThat(first.getRowCount()).isEqualTo(100);
      }
      assertThat(building.await(10, TimeUnit.SECONDS)).isTrue();
      Thread closer = new Thread(out::close);
      closer.start();
      closer.join(300);
      assertThat(closer.isAlive()).as("close returned while a worker was building a batch").isTrue();
      release.countDown();
      closer.join(10_000);
      assertThat(closer.isAlive()).isFalse();
      assertThat(allocator.getAllocatedMemory()).isZero(); // the batches built ahead were released
    } finally {
      pool.shutdownNow();
    }
  }
}
