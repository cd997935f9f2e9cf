package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.VectorValues;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The first k rows of each partition, kept while batches stream, against a brute force: the rows grouped by their
 * partition value (NULL one partition), each group stably sorted by the order keys and cut to k, the ids of all kept
 * rows in input order. Keys of every family SortExecTest uses (integers with the extremes, doubles with NaN, -0.0 and
 * the infinities, strings), with NULLs and ties, every direction and NULL placement; and with compaction after every
 * batch, so that the kept rows are copied again and again and old batches released.
 */
class PartitionTopKTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final EvalContext ctx = EvalContext.now(ZoneOffset.UTC);

  @AfterEach
  void close() {
    allocator.close();
  }

  private PhysicalExpr column(int c) {
    Field f = SortExecTest.SCHEMA.getFields().get(c);
    return ExprCompiler.compile(new Expr.ColumnRef(f.getName(), f.getType(), true), SortExecTest.SCHEMA, ctx);
  }

  private static List<Long> expected(List<Object[]> rows, Integer partition, List<SortExecTest.Spec> order, int k) {
    Map<Object, List<Object[]>> groups = new LinkedHashMap<>();
    for (Object[] row : rows) {
      Object key = partition == null ? "" : String.valueOf(row[partition]);
      groups.computeIfAbsent(key, x -> new ArrayList<>()).add(row);
    }
    List<Long> ids = new ArrayList<>();
    for (List<Object[]> group : groups.values()) {
      List<Long> sorted = SortExecTest.expected(group, order);
      ids.addAll(sorted.subList(0, Math.min(k, sorted.size())));
    }
    ids.sort(null);
    return ids;
  }

  private List<Long> actual(List<VectorSchemaRoot> batches, Integer partition, List<SortExecTest.Spec> order, int k,
      long compactAt) {
    List<SortExec.Key> keys = new ArrayList<>();
    for (SortExecTest.Spec s : order) {
      keys.add(new SortExec.Key(column(s.column()), SortExecTest.FAMILIES[s.column()], s.ascending(), s.nullsFirst()));
    }
    List<PhysicalExpr> part = partition == null ? List.of() : List.of(column(partition));
    List<ArrowType> types = partition == null ? List.of()
        : List.of(SortExecTest.SCHEMA.getFields().get(partition).getType());
    List<Long> ids = new ArrayList<>();
    try (MemoryReservation memory = new MemoryReservation(allocator, "test");
        PartitionTopK topK = new PartitionTopK(part, types, keys, k, SortExecTest.SCHEMA.getFields(), 300, allocator,
            memory, compactAt)) {
      for (VectorSchemaRoot b : batches) topK.add(b);
      long kept = topK.kept();
      for (VectorSchemaRoot b : topK.finish()) {
        try (VectorSchemaRoot batch = b) {
          assertThat(batch.getRowCount()).isBetween(1, 300);
          VectorValues id = new VectorValues(batch.getVector(0), false);
          for (int i = 0; i < batch.getRowCount(); i++) ids.add((Long) id.getObject(i));
        }
      }
      assertThat(ids).hasSize((int) kept);
    }
    return ids;
  }

  @Test
  void keepsTheFirstRowsOfEachPartitionAsAStableSortDoes() {
    Random r = new Random(28);
    List<List<SortExecTest.Spec>> orders = new ArrayList<>();
    for (int column : new int[] {1, 2, 3, 4}) {
      for (boolean asc : new boolean[] {true, false}) {
        for (boolean nullsFirst : new boolean[] {true, false}) {
          orders.add(List.of(new SortExecTest.Spec(column, asc, nullsFirst)));
          orders.add(List.of(new SortExecTest.Spec(column, asc, nullsFirst),
              new SortExecTest.Spec(1 + r.nextInt(4), r.nextBoolean(), r.nextBoolean())));
        }
      }
    }
    for (int n : new int[] {0, 1, 4_000}) {
      List<Object[]> rows = SortExecTest.rows(r, n);
      for (Integer partition : new Integer[] {null, 3, 4}) {
        for (List<SortExecTest.Spec> order : orders) {
          for (int k : new int[] {1, 3}) {
            for (long compactAt : new long[] {1, PartitionTopK.COMPACT_AT}) {
              List<VectorSchemaRoot> batches = RowBatches.of(SortExecTest.SCHEMA, rows, r, 700, allocator);
              assertThat(actual(batches, partition, order, k, compactAt))
                  .as("%d rows, partition %s, order %s, k %d, compact at %d", n, partition, order, k, compactAt)
                  .isEqualTo(expected(rows, partition, order, k));
            }
          }
        }
      }
    }
  }
}
