package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * The scan runs a {@link BatchPipeline} per row-group task on its threads: what the pipelines emit comes out in
 * row-group order, every pipeline is closed (after finish, or on an error), and an exception thrown in a pipeline
 * reaches the scan's consumer as it is, with nothing leaked.
 */
class BatchPipelineTest {
  static final MessageType SCHEMA = Types.buildMessage().required(PrimitiveTypeName.INT64).named("x").named("t");
  static final int GROUPS = 12;
  static final int GROUP = 500;

  @TempDir
  static Path dir;
  static Catalog catalog;

  @BeforeAll
  static void write() throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<org.apache.parquet.example.data.Group> w = ExampleParquetWriter.builder(
        new LocalOutputFile(dir.resolve("t.parquet"))).withType(SCHEMA).withRowGroupRowCountLimit(GROUP).build()) {
      for (long x = 0; x < GROUPS * GROUP; x++) w.write(f.newGroup().append("x", x));
    }
    catalog = Catalog.open(dir.toString());
  }

  /** Sums each task's rows into one row (its first value, its sum); fails on the value {@code failAt}. */
  static final class SumPerTask implements BatchPipeline.Factory {
    final BufferAllocator allocator;
    final long failAt;
    final AtomicInteger open = new AtomicInteger();

    SumPerTask(BufferAllocator allocator, long failAt) {
      this.allocator = allocator;
      this.failAt = failAt;
    }

    @Override
    public BatchPipeline create() {
      open.incrementAndGet();
      return new BatchPipeline() {
        long first = -1;
        long sum;

        @Override
        public void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
          try (batch) {
            BigIntVector x = (BigIntVector) batch.getVector(0);
            for (int i = 0; i < batch.getRowCount(); i++) {
              if (x.get(i) == failAt) throw new QuiverException(ErrorCode.DATA_ERROR, "failed at " + failAt);
              if (first < 0) first = x.get(i);
              sum += x.get(i);
            }
          }
        }

        @Override
        public void finish(List<VectorSchemaRoot> out) {
          VectorSchemaRoot r = VectorSchemaRoot.create(new org.apache.arrow.vector.types.pojo.Schema(List.of(
              org.apache.arrow.vector.types.pojo.Field.nullable("first", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)),
              org.apache.arrow.vector.types.pojo.Field.nullable("sum", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)))),
              allocator);
          ((BigIntVector) r.getVector(0)).setSafe(0, first);
          ((BigIntVector) r.getVector(1)).setSafe(0, sum);
          r.setRowCount(1);
          out.add(r);
        }

        @Override
        public void close() {
          open.decrementAndGet();
        }
      };
    }
  }

  @Test
  void eachTaskRunsItsPipelineAndTheirOutputsComeInOrder() {
    try (BufferAllocator allocator = new RootAllocator(); ScanOptions options = ScanOptions.create(3, true, true)) {
      SumPerTask pipeline = new SumPerTask(allocator, -1);
      List<long[]> rows = new ArrayList<>();
      try (ParquetScan scan = new ParquetScan(catalog, catalog.table("t"), List.of("x"), new ScanPredicate.Const(true),
          allocator, new ScanMetrics(), 128, true, options).withPipeline(pipeline)) {
        for (VectorSchemaRoot b = scan.next(); b != null; b = scan.next()) {
          try (VectorSchemaRoot r = b) {
            rows.add(new long[] {((BigIntVector) r.getVector(0)).get(0), ((BigIntVector) r.getVector(1)).get(0)});
          }
        }
      }
      assertThat(rows).hasSize(GROUPS);
      for (int g = 0; g < GROUPS; g++) {
        long lo = (long) g * GROUP;
        long hi = lo + GROUP - 1;
        assertThat(rows.get(g)).containsExactly(lo, (lo + hi) * GROUP / 2);
      }
      assertThat(pipeline.open.get()).as("every pipeline closed").isZero();
    }
  }

  @Test
  void anErrorInAPipelineReachesTheConsumerAsItIs() {
    try (BufferAllocator allocator = new RootAllocator(); ScanOptions options = ScanOptions.create(3, true, true)) {
      SumPerTask pipeline = new SumPerTask(allocator, 7 * GROUP + 300);
      try (ParquetScan scan = new ParquetScan(catalog, catalog.table("t"), List.of("x"), new ScanPredicate.Const(true),
          allocator, new ScanMetrics(), 128, true, options).withPipeline(pipeline)) {
        assertThatThrownBy(() -> {
          for (VectorSchemaRoot b = scan.next(); b != null; b = scan.next()) b.close();
        }).isInstanceOf(QuiverException.class).hasMessage("failed at " + (7 * GROUP + 300))
            .extracting(e -> ((QuiverException) e).code()).isEqualTo(ErrorCode.DATA_ERROR);
      }
      assertThat(pipeline.open.get()).as("every pipeline closed").isZero();
    } // the allocator's close fails on a leak
  }
}
