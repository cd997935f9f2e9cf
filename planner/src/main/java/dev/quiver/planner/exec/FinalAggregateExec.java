package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.VectorValues;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The second phase of a two-phase hash aggregation: merges the partial states that the scan's tasks emitted
 * ({@link PartialAggregate}) by group key, then emits the groups (in order of first appearance, as the states
 * arrive in file order) with the aggregates' final values: the same values, NULLs and errors (a sum's overflow is
 * detected when the result is made, as in {@link AggregateExec}) as a single-phase aggregation. Without GROUP BY
 * there is exactly one group, even when no state came.
 */
final class FinalAggregateExec extends Operator {
  private static final int CHUNK = 1 << 12;
  private final Operator input;
  private final Schema schema;
  private final List<AggregateCall> calls;
  private final int nk;
  private final String description;
  private final BufferAllocator allocator;
  private final int batchRows;
  private final MemoryReservation memory;
  private boolean consumed;
  private GroupTable table;
  private GroupedAccumulator[] merged;
  private long[][] counts;
  private int groupCount;
  private int emitted;

  /** The groups output when no state came (see {@link AggregateExec}), and the aggregates' values over no rows. */
  private final List<List<Object>> emptyInputGroups;
  private Object[] emptyValues;

  FinalAggregateExec(Operator input, Schema schema, int keyCount, List<AggregateCall> calls, String description,
      BufferAllocator allocator, int batchRows) {
    this(input, schema, keyCount, calls, description, allocator, batchRows, List.of());
  }

  /** As above; with no state at all, the output is one group per entry of {@code emptyInputGroups} (its keys). */
  FinalAggregateExec(Operator input, Schema schema, int keyCount, List<AggregateCall> calls, String description,
      BufferAllocator allocator, int batchRows, List<List<Object>> emptyInputGroups) {
    this.emptyInputGroups = emptyInputGroups;
    this.input = input;
    this.schema = schema;
    this.nk = keyCount;
    this.calls = List.copyOf(calls);
    this.description = description;
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.memory = new MemoryReservation(allocator, "the hash aggregation");
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() { return description; }

  @Override
  public Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    if (consumed) m.put("groups", (long) groupCount);
    return m;
  }

  private void grow(int groups) {
    if (groups <= groupCount) return;
    memory.add((groups - groupCount) * GroupedAccumulator.chargePerGroup(merged));
    for (int a = 0; a < calls.size(); a++) {
      if (merged[a] != null) {
        merged[a].grow(groups);
      } else if (groups > counts[a].length) {
        counts[a] = java.util.Arrays.copyOf(counts[a], GroupedAccumulator.capacity(counts[a].length, groups));
      }
    }
    groupCount = groups;
  }

