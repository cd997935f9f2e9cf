package dev.quiver.planner.exec;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.planner.source.TableSource;
import dev.quiver.scan.read.ScanOptions;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads a table through its {@link TableSource} (Parquet files: {@code ParquetScan}): pruning with the pushed predicate (unless pruning is off), and
 * applying the scan's exact conjuncts (a {@link ScanFilter}) to every row it reads, pruning or not.
 */
public final class ScanExec extends Operator {
  private final LogicalPlan.TableScan plan;
  private final ScanMetrics metrics;
  private final TableSource.BatchReader scan;

  private final dev.quiver.planner.Cancellation cancellation;

  /** Runs {@code pipeline} (null: none) in the scan's tasks: filters, projections, a partial aggregation. */
  private final ScanPipeline pipeline;
  /** Pruning on (the session's {@code quiver.scan.pruning}): runtime filters prune too, or not at all. */
  private final boolean pruning;

  ScanExec(LogicalPlan.TableScan plan, ScanFilter filter, BufferAllocator allocator, int batchRows,
      dev.quiver.planner.Cancellation cancellation, boolean pruning, ScanOptions options) {
    this(plan, filter, allocator, batchRows, cancellation, pruning, options, null, false);
  }

  ScanExec(LogicalPlan.TableScan plan, ScanFilter filter, BufferAllocator allocator, int batchRows,
      dev.quiver.planner.Cancellation cancellation, boolean pruning, ScanOptions options, ScanPipeline pipeline,
      boolean recordRowGroups) {
    this.metrics = recordRowGroups ? ScanMetrics.recordingRowGroups() : new ScanMetrics();
    this.plan = plan;
    this.cancellation = cancellation;
    this.pipeline = pipeline;
    this.pruning = pruning;
    ScanPredicate p = plan.predicate() == null || !pruning ? new ScanPredicate.Const(true) : plan.predicate();
    this.scan = plan.table().open(new TableSource.ScanSpec(plan.columns(), p, filter, batchRows, pruning, options,
        pipeline, cancellation::check), allocator, metrics);
  }

  /** With a pipeline: the rows the scan read into it (what leaves the scan's tasks is the pipeline's). */
  @Override
  protected long outputRows() {
    return pipeline == null ? super.outputRows() : pipeline.scanned.sum();
  }

  @Override public Schema schema() { return plan.schema(); }
  @Override public List<Operator> children() { return List.of(); }

  @Override
  public String describe() {
    return plan.table().describeScan()
        + " columns=[" + String.join(", ", plan.columns()) + "]"
        + " predicate=" + (plan.predicate() == null ? "none" : plan.predicate())
        + " residual=" + (plan.residual() == null ? "none" : plan.residual())
        + (plan.exact().isEmpty() ? "" : " exact=" + plan.exact())
        + (pipeline == null ? "" : " pipeline=" + pipeline.describe())
        + (metrics.runtimeFilter() == null ? "" : " runtime_filter=[" + metrics.runtimeFilter() + "]")
        + (metrics.topNFilter() == null ? "" : " top_n_filter=[" + metrics.topNFilter() + "]");
  }

  private boolean started;

  /**
   * Before the scan starts, without a pipeline: hands {@code columns} as dictionary indexes to this scan's one
   * consumer, which must read them so and call {@code DictionaryStrings.received} for every batch; whether it does.
   */
  boolean keysByIndex(java.util.Set<String> columns) {
    if (started || pipeline != null || columns.isEmpty()) return false;
    return scan.keysByIndex(columns);
  }

  @Override
  protected VectorSchemaRoot produce() {
    cancellation.check();
    started = true;
    return scan.next();
  }

  /**
   * A join's runtime filter on this scan's table columns (see {@link HashJoinExec}), if the scan has not started:
   * row groups that hold no row satisfying it are skipped (pruning level RUNTIME); EXPLAIN ANALYZE shows it as
   * {@code runtime_filter=[…]} with {@code row_groups_pruned_runtime}.
   */
  void runtimeFilter(dev.quiver.scan.predicate.ScanPredicate filter, String shown) {
    if (started || !pruning) return;
    scan.runtimeFilter(filter);
    metrics.runtimeFilter(shown);
  }

  /**
   * A top-N's bound on this scan's column (see {@link SortExec}), if the scan has not started: returns whether the
   * source takes it. With pruning on, EXPLAIN ANALYZE shows it as {@code top_n_filter=[…]} (its last bound) with
   * {@code row_groups_pruned_top_n}.
   */
  boolean topN(dev.quiver.scan.read.TopNFilter filter) {
    return !started && scan.topN(filter);
  }

  @Override
  public Map<String, Long> metrics() {
    Map<String, Long> m = new java.util.LinkedHashMap<>(metrics.asMap());
    m.remove("files");
    return m;
  }

  /** The logical scan this operator reads (its table, predicate, residual and exact conjuncts). */
  public LogicalPlan.TableScan scanPlan() {
    return plan;
  }

  public ScanMetrics scanMetrics() {
    return metrics;
  }

  @Override
  public void close() {
    scan.close();
  }
}
