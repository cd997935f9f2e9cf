package dev.quiver.scan.read;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Work a scan runs on its own threads, inside each row-group task, on every batch the task reads (morsel-driven
 * execution): e.g. a filter, a projection, a partial aggregation. One pipeline per task ({@link Factory#create}),
 * used by that task's thread only; the scan hands out what the pipelines emit, in file and row-group order.
 *
 * <p>A pipeline allocates from the scan's (the query's) allocator, may throw from {@link #accept} or
 * {@link #finish} (the scan's consumer then gets that exception, as it is), and is always {@link #close closed},
 * after {@link #finish} or on an error, a fallback re-read of the row group, or the scan closing.
 */
public interface BatchPipeline extends AutoCloseable {
  /** Takes {@code batch} (owned from now on: closed or passed on) and adds whatever comes out to {@code out}. */
  void accept(VectorSchemaRoot batch, List<VectorSchemaRoot> out);

  /** After the task's last batch: adds trailing batches (e.g. partial aggregate states) to {@code out}. */
  void finish(List<VectorSchemaRoot> out);

  /**
   * Before a row group is read, when every one of its rows reaches the pipeline (no predicate, row filter or runtime
   * filter could drop one): whether the pipeline takes them from their {@code stats} instead (e.g. {@code count(*)},
   * {@code min}, {@code max}); then no page of the row group is read. The scan offers one pipeline the statistics of
   * all such row groups, while it plans them on the query's thread, then calls its {@link #finish}. Only asked of
   * pipelines whose factory {@link Factory#answersFromStatistics can answer}.
   */
  default boolean fromStatistics(RowGroupStatistics stats, List<VectorSchemaRoot> out) {
    return false;
  }

  /**
   * The string columns of the scan's output that this pipeline only groups by (it reads nothing else of them): for
   * those the scan may hand a batch's rows as dictionary indexes instead of strings ({@link DictionaryStrings#of},
   * {@link DictionaryStrings#absent}), and the pipeline must read them so, or make their strings
   * ({@link DictionaryStrings#materialize}) before it passes the rows on. Asked once, before the first batch.
   */
  default java.util.Set<String> keysByIndex() {
    return java.util.Set.of();
  }

  /** Releases what the pipeline still holds. */
  @Override
  void close();

  /** Makes the pipeline of one row-group task; called on the task's thread. */
  @FunctionalInterface
  interface Factory {
    BatchPipeline create();

    /** Whether its pipelines may answer row groups {@link BatchPipeline#fromStatistics from their statistics}. */
    default boolean answersFromStatistics() {
      return false;
    }
  }
}