  private void consume() {
    int na = calls.size();
    merged = new GroupedAccumulator[na];
    counts = new long[na][];
    for (int a = 0; a < na; a++) {
      if (PartialAggregate.kind(calls.get(a)) == PartialAggregate.Kind.COUNT) counts[a] = new long[0];
      else merged[a] = GroupedAccumulator.of(Accumulator.factory(calls.get(a)), memory);
    }
    if (nk == 0) {
      grow(1);
    } else {
      List<ArrowType> keyTypes = new ArrayList<>();
      for (int c = 0; c < nk; c++) keyTypes.add(schema.getFields().get(c).getType());
      table = new GroupTable(keyTypes);
    }
    long tableBytes = 0;
    int[] ids = new int[0];
    VectorSchemaRoot batch;
    while ((batch = input.next()) != null) {
      try (VectorSchemaRoot b = batch) {
        int n = b.getRowCount();
        if (ids.length < n) ids = new int[n]; // without GROUP BY every state is group 0
        List<ColumnValues> keyValues = new ArrayList<>();
        for (int c = 0; c < nk; c++) keyValues.add(new VectorValues(b.getVector(c), false));
        if (table != null) table.batch(keyValues, n);
        if (PartialAggregate.isRaw(b, nk)) {
          foldRows(b, n, ids);
          tableBytes = chargeTable(tableBytes);
          continue;
        }
        int[] firstColumn = new int[na];
        int col = nk;
        for (int a = 0; a < na; a++) {
          firstColumn[a] = col;
          PartialAggregate.Kind kind = PartialAggregate.kind(calls.get(a));
          if (kind == PartialAggregate.Kind.MIN_MAX) {
            merged[a].batch(new VectorValues(b.getVector(col), false), n);
          }
          col += kind == PartialAggregate.Kind.DECIMAL || kind == PartialAggregate.Kind.DOUBLE ? 3 : 1;
        }
        for (int lo = 0; lo < n; lo += CHUNK) {
          int hi = Math.min(n, lo + CHUNK);
          if (table != null) {
            table.ids(lo, hi, ids);
            grow(table.groups());
          }
          for (int a = 0; a < na; a++) {
            PartialAggregate.Kind kind = PartialAggregate.kind(calls.get(a));
            if (kind == PartialAggregate.Kind.COUNT) {
              org.apache.arrow.vector.BigIntVector v = (org.apache.arrow.vector.BigIntVector) b.getVector(firstColumn[a]);
              long[] c = counts[a];
              for (int i = lo; i < hi; i++) c[ids[i]] += v.get(i);
            } else if (kind == PartialAggregate.Kind.DECIMAL) {
              GroupedAccumulator.DecimalSum d = (GroupedAccumulator.DecimalSum) merged[a];
              org.apache.arrow.vector.BigIntVector u = (org.apache.arrow.vector.BigIntVector) b.getVector(firstColumn[a]);
              VarCharVector spilled = (VarCharVector) b.getVector(firstColumn[a] + 1);
              org.apache.arrow.vector.BigIntVector count = (org.apache.arrow.vector.BigIntVector) b.getVector(firstColumn[a] + 2);
              for (int i = lo; i < hi; i++) {
                BigDecimal s = spilled.isNull(i) ? null : new BigDecimal(spilled.getObject(i).toString());
                d.merge(ids[i], u.get(i), s, count.get(i));
              }
            } else if (kind == PartialAggregate.Kind.SKETCH) {
              org.apache.arrow.vector.VarBinaryVector sk = (org.apache.arrow.vector.VarBinaryVector) b.getVector(firstColumn[a]);
              for (int i = lo; i < hi; i++) GroupedAccumulator.sketch(merged[a], ids[i]).merge(sk.get(i));
            } else if (kind == PartialAggregate.Kind.DOUBLE) {
              GroupedAccumulator.DoubleSum d = (GroupedAccumulator.DoubleSum) merged[a];
              org.apache.arrow.vector.Float8Vector h = (org.apache.arrow.vector.Float8Vector) b.getVector(firstColumn[a]);
              org.apache.arrow.vector.Float8Vector l = (org.apache.arrow.vector.Float8Vector) b.getVector(firstColumn[a] + 1);
              org.apache.arrow.vector.BigIntVector count = (org.apache.arrow.vector.BigIntVector) b.getVector(firstColumn[a] + 2);
              for (int i = lo; i < hi; i++) d.merge(ids[i], h.get(i), l.get(i), count.get(i));
            } else {
              merged[a].update(ids, lo, hi);
            }
          }
          cancellation.check();
        }
        tableBytes = chargeTable(tableBytes);
      }
    }
    consumed = true;
    if (table != null && groupCount == 0 && !emptyInputGroups.isEmpty()) {
      emptyValues = new Object[na];
      for (int a = 0; a < na; a++) emptyValues[a] = Accumulator.factory(calls.get(a)).create(memory).result();
      groupCount = emptyInputGroups.size();
    }
  }

  /** Charges the table's growth since it took {@code charged} bytes; returns what it takes now. */
  private long chargeTable(long charged) {
    if (table == null) return charged;
    long bytes = table.bytes();
    memory.add(bytes - charged);
    return bytes;
  }

  /**
   * Folds a batch of rows that a partial task passed through ({@link PartialAggregate.Task#add}: the keys, then the
   * argument of each aggregate that has one) as a single-phase aggregation would. The table has its keys already.
   */
  private void foldRows(VectorSchemaRoot b, int n, int[] ids) {
    int na = calls.size();
    FieldVector[] args = new FieldVector[na];
    int col = nk;
    for (int a = 0; a < na; a++) {
      if (calls.get(a).arg() == null) continue;
      args[a] = b.getVector(col++);
      if (merged[a] != null) merged[a].batch(new VectorValues(args[a], false), n);
    }
    for (int lo = 0; lo < n; lo += CHUNK) {
      int hi = Math.min(n, lo + CHUNK);
      if (table != null) {
        table.ids(lo, hi, ids);
        grow(table.groups());
      }
      for (int a = 0; a < na; a++) {
        if (merged[a] != null) {
          merged[a].update(ids, lo, hi);
        } else {
          long[] c = counts[a];
          FieldVector v = args[a];
          if (v == null || v.getNullCount() == 0) {
            for (int i = lo; i < hi; i++) c[ids[i]]++;
          } else {
            for (int i = lo; i < hi; i++) if (!v.isNull(i)) c[ids[i]]++;
          }
        }
      }
      cancellation.check();
    }
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (!consumed) consume();
    if (emitted >= groupCount) return null;
    int count = Math.min(batchRows, groupCount - emitted);
    VectorSchemaRoot batch = AggregateExec.groupBatch(schema, allocator, emitted, count,
        (c, g) -> emptyValues != null ? (c < nk ? emptyInputGroups.get(g).get(c) : emptyValues[c - nk])
            : c < nk ? table.key(c, g) : merged[c - nk] != null ? merged[c - nk].result(g) : counts[c - nk][g]);
    emitted += count;
    return batch;
  }

  @Override
  public void close() {
    super.close();
    table = null;
    merged = null;
    memory.close();
  }
}
