package dev.quiver.planner.exec;

import dev.quiver.planner.Cancellation;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.scan.read.BatchPipeline;
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
 */
final class ScanPipeline implements BatchPipeline.Factory {
  /** One stateless step: a filter or a projection. */
  sealed interface Stage permits Filter, Project {
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

  private final List<Stage> stages;
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
    this.allocator = allocator;
    this.cancellation = cancellation;
    this.stageRows = new LongAdder[stages.size()];
    for (int i = 0; i < stageRows.length; i++) stageRows[i] = new LongAdder();
  }

  /** The steps as EXPLAIN shows them, e.g. {@code [filter, project, partial_aggregate]}. */
  String describe() {
    StringBuilder b = new StringBuilder("[");
    for (Stage s : stages) b.append(b.length() > 1 ? ", " : "").append(s.name());
    if (expand != null) b.append(b.length() > 1 ? ", " : "").append("expand");
    if (partial != null) b.append(b.length() > 1 ? ", " : "").append("partial_aggregate");
    return b.append(']').toString();
  }

  @Override
  public BatchPipeline create() {
    return new Task();
  }

  private final class Task implements BatchPipeline {
    private final PartialAggregate.Task aggregate = partial == null ? null
        : new PartialAggregate.Task(partial, allocator, cancellation);

    @Override
    public void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
      try {
        cancellation.check();
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
      scanned.add(batch.getRowCount());
      VectorSchemaRoot b = batch;
      for (int i = 0; i < stages.size(); i++) {
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
          aggregate.add(last);
        } else {
          for (List<PhysicalExpr> projection : expand) {
            try (VectorSchemaRoot e = ProjectExec.compute(last, projection, expandSchema, allocator)) {
              expandRows.add(e.getRowCount());
              aggregate.add(e);
            }
          }
        }
      }
    }

    @Override
    public void finish(List<VectorSchemaRoot> out) {
      if (aggregate == null) return;
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
