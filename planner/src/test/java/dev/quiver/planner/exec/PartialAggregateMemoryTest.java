package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.QuiverException;
import dev.quiver.planner.Cancellation;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.types.SqlTypes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A scan task's partial aggregation whose memory is refused passes its rows through instead of failing the query:
 * the states of the groups so far, then the rows not folded, which the final aggregation folds. Fed to {@link
 * FinalAggregateExec}, the answer equals a brute-force count and max per key, and the same task with room.
 */
class PartialAggregateMemoryTest {
  static final Schema INPUT = new Schema(List.of(new Field("k", FieldType.nullable(SqlTypes.BIGINT), null),
      new Field("x", FieldType.nullable(SqlTypes.BIGINT), null)));

  /** 8 batches of 50,000 rows, each over 20,000 keys of its own (the aggregation reduces: it never passes by ratio). */
  static List<Object[]> rows() {
    Random r = new Random(7);
    List<Object[]> rows = new ArrayList<>();
    for (int b = 0; b < 8; b++) {
      for (int i = 0; i < 50_000; i++) {
        long k = b * 20_000L + r.nextInt(20_000);
        rows.add(new Object[] {k * 7, r.nextInt(9) == 0 ? null : (long) r.nextInt()});
      }
    }
    return rows;
  }

  /** The answer per key: [count(*), max(x)], computed row by row. */
  static Map<Long, List<Object>> bruteForce(List<Object[]> rows) {
    Map<Long, Long> counts = new TreeMap<>();
    Map<Long, Long> max = new TreeMap<>();
    for (Object[] row : rows) {
      long k = (Long) row[0];
      counts.merge(k, 1L, Long::sum);
      if (row[1] != null) max.merge(k, (Long) row[1], Math::max);
      else max.putIfAbsent(k, null);
    }
    Map<Long, List<Object>> out = new TreeMap<>();
    for (Long k : counts.keySet()) out.put(k, Arrays.asList(counts.get(k), String.valueOf(max.get(k))));
    return out;
  }

  /** Runs one task over the rows with {@code taskLimit} bytes, then the final aggregation with room. */
  static Map<Long, List<Object>> run(long taskLimit, long[] passed, boolean withHint) {
    EvalContext ctx = EvalContext.now(java.time.ZoneOffset.UTC);
    PhysicalExpr k = ExprCompiler.compile(new Expr.ColumnRef("k", SqlTypes.BIGINT, true), INPUT, ctx);
    PhysicalExpr x = ExprCompiler.compile(new Expr.ColumnRef("x", SqlTypes.BIGINT, true), INPUT, ctx);
    PartialAggregate.Spec spec = new PartialAggregate.Spec(List.of(k), Arrays.asList(null, x),
        FinalAggregateSpillTest.CALLS, List.of(SqlTypes.BIGINT), FinalAggregateSpillTest.stateSchema());
    Map<Long, List<Object>> out = new TreeMap<>();
    try (BufferAllocator root = new RootAllocator(1L << 30);
        BufferAllocator taskMemory = root.newChildAllocator("task", 0, taskLimit)) {
      List<VectorSchemaRoot> input = RowBatches.of(INPUT, rows(), new Random(3), 50_000, root);
      List<VectorSchemaRoot> emitted = new ArrayList<>();
      try (PartialAggregate.Task task = new PartialAggregate.Task(spec, taskMemory, Cancellation.NONE,
          withHint ? new PartialAggregate.SizeHint(1) : null)) {
        try {
          for (VectorSchemaRoot b : input) task.add(b, emitted);
        } finally {
          input.forEach(VectorSchemaRoot::close);
        }
        VectorSchemaRoot last = task.emit();
        if (last != null) emitted.add(last);
        passed[0] = task.passed();
      } catch (RuntimeException | Error e) {
        emitted.forEach(VectorSchemaRoot::close);
        throw e;
      }
      // the final aggregation takes states and passed rows alike (their schemas differ: states, then raw rows)
      try (FinalAggregateExec agg = new FinalAggregateExec(new RowBatches.Source(emitted.get(0).getSchema(), emitted),
          FinalAggregateSpillTest.OUT, FinalAggregateSpillTest.stateSchema(), 1, FinalAggregateSpillTest.CALLS, "test",
          root, 8_192, List.of())) {
        VectorSchemaRoot next;
        while ((next = agg.next()) != null) {
          try (VectorSchemaRoot b = next) {
            for (int i = 0; i < b.getRowCount(); i++) {
              out.put((Long) b.getVector(0).getObject(i), Arrays.asList(b.getVector(1).getObject(i),
                  String.valueOf(b.getVector(2).getObject(i))));
            }
          }
        }
      }
    }
    return out;
  }

  @Test
  void aTaskRefusedMemoryPassesItsRowsThrough() {
    Map<Long, List<Object>> expected = bruteForce(rows());
    long[] passed = new long[1];
    assertThat(run(1L << 30, passed, true)).isEqualTo(expected);
    assertThat(passed[0]).as("with room, nothing passed through").isZero();
    assertThat(run(6L << 20, passed, true)).isEqualTo(expected);
    assertThat(passed[0]).as("refused, the rest passed through").isPositive().isLessThan(400_000);
  }

  @Test
  void withoutAFinalAggregationThatTakesRowsTheRefusalStillFails() {
    assertThatThrownBy(() -> run(6L << 20, new long[1], false)).isInstanceOf(QuiverException.class)
        .hasMessageContaining("needs more memory");
  }
}
