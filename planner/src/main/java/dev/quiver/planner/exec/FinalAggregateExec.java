package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
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
 *
 * <p><b>Spilling.</b> With GROUP BY, when the query's memory passes {@link MemoryReservation#spillAt} of its limit
 * while the groups take an eighth of it, the groups so far are written out as states and every later batch follows them to
 * disk, split into {@link AggregateSpill#PARTITIONS} partitions by key hash; at the end each partition is aggregated
 * alone (the groups of one partition in memory at a time) and output; a partition whose groups do not fit is split
 * again into {@link AggregateSpill#PARTITIONS} by other bits of the hash, up to {@link AggregateSpill#MAX_LEVEL}
 * levels deep. Every aggregate split into states gives the
 * same answer in any order of its input, so the values are the in-memory ones; the groups come partition by partition
 * (without ORDER BY any order is right). EXPLAIN ANALYZE shows {@code spilled_bytes} and {@code spill_partitions}.
 */
final class FinalAggregateExec extends Operator {
  private static final int CHUNK = 1 << 12;
  private final Operator input;
  private final Schema schema;
  private final Schema stateSchema;
  private final List<AggregateCall> calls;
  private final int nk;
  private final String description;
  private final BufferAllocator allocator;
  private final int batchRows;
  private boolean consumed;
  /** The groups in memory: all of them, or, once spilled, those of the partition being output. */
  private Groups groups;
  private int groupCount;
  private int emitted;
  private AggregateSpill spill;
  /**
   * While outputting a spill: the spills whose partitions are being output, innermost first (a partition too big
   * for memory is split again into a spill of the next level), each with the partition whose groups are in memory.
   */
  private final java.util.ArrayDeque<Level> levels = new java.util.ArrayDeque<>();
  /** Every spill made (for their bytes, and to delete their files). */
  private final List<AggregateSpill> spills = new ArrayList<>();

  /** A spill being output, and its partition in memory now (-1: none yet). */
  private static final class Level {
    final AggregateSpill spill;
    int partition = -1;

    Level(AggregateSpill spill) {
      this.spill = spill;
    }
  }

  /** The groups output when no state came (see {@link AggregateExec}), and the aggregates' values over no rows. */
  private final List<List<Object>> emptyInputGroups;
  private Object[] emptyValues;

  FinalAggregateExec(Operator input, Schema schema, int keyCount, List<AggregateCall> calls, String description,
      BufferAllocator allocator, int batchRows) {
    this(input, schema, null, keyCount, calls, description, allocator, batchRows, List.of());
  }

  /**
   * As above; {@code stateSchema} is the states' columns ({@link PartialAggregate#stateSchema}; null: never spills);
   * with no state at all, the output is one group per entry of {@code emptyInputGroups} (its keys).
   */
  FinalAggregateExec(Operator input, Schema schema, Schema stateSchema, int keyCount, List<AggregateCall> calls,
      String description, BufferAllocator allocator, int batchRows, List<List<Object>> emptyInputGroups) {
    this.emptyInputGroups = emptyInputGroups;
    this.input = input;
    this.schema = schema;
    this.stateSchema = stateSchema;
    this.nk = keyCount;
    this.calls = List.copyOf(calls);
    this.description = description;
    this.allocator = allocator;
    this.batchRows = batchRows;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() { return description; }

  @Override
  public Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    if (consumed) m.put("groups", (long) groupCount);
    if (spill != null) {
      long bytes = 0;
      for (AggregateSpill a : spills) bytes += a.bytes();
      m.put("spilled_bytes", bytes);
      m.put("spill_partitions", (long) AggregateSpill.PARTITIONS * spills.size()); // split again: more
    }
    return m;
  }

  /** Groups: their table, merged states and counts, charged to a reservation of their own. */
  private final class Groups implements AutoCloseable {
    final MemoryReservation memory = new MemoryReservation(allocator, "the hash aggregation");
    final GroupTable table;
    final GroupedAccumulator[] merged;
    final long[][] counts;
    int groupCount;
    long tableBytes;
    int[] ids = new int[0];

    Groups() {
      int na = calls.size();
      merged = new GroupedAccumulator[na];
      counts = new long[na][];
      for (int a = 0; a < na; a++) {
        if (PartialAggregate.kind(calls.get(a)) == PartialAggregate.Kind.COUNT) counts[a] = new long[0];
        else merged[a] = GroupedAccumulator.of(Accumulator.factory(calls.get(a)), memory);
      }
      if (nk == 0) {
        table = null;
        grow(1);
      } else {
        List<ArrowType> keyTypes = new ArrayList<>();
        for (int c = 0; c < nk; c++) keyTypes.add(schema.getFields().get(c).getType());
        table = new GroupTable(keyTypes);
      }
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

    /** The ids of rows {@code [lo, hi)} into {@link #ids} (without GROUP BY every row is group 0). */
    private void ids(int lo, int hi) {
      if (table == null) return;
      table.ids(lo, hi, ids);
      try {
        grow(table.groups());
      } catch (QuiverException e) {
        throw outOfRoom(e, lo);
      }
    }

    /**
     * {@code e} as {@link OutOfRoom} at row {@code row} when these groups could spill instead: the groups' own
     * reservation refused (every row before {@code row} is folded, none from it on: the accumulators had not grown).
     */
    private RuntimeException outOfRoom(QuiverException e, int row) {
      boolean canSpill = nk > 0 && stateSchema != null && e.code() == ErrorCode.RESOURCE_EXHAUSTED
          && (spill == null || levels.peek() != null && levels.peek().spill.level < AggregateSpill.MAX_LEVEL);
      return canSpill ? new OutOfRoom(row, e) : e;
    }

    /** Folds batch {@code b} (states or rows passed through; not closed here) into these groups. */
    void fold(VectorSchemaRoot b) {
      int na = calls.size();
      int n = b.getRowCount();
      if (n == 0) return;
      if (ids.length < n) ids = new int[n];
      List<ColumnValues> keyValues = new ArrayList<>();
      for (int c = 0; c < nk; c++) keyValues.add(new VectorValues(b.getVector(c), false));
      if (table != null) table.batch(keyValues, n);
      if (PartialAggregate.isRaw(b, nk)) {
        foldRows(b, n);
        chargeTable(n);
        return;
      }
      int[] firstColumn = new int[na];
      int col = nk;
      for (int a = 0; a < na; a++) {
        firstColumn[a] = col;
        PartialAggregate.Kind kind = PartialAggregate.kind(calls.get(a));
        if (kind == PartialAggregate.Kind.MIN_MAX) {
          merged[a].batch(new VectorValues(b.getVector(col), false), n);
        }
        col += kind == PartialAggregate.Kind.DECIMAL || kind == PartialAggregate.Kind.DOUBLE
            || kind == PartialAggregate.Kind.LONG_SUM ? 3 : 1;
      }
      for (int lo = 0; lo < n; lo += CHUNK) {
        int hi = Math.min(n, lo + CHUNK);
        ids(lo, hi);
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
          } else if (kind == PartialAggregate.Kind.LONG_SUM) {
            GroupedAccumulator.LongSum d = (GroupedAccumulator.LongSum) merged[a];
            org.apache.arrow.vector.BigIntVector sum = (org.apache.arrow.vector.BigIntVector) b.getVector(firstColumn[a]);
            VarCharVector spilled = (VarCharVector) b.getVector(firstColumn[a] + 1);
            org.apache.arrow.vector.BigIntVector any = (org.apache.arrow.vector.BigIntVector) b.getVector(firstColumn[a] + 2);
            boolean noSpill = spilled.getNullCount() == n;
            for (int i = lo; i < hi; i++) {
              java.math.BigInteger s = noSpill || spilled.isNull(i) ? null
                  : new java.math.BigInteger(spilled.getObject(i).toString());
              d.merge(ids[i], sum.get(i), s, any.get(i) != 0);
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
      chargeTable(n);
    }

    /** Charges the table's growth since it was last charged (every row of the batch folded). */
    private void chargeTable(int rows) {
      if (table == null) return;
      long bytes = table.bytes();
      try {
        memory.add(bytes - tableBytes);
      } catch (QuiverException e) {
        throw outOfRoom(e, rows);
      }
      tableBytes = bytes;
    }

    /**
     * Folds a batch of rows that a partial task passed through ({@link PartialAggregate.Task#add}: the keys, then the
     * argument of each aggregate that has one) as a single-phase aggregation would. The table has its keys already.
     */
    private void foldRows(VectorSchemaRoot b, int n) {
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
        ids(lo, hi);
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

    /**
     * Writes these groups' states to {@code spill}, a few thousand at a time. Their reservation is given back first:
     * their heap is freed right after, and writing needs a few Arrow buffers from a query that may be at its limit.
     */
    void spillStates(AggregateSpill spill) {
      memory.reset();
      for (int first = 0; first < groupCount; first += CHUNK) {
        int count = Math.min(CHUNK, groupCount - first);
        try (VectorSchemaRoot states =
            PartialAggregate.states(stateSchema, calls, table, nk, merged, counts, first, count, allocator)) {
          spill.add(states);
        }
        cancellation.check();
      }
    }

    Object cell(int c, int g) {
      return c < nk ? table.key(c, g) : merged[c - nk] != null ? merged[c - nk].result(g) : counts[c - nk][g];
    }

    @Override
    public void close() {
      memory.close();
    }
  }

  /**
   * Checked before each batch: the query uses more than {@link MemoryReservation#spillAt} of its memory limit and the
   * groups take an eighth of it (spilling a few groups would free nothing worth having); only with GROUP BY and the
   * states' columns known. A batch that grows the groups past the limit anyway spills them then ({@link OutOfRoom}).
   */
  private boolean overMemory() {
    long limit = allocator.getLimit();
    return nk > 0 && stateSchema != null && limit > 0 && limit < Long.MAX_VALUE
        && allocator.getAllocatedMemory() > MemoryReservation.spillAt(limit) && groups.memory.used() >= limit / 8;
  }

  /** The groups' reservation refused at {@link #row} of a batch (see {@link Groups#ids}); they can spill instead. */
  private static final class OutOfRoom extends RuntimeException {
    final int row;

    OutOfRoom(int row, QuiverException cause) {
      super(cause.getMessage(), cause, false, false);
      this.row = row;
    }
  }

  private void consume() {
    groups = new Groups();
    VectorSchemaRoot batch;
    while ((batch = input.next()) != null) {
      try (VectorSchemaRoot b = batch) {
        if (spill == null && overMemory()) {
          // before this batch grows the groups further: the groups so far go first, as states, and every batch
          // from this one on follows them to its partition
          startSpill();
        }
        if (spill != null) {
          spill.add(b);
          cancellation.check();
          continue;
        }
        try {
          groups.fold(b);
        } catch (OutOfRoom e) {
          // the groups' reservation refused in the middle of this batch: they spill now, with the rows not folded
          startSpill();
          addRest(spill, b, e.row);
        }
      }
    }
    consumed = true;
    if (spill != null) {
      spill.finishWriting();
      return;
    }
    groupCount = groups.groupCount;
    if (nk > 0 && groupCount == 0 && !emptyInputGroups.isEmpty()) {
      int na = calls.size();
      emptyValues = new Object[na];
      for (int a = 0; a < na; a++) emptyValues[a] = Accumulator.factory(calls.get(a)).create(groups.memory).result();
      groupCount = emptyInputGroups.size();
    }
  }

  /** Starts spilling: the groups so far go to the partitions as states and are dropped. */
  private void startSpill() {
    spill = new AggregateSpill(stateSchema, nk, allocator);
    spills.add(spill);
    levels.push(new Level(spill));
    groups.spillStates(spill);
    groups.close();
    groups = null;
  }

  /**
   * The groups of the next spilled partition, aggregated in memory; false after the last. A partition whose groups
   * do not fit (the groups' reservation refuses, {@link OutOfRoom}) is split again: the groups so far as states,
   * the rest of the batch and of the partition go to a spill of the next level, whose partitions come next.
   */
  private boolean nextPartition() {
    if (groups != null) groups.close();
    groups = null;
    while (!levels.isEmpty()) {
      Level top = levels.peek();
      if (++top.partition >= AggregateSpill.PARTITIONS) {
        levels.pop();
        if (top.spill != spill) top.spill.close(); // its files are read: gone (the bytes stay counted)
        continue;
      }
      groups = new Groups();
      AggregateSpill deeper = null;
      VectorSchemaRoot batch;
      while ((batch = top.spill.next(top.partition)) != null) {
        try (VectorSchemaRoot b = batch) {
          if (deeper != null) {
            deeper.add(b);
            cancellation.check();
            continue;
          }
          try {
            groups.fold(b);
          } catch (OutOfRoom e) {
            deeper = new AggregateSpill(stateSchema, nk, allocator, top.spill.level + 1);
            spills.add(deeper);
            groups.spillStates(deeper);
            groups.close();
            groups = null;
            addRest(deeper, b, e.row);
          }
        }
      }
      if (deeper != null) {
        deeper.finishWriting();
        levels.push(new Level(deeper));
        continue;
      }
      emitted = 0;
      groupCount += groups.groupCount;
      return true;
    }
    return false;
  }

  /** Rows {@code [row, n)} of {@code b} (not folded) to {@code to}. */
  private void addRest(AggregateSpill to, VectorSchemaRoot b, int row) {
    if (row >= b.getRowCount()) return;
    int[] rest = new int[b.getRowCount() - row];
    for (int i = 0; i < rest.length; i++) rest[i] = row + i;
    try (VectorSchemaRoot unfolded = FilterExec.take(b, rest, rest.length, allocator)) {
      to.add(unfolded);
    }
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (!consumed) consume();
    if (spill != null) {
      while (groups == null || emitted >= groups.groupCount) {
        if (!nextPartition()) return null;
      }
      return emit(groups.groupCount);
    }
    if (emitted >= groupCount) return null;
    return emit(groupCount);
  }

  /** The next batch of the groups in memory, of {@code total}. */
  private VectorSchemaRoot emit(int total) {
    int count = Math.min(batchRows, total - emitted);
    Groups g = groups;
    VectorSchemaRoot batch = AggregateExec.groupBatch(schema, allocator, emitted, count,
        (c, r) -> emptyValues != null ? (c < nk ? emptyInputGroups.get(r).get(c) : emptyValues[c - nk]) : g.cell(c, r));
    emitted += count;
    return batch;
  }

  @Override
  public void close() {
    super.close();
    if (groups != null) groups.close();
    groups = null;
    for (AggregateSpill a : spills) a.close();
  }
}
