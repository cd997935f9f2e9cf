package dev.quiver.planner.exec;

import dev.quiver.planner.Cancellation;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.scan.read.BatchPipeline;
import dev.quiver.scan.read.RowGroupStatistics;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The operators directly above a scan that need no order and no state across batches (filters and projections,
 * then optionally a {@link PartialAggregate partial aggregation}), run inside the scan's row-group tasks on its
 * threads instead of on the query's one consumer thread (morsel-driven execution). The stages are the compiled
 * expressions of {@link FilterExec} and {@link ProjectExec}, evaluated by the same kernels (compiled expressions
 * are safe to share between threads; every evaluation allocates its own vectors from the query's allocator).
 * Each batch is checked against the query's cancellation first. Rows are counted per stage, for EXPLAIN ANALYZE.
 *
 * <p>A stage may also be a {@link Probe} of a hash join whose probe side this scan is ({@link HashJoinExec#fuseInto}):
 * the joins above a scan are built before it starts, and each task then probes them with a prober of its own. A join
 * that must read its probe side itself (it spilled, or may reverse its sides) {@link #runHere keeps} its stage and
 * those above it out of the tasks; they then run as operators on the query's thread ({@link #step}), each in the tree
 * node that shows it.
 */
final class ScanPipeline implements BatchPipeline.Factory {
  /** One stateless step: a filter or a projection. */
  sealed interface Stage permits Filter, Project, Probe {
    /** The stage's output for {@code batch} (which it owns from now on), or null when no row is left. */
    VectorSchemaRoot apply(VectorSchemaRoot batch, BufferAllocator allocator);

    String name();
  }

  record Filter(PhysicalExpr condition) implements Stage {
    public VectorSchemaRoot apply(VectorSchemaRoot batch, BufferAllocator allocator) {
      return FilterExec.filter(batch, condition, allocator);
    }

    public String name() { return "filter"; }
  }

  record Project(List<PhysicalExpr> exprs, Schema schema) implements Stage {
    public VectorSchemaRoot apply(VectorSchemaRoot batch, BufferAllocator allocator) {
      return ProjectExec.project(batch, exprs, schema, allocator);
    }

    public String name() { return "project"; }
  }

  /** A hash join probed by the scan's tasks; its join is set once planned (after the stages below it). */
  static final class Probe implements Stage {
    private HashJoinExec join;

    void join(HashJoinExec join) { this.join = join; }

    /** Not called: a probe may emit several batches ({@link Task#run}). */
    public VectorSchemaRoot apply(VectorSchemaRoot batch, BufferAllocator allocator) {
      throw new UnsupportedOperationException("a probe emits a list");
    }

    public String name() { return "hash_join"; }
  }

  private final List<Stage> stages;
  /**
   * The tasks run the stages below this index (and the expansion and partial aggregation only when it is past the
   * last stage); fixed when the scan makes its first task.
   */
  private volatile int cut = Integer.MAX_VALUE;
  private volatile boolean started;
  /** Grouping sets: each batch out of the stages once per projection (null: none), before the partial aggregation. */
  private final List<List<PhysicalExpr>> expand;
  private final Schema expandSchema;
  /** Rows out of the expansion. */
  final LongAdder expandRows = new LongAdder();
  private final PartialAggregate.Spec partial;
  private final BufferAllocator allocator;
  private final Cancellation cancellation;
  /** Rows the scan read into the pipelines. */
  final LongAdder scanned = new LongAdder();
  /** Rows out of each stage. */
  final LongAdder[] stageRows;
  /** Partial state rows emitted. */
  final LongAdder partialRows = new LongAdder();
  /** The rows that the partial aggregation's tasks passed through unaggregated ({@link PartialAggregate.Task#add}). */
  final LongAdder passedRows = new LongAdder();
  /** The sizes the partial aggregation's tasks saw, to size the next task's table. */
  private final PartialAggregate.SizeHint sizeHint;

  /** {@code stages} in the order they run; {@code partial} (null: none) aggregates what the last one emits. */
  ScanPipeline(List<Stage> stages, PartialAggregate.Spec partial, BufferAllocator allocator, Cancellation cancellation) {
    this(stages, null, null, partial, allocator, cancellation);
  }

  /**
   * As above, with the batches out of the last stage expanded (each computed once per projection of {@code expand},
   * as {@link ExpandExec} does, to {@code expandSchema}) before the partial aggregation, which {@code expand} needs.
   */
  ScanPipeline(List<Stage> stages, List<List<PhysicalExpr>> expand, Schema expandSchema, PartialAggregate.Spec partial,
      BufferAllocator allocator, Cancellation cancellation) {
    if (expand != null && partial == null) throw new IllegalArgumentException("an expansion needs a partial aggregation");
    this.expand = expand == null ? null : expand.stream().map(List::copyOf).toList();
    this.expandSchema = expandSchema;
    this.stages = List.copyOf(stages);
    this.partial = partial;
    this.sizeHint = partial == null ? null : new PartialAggregate.SizeHint(partial.keys().size());
    this.allocator = allocator;
    this.cancellation = cancellation;
    this.stageRows = new LongAdder[stages.size()];
    for (int i = 0; i < stageRows.length; i++) stageRows[i] = new LongAdder();
  }

  /**
   * The steps as EXPLAIN shows them, e.g. {@code [filter, project, partial_aggregate]}: those the tasks run (all
   * planned, until a join {@link #runHere kept} some on the query's thread).
   */
  String describe() {
    StringBuilder b = new StringBuilder("[");
    for (Stage s : stages.subList(0, Math.min(cut, stages.size()))) b.append(b.length() > 1 ? ", " : "").append(s.name());
    if (expand != null && runsInTasks(expandIndex())) b.append(b.length() > 1 ? ", " : "").append("expand");
    if (partial != null && runsInTasks(partialIndex())) b.append(b.length() > 1 ? ", " : "").append("partial_aggregate");
    return b.append(']').toString();
  }

  /**
   * Per aggregate of an ungrouped partial aggregation straight over the scan, the scan column its statistics answer
   * it from (-1: {@code count(*)}); null when row groups cannot be answered from statistics.
   */
  private int[] statisticsColumns;

  /**
   * Lets the tasks answer a row group from its footer statistics ({@link BatchPipeline#fromStatistics}) when this
   * pipeline is only an ungrouped partial aggregation of {@code count(*)}, {@code count(c)}, {@code min(c)} and
   * {@code max(c)} over columns of the scan (whose output is {@code scanSchema}). Exact: the row group's rows are
   * all of its rows (the scan asks only when nothing filters), and its count, NULL count and bounds are exact
   * ({@link RowGroupStatistics} says where they are); a column without them makes the task read the row group.
   */
  void answerFromStatistics(Schema scanSchema) {
    if (!stages.isEmpty() || expand != null || partial == null || !partial.keys().isEmpty()) return;
    int[] columns = new int[partial.calls().size()];
    for (int a = 0; a < columns.length; a++) {
      LogicalPlan.AggregateCall c = partial.calls().get(a);
      if (c.distinct() || !c.orderBy().isEmpty()) return;
      boolean count = c.func() == LogicalPlan.AggFunc.COUNT;
      if (!count && c.func() != LogicalPlan.AggFunc.MIN && c.func() != LogicalPlan.AggFunc.MAX) return;
      if (c.arg() == null && count) {
        columns[a] = -1;
        continue;
      }
      if (!(c.arg() instanceof dev.quiver.planner.expr.Expr.ColumnRef ref)) return;
      int at = -1;
      for (int f = 0; f < scanSchema.getFields().size(); f++) {
        if (scanSchema.getFields().get(f).getName().equals(ref.name())) at = f;
      }
      if (at < 0) return;
      columns[a] = at;
    }
    this.statisticsColumns = columns;
  }

  /** The scan columns the partial aggregation takes by dictionary index ({@link #keysByIndex(Schema)}). */
  private java.util.Set<String> keysByIndex = java.util.Set.of();

  /**
   * Lets the tasks take string group keys as dictionary indexes ({@link BatchPipeline#keysByIndex}) when this
   * pipeline is only a partial aggregation straight over the scan (whose output is {@code scanSchema}): the key
   * columns that are bare string columns of the scan which no other key and no aggregate reads. The group table then
   * maps each dictionary entry to its group once ({@link GroupTable}), and no string of those rows is made.
   */
  void keysByIndex(Schema scanSchema) {
    if (!stages.isEmpty() || expand != null || partial == null) return;
    this.keysByIndex = keysByIndex(partial.keyExprs(), partial.calls(), scanSchema);
  }

  /**
   * Of the group keys {@code keyExprs} of an aggregation of {@code calls} straight over a scan (output {@code
   * scanSchema}): the bare string columns that no aggregate and no other key reads, which the aggregation may take
   * by dictionary index.
   */
  static java.util.Set<String> keysByIndex(List<dev.quiver.planner.expr.Expr> keyExprs,
      List<LogicalPlan.AggregateCall> calls, Schema scanSchema) {
    java.util.Set<String> keys = new java.util.LinkedHashSet<>();
    java.util.Set<String> elsewhere = new java.util.HashSet<>();
    for (dev.quiver.planner.expr.Expr k : keyExprs) {
      if (k instanceof dev.quiver.planner.expr.Expr.ColumnRef ref && !keys.contains(ref.name())) keys.add(ref.name());
      else elsewhere.addAll(dev.quiver.planner.expr.Exprs.columns(k));
    }
    for (LogicalPlan.AggregateCall c : calls) {
      if (c.arg() != null) elsewhere.addAll(dev.quiver.planner.expr.Exprs.columns(c.arg()));
      if (c.arg2() != null) elsewhere.addAll(dev.quiver.planner.expr.Exprs.columns(c.arg2()));
      for (LogicalPlan.SortKey o : c.orderBy()) elsewhere.addAll(dev.quiver.planner.expr.Exprs.columns(o.expr()));
    }
    keys.removeAll(elsewhere);
    keys.removeIf(name -> {
      org.apache.arrow.vector.types.pojo.Field f = null;
      for (org.apache.arrow.vector.types.pojo.Field x : scanSchema.getFields()) if (x.getName().equals(name)) f = x;
      return f == null || !(f.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8);
    });
    return java.util.Set.copyOf(keys);
  }

  @Override
  public boolean answersFromStatistics() {
    return statisticsColumns != null;
  }

  /**
   * Keeps stage {@code stage} and every stage above it (the expansion and partial aggregation too) out of the scan's
   * tasks. Only before the scan starts.
   */
  synchronized void runHere(int stage) {
    if (stage >= cut) return;
    if (started) throw new IllegalStateException("the scan has started");
    cut = Math.min(cut, stage);
  }

  /** Whether the tasks run stage {@code stage} (the expansion: {@code stages}, the partial aggregation: one more). */
  boolean runsInTasks(int stage) {
    return stage < cut;
  }

  /** The index of the expansion's step, as {@link #runsInTasks} and {@link #step} take it; the aggregation's is next. */
  int expandIndex() {
    return stages.size();
  }

  int partialIndex() {
    return stages.size() + 1;
  }

  @Override
  public synchronized BatchPipeline create() {
    started = true;
    return new Task();
  }

  /**
   * A step of this pipeline run on the query's thread over batches the tasks did not carry that far: the filter or
   * projection {@code index}, the expansion ({@link #expandIndex}) or the partial aggregation ({@link #partialIndex})
   * (not a probe: its join runs itself). It counts its rows where the tasks would have.
   */
  Step step(int index) {
    if (index < stages.size()) {
      Stage s = stages.get(index);
      if (s instanceof Probe) throw new IllegalArgumentException("a join probes by itself");
      return new Step() {
        public void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
          VectorSchemaRoot r = s.apply(batch, allocator);
          if (r == null) return;
          stageRows[index].add(r.getRowCount());
          out.add(r);
        }
      };
    }
    if (index == expandIndex()) {
      return new Step() {
        public void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
          try (batch) {
            for (List<PhysicalExpr> projection : expand) {
              VectorSchemaRoot e = ProjectExec.compute(batch, projection, expandSchema, allocator);
              expandRows.add(e.getRowCount());
              out.add(e);
            }
          }
        }
      };
    }
    PartialAggregate.Task aggregate = new PartialAggregate.Task(partial, allocator, cancellation, sizeHint);
    return new Step() {
      public void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
        try (batch) {
          addTo(aggregate, batch, out);
        }
      }

      @Override public void finish(List<VectorSchemaRoot> out) {
        VectorSchemaRoot states = aggregate.emit();
        if (states != null) {
          partialRows.add(states.getRowCount());
          out.add(states);
        }
      }

      @Override public void close() {
        aggregate.close();
      }
    };
  }

  /** Folds {@code b} into {@code aggregate}, counting the rows of what it passes through to {@code out}. */
  private void addTo(PartialAggregate.Task aggregate, VectorSchemaRoot b, List<VectorSchemaRoot> out) {
    int before = out.size();
    long passed = aggregate.passed();
    aggregate.add(b, out);
    passedRows.add(aggregate.passed() - passed);
    for (int k = before; k < out.size(); k++) partialRows.add(out.get(k).getRowCount());
  }

  /** A step on the query's thread ({@link #step}). */
  interface Step {
    /** Takes {@code batch} (owned from now on) and adds what comes out to {@code out}. */
    void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out);

    /** After the last batch. */
    default void finish(List<VectorSchemaRoot> out) {}

    default void close() {}
  }

  private final class Task implements BatchPipeline {
    private final int end = Math.min(cut, stages.size());
    private final PartialAggregate.Task aggregate = partial == null || cut <= partialIndex() ? null
        : new PartialAggregate.Task(partial, allocator, cancellation, sizeHint);
    /** This task's prober of each probe stage (made on first use). */
    private final HashJoinExec.Prober[] probers = new HashJoinExec.Prober[stages.size()];

    @Override
    public java.util.Set<String> keysByIndex() {
      // only while the partial aggregation takes the scan's batches as they come, here in the task
      return aggregate != null && end == 0 && expand == null ? ScanPipeline.this.keysByIndex : java.util.Set.of();
    }

    @Override
    public void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
      try {
        cancellation.check();
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
      scanned.add(batch.getRowCount());
      run(batch, 0, out);
    }

    /** Runs {@code b} (owned) through the stages from {@code from} on. */
    private void run(VectorSchemaRoot b, int from, List<VectorSchemaRoot> out) {
      for (int i = from; i < end; i++) {
        if (stages.get(i) instanceof Probe p) {
          if (probers[i] == null) probers[i] = p.join.newProber();
          List<VectorSchemaRoot> parts = new java.util.ArrayList<>();
          try {
            p.join.probeInTask(probers[i], b, parts);
            for (int k = 0; k < parts.size(); k++) {
              VectorSchemaRoot part = parts.get(k);
              parts.set(k, null);
              stageRows[i].add(part.getRowCount());
              run(part, i + 1, out);
            }
          } finally {
            for (VectorSchemaRoot part : parts) if (part != null) part.close();
          }
          return;
        }
        b = stages.get(i).apply(b, allocator);
        if (b == null) return;
        stageRows[i].add(b.getRowCount());
      }
      if (aggregate == null) {
        out.add(b);
        return;
      }
      try (VectorSchemaRoot last = b) {
        if (expand == null) {
          addTo(aggregate, last, out);
        } else {
          for (List<PhysicalExpr> projection : expand) {
            try (VectorSchemaRoot e = ProjectExec.compute(last, projection, expandSchema, allocator)) {
              expandRows.add(e.getRowCount());
              addTo(aggregate, e, out);
            }
          }
        }
      }
    }

    /** The states folded from row groups' statistics (null: none yet): counts added, bounds kept. */
    private Object[] statisticsStates;

    /** Folds a row group's statistics into this task's states from statistics, emitted by {@link #finish}. */
    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public boolean fromStatistics(RowGroupStatistics stats, List<VectorSchemaRoot> out) {
      if (statisticsColumns == null || aggregate == null) return false;
      Object[] states = new Object[statisticsColumns.length];
      for (int a = 0; a < states.length; a++) {
        int col = statisticsColumns[a];
        if (col < 0) {
          states[a] = stats.rows();
          continue;
        }
        RowGroupStatistics.Column c = stats.columns().get(col);
        if (c == null) return false;
        states[a] = switch (partial.calls().get(a).func()) {
          case COUNT -> stats.rows() - c.nulls();
          case MIN -> c.min();
          default -> c.max();
        };
      }
      if (statisticsStates == null) {
        statisticsStates = states;
        return true;
      }
      for (int a = 0; a < states.length; a++) {
        Object now = statisticsStates[a];
        Object next = states[a];
        LogicalPlan.AggFunc f = statisticsColumns[a] < 0 ? LogicalPlan.AggFunc.COUNT : partial.calls().get(a).func();
        if (f == LogicalPlan.AggFunc.COUNT) {
          statisticsStates[a] = (Long) now + (Long) next;
        } else if (next != null && (now == null || Integer.signum(((Comparable) next).compareTo(now))
            == (f == LogicalPlan.AggFunc.MIN ? -1 : 1))) {
          statisticsStates[a] = next;
        }
      }
      return true;
    }

    /** The states from statistics as one row of the partial states (null: none). */
    private VectorSchemaRoot statisticsRow() {
      if (statisticsStates == null) return null;
      List<org.apache.arrow.vector.types.pojo.Field> fields = partial.stateSchema().getFields();
      List<org.apache.arrow.vector.FieldVector> vectors = new java.util.ArrayList<>();
      try {
        for (int a = 0; a < statisticsStates.length; a++) {
          org.apache.arrow.vector.FieldVector v = fields.get(a).createVector(allocator);
          vectors.add(v);
          v.setInitialCapacity(1);
          v.allocateNew();
          dev.quiver.planner.kernel.Vectors.set(v, 0, statisticsStates[a]);
          v.setValueCount(1);
        }
      } catch (RuntimeException | Error e) {
        vectors.forEach(org.apache.arrow.vector.FieldVector::close);
        throw e;
      }
      statisticsStates = null;
      partialRows.add(1);
      return new VectorSchemaRoot(fields, vectors, 1);
    }

    @Override
    public void finish(List<VectorSchemaRoot> out) {
      if (aggregate == null) return;
      VectorSchemaRoot fromStatistics = statisticsRow();
      if (fromStatistics != null) out.add(fromStatistics);
      VectorSchemaRoot states = aggregate.emit();
      if (states != null) {
        partialRows.add(states.getRowCount());
        out.add(states);
      }
    }

    @Override
    public void close() {
      if (aggregate != null) aggregate.close();
    }
  }
}
