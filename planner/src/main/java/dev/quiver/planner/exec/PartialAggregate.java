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
 * what spilled past a long as text, and the count; overflow is checked on the final total, as before), sum and avg
 * of doubles (the compensated pair of {@link CompensatedSum} and the count: the answer is the exact sum rounded
 * once, whatever the order and the split), min and max, bool_and and bool_or, approx_count_distinct (the sketch,
 * merged exactly: the same hashes, the same registers), sums of integers (under at most one key: {@link
 * #splittable}; the running sum and what overflowed it, so only the exact total must fit). DISTINCT aggregates and
 * the other analytic aggregates (percentiles keep every value; variance and
 * corr/covar/regr_* are not compensated; arg_min/arg_max answer ties in input order) keep the single-phase plan.
 * Groups come out in order of their first row, per task and so overall, as a single-phase aggregation numbers them.
 */
final class PartialAggregate {
  /** How an aggregate's state is kept and merged. */
  enum Kind {
    /** count, count(*): one BIGINT; merged by adding. */
    COUNT,
    /** sum of decimals, avg of decimals and integers: unscaled BIGINT, spilled part as text (or NULL), BIGINT count. */
    DECIMAL,
    /** sum and avg of doubles: the compensated pair ({@link CompensatedSum}) as two DOUBLEs, the BIGINT count. */
    DOUBLE,
    /**
     * sum of integers: the BIGINT running sum, what overflowed it as text (or NULL), and 1 when some value came (else
     * 0); merged exactly, so only the final total must fit BIGINT.
     */
    LONG_SUM,
    /** approx_count_distinct: the sketch as VARBINARY ({@link HyperLogLog#serialize}); merged exactly. */
    SKETCH,
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
      // a sum of integers: its answer and error do not depend on the order of the rows (only the exact total must fit)
      case SUM -> family == Kernels.Family.DECIMAL ? Kind.DECIMAL : family == Kernels.Family.DOUBLE ? Kind.DOUBLE
          : family == Kernels.Family.LONG ? Kind.LONG_SUM : null;
      case AVG -> family == Kernels.Family.LONG || family == Kernels.Family.DECIMAL ? Kind.DECIMAL
          : family == Kernels.Family.DOUBLE ? Kind.DOUBLE : null;
      case MIN, MAX, BOOL_AND, BOOL_OR -> Kind.MIN_MAX;
      case APPROX_COUNT_DISTINCT -> Kind.SKETCH;
      default -> null;
    };
  }

  /**
   * Whether every aggregate of {@code p} can be split into partial states and a final merge, and splitting it is
   * measured to pay. A sum of integers is split only without GROUP BY (a task's state is one row: an ungrouped sum
   * of SF 1 lineitem ran 5-15% faster split) or under one string key straight off the scan that the tasks take by
   * dictionary index ({@link #keyByIndex}: the split then saves making the key's strings; H2O q1 ran 10-15% faster,
   * TPC-H's 3 return flags 12%). Under an integer key or several keys its tasks' states are many (10,000 a task under
   * l_suppkey, 820,000 state rows in all merged on one thread) and the single-phase plan, whose one thread folds the
   * rows while the scan's threads decode, measured 22-30% faster ({@code bench/results/aggregation.md}).
   */
  static boolean splittable(LogicalPlan.Aggregate p) {
    for (AggregateCall c : p.aggregates()) {
      Kind kind = kind(c);
      if (kind == null || kind == Kind.LONG_SUM && !p.groups().isEmpty() && !keyByIndex(p)) return false;
    }
    return true;
  }

  /**
   * Whether {@code p} groups by one string column of the scan right below it that no aggregate reads and whose
   * chunks are all dictionary-encoded by the footers: the column the scan's tasks hand as dictionary indexes
   * ({@code ScanPipeline#keysByIndex}). (A key whose chunks fell back to plain pages, such as H2O's 100,000-value
   * id3, measured slower split: its tasks pass their rows through.)
   */
  static boolean keyByIndex(LogicalPlan.Aggregate p) {
    if (p.groups().size() != 1 || !(p.input() instanceof LogicalPlan.TableScan scan)) return false;
    if (!(p.groups().get(0).expr() instanceof dev.quiver.planner.expr.Expr.ColumnRef ref)) return false;
    int at = scan.names().indexOf(ref.name());
    return at >= 0 && scan.table().dictionaryEncoded(scan.columns().get(at))
        && ScanPipeline.keysByIndex(List.of(ref), p.aggregates(), scan.schema()).contains(ref.name());
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
        case DOUBLE -> {
          ArrowType dbl = new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE);
          fields.add(nullable(prefix + "hi", dbl));
          fields.add(nullable(prefix + "lo", dbl));
          fields.add(nullable(prefix + "count", bigint));
        }
        case LONG_SUM -> {
          fields.add(nullable(prefix + "sum", bigint));
          fields.add(nullable(prefix + "spilled", ArrowType.Utf8.INSTANCE));
          fields.add(nullable(prefix + "any", bigint));
        }
        case SKETCH -> fields.add(nullable(prefix + "sketch", ArrowType.Binary.INSTANCE));
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
   * expressions over the pipeline's batches (and the keys' logical expressions: empty when not known), the
   * aggregates, and the schema of the states.
   */
  record Spec(List<PhysicalExpr> keys, List<PhysicalExpr> args, List<AggregateCall> calls, List<ArrowType> keyTypes,
      Schema stateSchema, List<dev.quiver.planner.expr.Expr> keyExprs) {
    Spec {
      keyExprs = List.copyOf(keyExprs);
    }

    Spec(List<PhysicalExpr> keys, List<PhysicalExpr> args, List<AggregateCall> calls, List<ArrowType> keyTypes,
        Schema stateSchema) {
      this(keys, args, calls, keyTypes, stateSchema, List.of());
    }

    /** What a task that passes its rows through emits: the keys and each aggregate's argument ({@link #raw}). */
    Schema rawSchema() {
      List<Field> fields = new ArrayList<>(stateSchema.getFields().subList(0, keys.size()));
      for (int a = 0; a < calls.size(); a++) {
        if (args.get(a) != null) fields.add(nullable(RAW_PREFIX + a, calls.get(a).arg().type()));
      }
      return new Schema(fields);
    }

    /** The key and argument expressions, in the order of {@link #rawSchema}. */
    List<PhysicalExpr> rawExprs() {
      List<PhysicalExpr> exprs = new ArrayList<>(keys);
      for (PhysicalExpr a : args) if (a != null) exprs.add(a);
      return exprs;
    }
  }

  /** The name prefix of a passed-through batch's argument columns (a state batch's are {@code __state}). */
  static final String RAW_PREFIX = "__raw";

  /**
   * Whether {@code b}, with {@code keyCount} key columns, holds rows passed through ({@link Task}) rather than
   * states: every aggregate has a state column, but count(*) has no argument, so rows of only count(*)s are the keys
   * alone. Without aggregates the two are the same thing (the keys alone) and either reading is right.
   */
  static boolean isRaw(VectorSchemaRoot b, int keyCount) {
    List<Field> fields = b.getSchema().getFields();
    return fields.size() == keyCount || fields.get(keyCount).getName().startsWith(RAW_PREFIX);
  }

  /** Rows a task folds before it judges whether its aggregation reduces them. */
  static final int PROBE_ROWS = 1 << 15;

  /** A task whose groups are more than this share of its rows stops aggregating and passes its rows through. */
  static final double PASS_THROUGH_RATIO = 0.8;

  /**
   * What the tasks of one aggregation saw, shared between them (thread-safe): the most groups and the most distinct
   * values of each key column that a task has emitted, so that the next task sizes its table for them
   * ({@link GroupTable#expect}). Only a hint: a wrong one costs memory or growth, never an answer.
   */
  static final class SizeHint {
    private final AtomicIntegerArray most;
    /** Whether a task found that the aggregation does not reduce its rows: later tasks pass theirs through. */
    private volatile boolean passThrough;

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

  /**
   * A batch of {@code stateSchema}: the first {@code count} groups of {@code table} ({@code keyCount} keys) with each
   * aggregate's state, from {@code accs[a]}, or for a count from {@code counts[a]} when that is not null (the final
   * aggregation keeps counts as plain arrays).
   */
  static VectorSchemaRoot states(Schema stateSchema, List<AggregateCall> calls, GroupTable table, int keyCount,
      GroupedAccumulator[] accs, long[][] counts, int count, BufferAllocator allocator) {
    return states(stateSchema, calls, table, keyCount, accs, counts, 0, count, allocator);
  }

  /** As above, groups {@code [first, first + count)}. */
  static VectorSchemaRoot states(Schema stateSchema, List<AggregateCall> calls, GroupTable table, int keyCount,
      GroupedAccumulator[] accs, long[][] counts, int first, int count, BufferAllocator allocator) {
    VectorSchemaRoot batch = AggregateExec.emptyBatch(stateSchema, allocator, count);
    List<FieldVector> out = batch.getFieldVectors();
    try {
      for (int c = 0; c < keyCount; c++) table.writeKeys(c, out.get(c), first, count);
      int col = keyCount;
      for (int a = 0; a < calls.size(); a++) {
        GroupedAccumulator acc = accs[a];
        Kind kind = kind(calls.get(a));
        if (counts != null && counts[a] != null) {
          org.apache.arrow.vector.BigIntVector n = (org.apache.arrow.vector.BigIntVector) out.get(col++);
          for (int g = 0; g < count; g++) n.set(g, counts[a][first + g]);
        } else if (kind == Kind.DECIMAL) {
          GroupedAccumulator.DecimalSum d = (GroupedAccumulator.DecimalSum) acc;
          FieldVector u = out.get(col++);
          FieldVector spilled = out.get(col++);
          FieldVector n = out.get(col++);
          for (int g = 0; g < count; g++) {
            Vectors.set(u, g, d.unscaledOf(first + g));
            BigDecimal s = d.spilledOf(first + g);
            Vectors.set(spilled, g, s == null ? null : s.toString());
            Vectors.set(n, g, d.countOf(first + g));
          }
        } else if (kind == Kind.DOUBLE) {
          GroupedAccumulator.DoubleSum d = (GroupedAccumulator.DoubleSum) acc;
          org.apache.arrow.vector.Float8Vector hi = (org.apache.arrow.vector.Float8Vector) out.get(col++);
          org.apache.arrow.vector.Float8Vector lo = (org.apache.arrow.vector.Float8Vector) out.get(col++);
          org.apache.arrow.vector.BigIntVector n = (org.apache.arrow.vector.BigIntVector) out.get(col++);
          for (int g = 0; g < count; g++) {
            hi.set(g, d.hiOf(first + g));
            lo.set(g, d.loOf(first + g));
            n.set(g, d.countOf(first + g));
          }
        } else if (kind == Kind.LONG_SUM) {
          GroupedAccumulator.LongSum d = (GroupedAccumulator.LongSum) acc;
          org.apache.arrow.vector.BigIntVector sum = (org.apache.arrow.vector.BigIntVector) out.get(col++);
          FieldVector spilled = out.get(col++);
          org.apache.arrow.vector.BigIntVector any = (org.apache.arrow.vector.BigIntVector) out.get(col++);
          for (int g = 0; g < count; g++) {
            sum.set(g, d.sumOf(first + g));
            java.math.BigInteger s = d.spilledOf(first + g);
            if (s != null) Vectors.set(spilled, g, s.toString());
            else spilled.setNull(g);
            any.set(g, d.anyOf(first + g) ? 1 : 0);
          }
        } else if (kind == Kind.SKETCH) {
          org.apache.arrow.vector.VarBinaryVector sk = (org.apache.arrow.vector.VarBinaryVector) out.get(col++);
          for (int g = 0; g < count; g++) sk.setSafe(g, GroupedAccumulator.sketch(acc, first + g).state());
        } else {
          acc.write(out.get(col++), first, count);
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

  /** The partial aggregation of one task: not thread-safe, used by the task's thread only. */
  static final class Task implements AutoCloseable {
    private static final int CHUNK = 1 << 12;
    private final Spec spec;
    private final BufferAllocator allocator;
    private final Cancellation cancellation;
    private final MemoryReservation memory;
    /** The groups and their states: dropped (null) once the task passed through for want of memory. */
    private GroupTable table;
    private GroupedAccumulator[] grouped;
    private int groupCount;
    private long tableBytes;
    private long rows;
    private int[] ids = new int[0];

    private final SizeHint hint;
    /** Whether this task passes its rows through ({@link #add}); its states so far are emitted already. */
    private boolean passing;
    private boolean emitted;
    private long passed;
    private Schema rawSchema;
    private List<PhysicalExpr> rawExprs;

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
      passing = table != null && hint != null && hint.passThrough;
      if (table != null && hint != null && !passing) hint.apply(table);
      if (table == null) {
        for (GroupedAccumulator g : grouped) g.grow(1);
        groupCount = 1;
        memory.add(64 + 48L * na);
      }
    }

    /** The rows this task passed through. */
    long passed() {
      return passed;
    }

    /**
     * Folds the rows of {@code b} (not closed here) into the states. A partial aggregation that does not reduce
     * its rows (most keys distinct: more groups than {@link #PASS_THROUGH_RATIO} of its first {@link #PROBE_ROWS}
     * rows or more) only costs a second hash table with the same rows as the input; such a task emits its states
     * at once and from then on passes each batch's keys and arguments through to {@code out} ({@link
     * Spec#rawSchema}), which the final aggregation folds as a single-phase one would. Later tasks of the query
     * pass through from their start. The answer is the same: states and rows come out in the order of the rows.
     */
    void add(VectorSchemaRoot b, List<VectorSchemaRoot> out) {
      int n = b.getRowCount();
      if (n == 0) return;
      if (passing) {
        dev.quiver.scan.read.DictionaryStrings.materialize(b); // the rows go on: their strings are made
        if (!emitted) {
          emitted = true;
          if (rows > 0) out.add(emitStates());
        }
        passed += n;
        if (rawSchema == null) {
          rawSchema = spec.rawSchema();
          rawExprs = spec.rawExprs();
        }
        out.add(ProjectExec.compute(b, rawExprs, rawSchema, allocator));
        return;
      }
      rows += n;
      int na = grouped.length;
      List<ColumnValues> keyValues = new ArrayList<>();
      List<ColumnValues> argValues = new ArrayList<>();
      int folded = n; // rows of b folded: fewer when the task's memory was refused in the middle of b
      boolean noRoom = false;
      try {
        for (PhysicalExpr k : spec.keys()) keyValues.add(k.eval(b, allocator));
        for (PhysicalExpr a : spec.args()) argValues.add(a == null ? null : a.eval(b, allocator));
        if (ids.length < n) ids = new int[n]; // without GROUP BY every row is group 0
        if (table != null) table.batch(keyValues, n);
        for (int a = 0; a < na; a++) grouped[a].batch(argValues.get(a), n);
        for (int lo = 0; lo < n; lo += CHUNK) {
          int hi = Math.min(n, lo + CHUNK);
          boolean refused = false;
          if (table != null) {
            table.ids(lo, hi, ids);
            int groups = table.groups();
            if (groups > groupCount) {
              long charge = (groups - groupCount) * GroupedAccumulator.chargePerGroup(grouped);
              for (GroupedAccumulator g : grouped) g.grow(groups);
              groupCount = groups;
              refused = !charge(charge);
            }
          }
          for (GroupedAccumulator g : grouped) g.update(ids, lo, hi);
          cancellation.check();
          if (refused) {
            noRoom = true;
            folded = hi;
            break;
          }
        }
        if (table != null && folded == n) {
          long bytes = table.bytes();
          if (charge(bytes - tableBytes)) tableBytes = bytes;
          else noRoom = true; // all of b folded, and no room: pass through from the next batch on
        }
      } finally {
        keyValues.forEach(ColumnValues::close);
        for (ColumnValues v : argValues) if (v != null) v.close();
      }
      if (noRoom) {
        passThroughForMemory(b, folded, out);
        return;
      }
      if (table != null && hint != null && rows >= PROBE_ROWS && groupCount > PASS_THROUGH_RATIO * rows) {
        passing = true;
        hint.passThrough = true;
      }
    }

    /**
     * Charges {@code bytes} to the task's reservation; false when the query's memory refuses them and the task can
     * pass its rows through instead (it has GROUP BY keys and its final aggregation takes rows). A refusal is then
     * not the query's end: the final aggregation, which spills, takes over the rows.
     */
    private boolean charge(long bytes) {
      try {
        memory.add(bytes);
        return true;
      } catch (dev.quiver.common.QuiverException e) {
        if (e.code() != dev.quiver.common.ErrorCode.RESOURCE_EXHAUSTED || hint == null) throw e;
        return false;
      }
    }

    /**
     * The task's memory was refused after the first {@code folded} rows of {@code b}: it emits the states of its
     * groups so far, drops its table, and passes the rest of {@code b} and every later batch through ({@link #add}),
     * as a task that found its aggregation does not reduce; later tasks do so from their start, to leave the memory
     * to the final aggregation. The order of rows is kept: states of the rows before, then the rows after.
     */
    private void passThroughForMemory(VectorSchemaRoot b, int folded, List<VectorSchemaRoot> out) {
      memory.reset(); // the table goes once its states are out: their batch may take the room it had
      out.add(emitStates());
      emitted = true;
      passing = true;
      hint.passThrough = true;
      table = null;
      grouped = null;
      int n = b.getRowCount();
      if (folded < n) {
        dev.quiver.scan.read.DictionaryStrings.materialize(b); // the rows go on: their strings are made
        if (rawSchema == null) {
          rawSchema = spec.rawSchema();
          rawExprs = spec.rawExprs();
        }
        try (VectorSchemaRoot all = ProjectExec.compute(b, rawExprs, rawSchema, allocator)) {
          out.add(all.slice(folded, n - folded));
        }
        passed += n - folded;
      }
    }

    /** The states of the groups seen, in order of first appearance; null when no row came or emitted already. */
    VectorSchemaRoot emit() {
      if (rows == 0 || emitted) return null;
      emitted = true;
      return emitStates();
    }

    private VectorSchemaRoot emitStates() {
      if (table != null && hint != null) hint.saw(table);
      return states(spec.stateSchema(), spec.calls(), table, spec.keys().size(), grouped, null, groupCount, allocator);
    }

    @Override
    public void close() {
      memory.close();
    }
  }
}
