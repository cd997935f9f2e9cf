package dev.quiver.planner.exec;

import dev.quiver.planner.Cancellation;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The first phase of a two-phase hash aggregation (DataFusion's Partial/Final): each of a scan's row-group tasks
 * folds its rows into per-group states ({@link GroupTable}, {@link GroupedAccumulator}; without GROUP BY one group)
 * and emits them as one small batch: the group keys, then each aggregate's state columns. {@link FinalAggregateExec}
 * merges the states of all tasks. Only aggregates whose results (values and errors) do not depend on the order of
 * the rows are split: count, sum of decimals, avg of integers and decimals (the state is the unscaled running sum,
 * what spilled past a long as text, and the count; overflow is checked on the final total, as before), min and
 * max, bool_and and bool_or. DISTINCT aggregates, floating-point sums (rounding depends on the order of the
 * additions), sums of integers (exact, but slower split: see {@link #kind}) and the analytic aggregates (percentiles
 * keep every value; corr/covar/regr_* are floating-point sums; arg_min/arg_max answer ties in input order;
 * approx_count_distinct's sketch could merge, but has no state column yet) keep the single-phase plan. Groups come out in order of their first row, per task and so overall,
 * as a single-phase aggregation numbers them.
 */
final class PartialAggregate {
  /** How an aggregate's state is kept and merged. */
  enum Kind {
    /** count, count(*): one BIGINT; merged by adding. */
    COUNT,
    /** sum of decimals, avg of decimals and integers: unscaled BIGINT, spilled part as text (or NULL), BIGINT count. */
    DECIMAL,
    /** min, max, bool_and, bool_or: the value (NULL when none); merged by min / max / AND / OR. */
    MIN_MAX
  }

  private PartialAggregate() {}

  /** The kind of {@code call}'s state, or null when it cannot be split. */
  static Kind kind(AggregateCall call) {
    if (call.distinct()) return null;
    if (call.arg() == null || call.func() == LogicalPlan.AggFunc.COUNT) return Kind.COUNT;
    Kernels.Family family = Kernels.family(call.arg().type());
    return switch (call.func()) {
      // a sum of integers is not split (yet): its answer and error do not depend on the order of the rows (only the
      // exact total must fit), but split it measured 10-14% slower on TPC-H SF 1 (bench/results/aggregation.md)
      case SUM -> family == Kernels.Family.DECIMAL ? Kind.DECIMAL : null;
      case AVG -> family == Kernels.Family.LONG || family == Kernels.Family.DECIMAL ? Kind.DECIMAL : null;
      case MIN, MAX, BOOL_AND, BOOL_OR -> Kind.MIN_MAX;
      default -> null;
    };
  }

  /** Whether every aggregate of {@code p} can be split into partial states and a final merge. */
  static boolean splittable(LogicalPlan.Aggregate p) {
    for (AggregateCall c : p.aggregates()) if (kind(c) == null) return false;
    return true;
  }

  /** The columns of a partial state batch: the keys as {@code p} outputs them, then each aggregate's state. */
  static Schema stateSchema(LogicalPlan.Aggregate p) {
    List<Field> fields = new ArrayList<>(p.schema().getFields().subList(0, p.groups().size()));
    ArrowType bigint = new ArrowType.Int(64, true);
    for (int a = 0; a < p.aggregates().size(); a++) {
      AggregateCall c = p.aggregates().get(a);
      String prefix = "__state" + a + "_";
      switch (kind(c)) {
        case COUNT -> fields.add(nullable(prefix + "count", bigint));
        case DECIMAL -> {
          fields.add(nullable(prefix + "unscaled", bigint));
          fields.add(nullable(prefix + "spilled", ArrowType.Utf8.INSTANCE));
          fields.add(nullable(prefix + "count", bigint));
        }
        case MIN_MAX -> fields.add(nullable(prefix + c.func().sqlName(), c.type()));
      }
    }
    return new Schema(fields);
  }

  private static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /**
   * What every task's partial aggregation computes (immutable, shared by the tasks): the key and argument
   * expressions over the pipeline's batches, the aggregates, and the schema of the states.
   */
  record Spec(List<PhysicalExpr> keys, List<PhysicalExpr> args, List<AggregateCall> calls, List<ArrowType> keyTypes,
      Schema stateSchema) {}

  /**
   * What the tasks of one aggregation saw, shared between them (thread-safe): the most groups and the most distinct
   * values of each key column that a task has emitted, so that the next task sizes its table for them
   * ({@link GroupTable#expect}). Only a hint: a wrong one costs memory or growth, never an answer.
   */
  static final class SizeHint {
    private final AtomicIntegerArray most;

    SizeHint(int keyColumns) {
      most = new AtomicIntegerArray(1 + keyColumns);
    }

    void saw(GroupTable table) {
      most.accumulateAndGet(0, table.groups(), Math::max);
      for (int c = 1; c < most.length(); c++) most.accumulateAndGet(c, table.distinct(c - 1), Math::max);
    }

    void apply(GroupTable table) {
      int[] distinct = new int[most.length() - 1];
      for (int c = 0; c < distinct.length; c++) distinct[c] = most.get(c + 1);
      table.expect(most.get(0), distinct);
    }
  }

  /** The partial aggregation of one task: not thread-safe, used by the task's thread only. */
  static final class Task implements AutoCloseable {
    private static final int CHUNK = 1 << 12;
    private final Spec spec;
    private final BufferAllocator allocator;
    private final Cancellation cancellation;
    private final MemoryReservation memory;
    private final GroupTable table;
    private final GroupedAccumulator[] grouped;
    private int groupCount;
    private long tableBytes;
    private long rows;
    private int[] ids = new int[0];

    private final SizeHint hint;

    /** A task whose group table is sized by and reported to {@code hint} (null: none). */
    Task(Spec spec, BufferAllocator allocator, Cancellation cancellation, SizeHint hint) {
      this.spec = spec;
      this.hint = hint;
      this.allocator = allocator;
      this.cancellation = cancellation;
      this.memory = new MemoryReservation(allocator, "the hash aggregation");
      int na = spec.calls().size();
      grouped = new GroupedAccumulator[na];
      for (int a = 0; a < na; a++) grouped[a] = GroupedAccumulator.of(Accumulator.factory(spec.calls().get(a)), memory);
      table = spec.keys().isEmpty() ? null : new GroupTable(spec.keyTypes());
      if (table != null && hint != null) hint.apply(table);
      if (table == null) {
        for (GroupedAccumulator g : grouped) g.grow(1);
        groupCount = 1;
        memory.add(64 + 48L * na);
      }
    }

    /** Folds the rows of {@code b} (not closed here) into the states. */
    void add(VectorSchemaRoot b) {
      int n = b.getRowCount();
      if (n == 0) return;
      rows += n;
      int na = grouped.length;
      List<ColumnValues> keyValues = new ArrayList<>();
      List<ColumnValues> argValues = new ArrayList<>();
      try {
        for (PhysicalExpr k : spec.keys()) keyValues.add(k.eval(b, allocator));
        for (PhysicalExpr a : spec.args()) argValues.add(a == null ? null : a.eval(b, allocator));
        if (ids.length < n) ids = new int[n]; // without GROUP BY every row is group 0
        if (table != null) table.batch(keyValues, n);
        for (int a = 0; a < na; a++) grouped[a].batch(argValues.get(a), n);
        for (int lo = 0; lo < n; lo += CHUNK) {
          int hi = Math.min(n, lo + CHUNK);
          if (table != null) {
            table.ids(lo, hi, ids);
            int groups = table.groups();
            if (groups > groupCount) {
              memory.add((groups - groupCount) * GroupedAccumulator.chargePerGroup(grouped));
              for (GroupedAccumulator g : grouped) g.grow(groups);
              groupCount = groups;
            }
          }
          for (GroupedAccumulator g : grouped) g.update(ids, lo, hi);
          cancellation.check();
        }
        if (table != null) {
          long bytes = table.bytes();
          memory.add(bytes - tableBytes);
          tableBytes = bytes;
        }
      } finally {
        keyValues.forEach(ColumnValues::close);
        for (ColumnValues v : argValues) if (v != null) v.close();
      }
    }

    /** The states of the groups seen, in order of first appearance; null when no row came. */
    VectorSchemaRoot emit() {
      if (rows == 0) return null;
      if (table != null && hint != null) hint.saw(table);
      int count = groupCount;
      VectorSchemaRoot batch = AggregateExec.emptyBatch(spec.stateSchema(), allocator, count);
      List<FieldVector> out = batch.getFieldVectors();
      try {
        int nk = spec.keys().size();
        for (int c = 0; c < nk; c++) table.writeKeys(c, out.get(c), 0, count);
        int col = nk;
        for (int a = 0; a < grouped.length; a++) {
          GroupedAccumulator acc = grouped[a];
          if (kind(spec.calls().get(a)) == Kind.DECIMAL) {
            GroupedAccumulator.DecimalSum d = (GroupedAccumulator.DecimalSum) acc;
            FieldVector u = out.get(col++);
            FieldVector spilled = out.get(col++);
            FieldVector n = out.get(col++);
            for (int g = 0; g < count; g++) {
              Vectors.set(u, g, d.unscaledOf(g));
              BigDecimal s = d.spilledOf(g);
              Vectors.set(spilled, g, s == null ? null : s.toString());
              Vectors.set(n, g, d.countOf(g));
            }
          } else {
            acc.write(out.get(col++), 0, count);
          }
        }
        for (FieldVector v : out) v.setValueCount(count);
        batch.setRowCount(count);
      } catch (RuntimeException | Error e) {
        batch.close();
        throw e;
      }
      return batch;
    }

    @Override
    public void close() {
      memory.close();
    }
  }
}
