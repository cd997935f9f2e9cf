package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.SpillDirectory;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A final aggregation whose own reservation is refused in the middle of a batch (one batch of many new groups while
 * other memory holds most of the limit, so the check before the batch did not fire) spills then: the groups so far
 * as states and the rows of the batch not yet folded (FinalAggregateExec.OutOfRoom). The answer equals the same
 * aggregation with room, and the spill directory is empty after.
 */
class FinalAggregateSpillTest {
  @TempDir
  Path spillDir;

  static final Schema RAW = new Schema(List.of(new Field("k", FieldType.nullable(SqlTypes.BIGINT), null),
      new Field(PartialAggregate.RAW_PREFIX + "1", FieldType.nullable(SqlTypes.BIGINT), null)));
  static final Schema OUT = new Schema(List.of(new Field("k", FieldType.nullable(SqlTypes.BIGINT), null),
      new Field("c", FieldType.nullable(SqlTypes.BIGINT), null),
      new Field("m", FieldType.nullable(SqlTypes.BIGINT), null)));
  static final List<AggregateCall> CALLS = List.of(
      new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, "c"),
      new AggregateCall(AggFunc.MAX, new Expr.ColumnRef("x", SqlTypes.BIGINT, true), SqlTypes.BIGINT, "m"));

  static Schema stateSchema() {
    return new Schema(List.of(RAW.getFields().get(0),
        new Field("__state0_count", FieldType.nullable(SqlTypes.BIGINT), null),
        new Field("__state1_max", FieldType.nullable(SqlTypes.BIGINT), null)));
  }

  /** Rows passed through: 60,000 keys in one batch (most of them new), then batches repeating some. */
  static List<Object[]> rows() {
    Random r = new Random(43);
    List<Object[]> rows = new ArrayList<>();
    for (long k = 0; k < 60_000; k++) rows.add(new Object[] {k * 31, r.nextInt(10) == 0 ? null : r.nextLong()});
    for (int i = 0; i < 20_000; i++) rows.add(new Object[] {(long) r.nextInt(80_000) * 31, r.nextLong()});
    return rows;
  }

  static Map<Long, List<Object>> run(BufferAllocator allocator, long reserveFirst, boolean[] spilled) {
    Map<Long, List<Object>> out = new java.util.TreeMap<>();
    List<Object[]> rows = rows();
    List<VectorSchemaRoot> batches = new ArrayList<>();
    batches.addAll(RowBatches.of(RAW, rows.subList(0, 60_000), new Random(1), 60_000, allocator));
    batches.addAll(RowBatches.of(RAW, rows.subList(60_000, rows.size()), new Random(2), 4_000, allocator));
    List<ArrowBuf> other = new ArrayList<>(); // what the rest of the query holds, in 1 MiB buffers
    for (long held = 0; held < reserveFirst; held += 1 << 20) other.add(allocator.buffer(1 << 20));
    try (FinalAggregateExec agg = new FinalAggregateExec(new RowBatches.Source(RAW, batches), OUT, stateSchema(), 1,
        CALLS, "test", allocator, 8_192, List.of())) {
      VectorSchemaRoot next;
      while ((next = agg.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) {
            out.put((Long) b.getVector(0).getObject(i), List.of(b.getVector(1).getObject(i),
                String.valueOf(b.getVector(2).getObject(i))));
          }
        }
      }
      spilled[0] = agg.metrics().containsKey("spilled_bytes");
    } finally {
      other.forEach(ArrowBuf::close);
    }
    return out;
  }

  /**
   * 600,000 groups at 1 MiB: the 16 partitions of the first spill hold about 37,500 groups each, more than the
   * memory holds, so each is split again into 16 (by other bits of the hash) and those are aggregated one by one.
   * Every group's count and max equal a brute-force count over the rows.
   */
  @Test
  void aPartitionTooBigForMemoryIsSplitAgain() throws Exception {
    Path before = SpillDirectory.get();
    SpillDirectory.set(spillDir);
    try (BufferAllocator root = new RootAllocator(1L << 30);
        BufferAllocator a = root.newChildAllocator("aggregation", 0, 1L << 20)) {
      Random r = new Random(11);
      List<Object[]> rows = new ArrayList<>();
      Map<Long, long[]> expected = new java.util.HashMap<>();
      for (int i = 0; i < 660_000; i++) {
        long k = (long) r.nextInt(600_000) * 131;
        long x = r.nextLong();
        rows.add(new Object[] {k, x});
        expected.merge(k, new long[] {1, x}, (o, n) -> new long[] {o[0] + 1, Math.max(o[1], n[1])});
      }
      Map<String, Long> metrics;
      long groups = 0;
      try (FinalAggregateExec agg = new FinalAggregateExec(new RowBatches.Source(RAW,
          RowBatches.of(RAW, rows, new Random(5), 8_192, root)), OUT, stateSchema(), 1, CALLS, "test", a, 8_192,
          List.of())) {
        VectorSchemaRoot next;
        while ((next = agg.next()) != null) {
          try (VectorSchemaRoot b = next) {
            for (int i = 0; i < b.getRowCount(); i++) {
              long[] e = expected.get((Long) b.getVector(0).getObject(i));
              assertThat(e).isNotNull();
              assertThat(b.getVector(1).getObject(i)).isEqualTo(e[0]);
              assertThat(b.getVector(2).getObject(i)).isEqualTo(e[1]);
              groups++;
            }
          }
        }
        metrics = agg.metrics();
      }
      assertThat(groups).isEqualTo(expected.size());
      assertThat(metrics.get("spill_partitions")).as("split again").isGreaterThan(AggregateSpill.PARTITIONS);
      try (Stream<Path> left = Files.list(spillDir)) {
        assertThat(left).isEmpty();
      }
    } finally {
      SpillDirectory.set(before);
    }
  }

  @Test
  void refusedInTheMiddleOfABatchItSpillsTheRestOfIt() throws Exception {
    Path before = SpillDirectory.get();
    SpillDirectory.set(spillDir);
    try {
      boolean[] spilled = new boolean[1];
      Map<Long, List<Object>> roomy;
      try (BufferAllocator a = new RootAllocator(1L << 30)) {
        roomy = run(a, 1 << 20, spilled);
      }
      assertThat(spilled[0]).isFalse();
      assertThat(roomy).hasSize(60_000 + (int) rows().stream().skip(60_000).map(r -> r[0]).distinct()
          .filter(k -> (Long) k >= 60_000L * 31).count());
      try (BufferAllocator a = new RootAllocator(8L << 20)) {
        // 5 MiB held elsewhere: the check before the first batch sees too little to spill, the batch's groups overflow
        assertThat(run(a, 5L << 20, spilled)).isEqualTo(roomy);
      }
      assertThat(spilled[0]).as("spilled").isTrue();
      try (Stream<Path> left = Files.list(spillDir)) {
        assertThat(left).isEmpty();
      }
    } finally {
      SpillDirectory.set(before);
    }
  }
}
