package dev.quiver.planner.source;

import dev.quiver.scan.prune.ScanMetrics;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table as plans and operators see it: its columns, what join ordering may estimate from (row count, distinct
 * bounds), and a scan. Parquet files are one implementation ({@link ParquetTableSource}); tables held in memory
 * are another ({@link MemoryTable}), so that plan rules and operators are tested and benchmarked without files.
 * Implementations are immutable values: two sources are equal when they read the same version of the same data.
 */
public interface TableSource {
  /** The table's name, as queries name it. */
  String name();

  /** Every column, in order. */
  Schema schema();

  /** The column named {@code column} (exact name), or null. */
  default Field field(String column) {
    for (Field f : schema().getFields()) if (f.getName().equals(column)) return f;
    return null;
  }

  /** The number of rows, or an estimate of it (for join ordering). */
  long rowCount();

  /** An upper bound of the distinct values of {@code column} (for join ordering); the row count when unknown. */
  default long distinctBound(String column) {
    return Math.max(1, rowCount());
  }

  /**
   * Whether string column {@code column} is dictionary-encoded throughout (every chunk's pages, by the footers), so
   * that the scan can hand all its rows by dictionary index. Default: not known, no.
   */
  default boolean dictionaryEncoded(String column) {
    return false;
  }

  /** The operator's line in EXPLAIN up to the columns, e.g. {@code ParquetScanExec: table=lineitem files=3}. */
  String describeScan();

  /** Opens a scan of {@code spec.columns()}; the batches are allocated from {@code allocator}. */
  BatchReader open(ScanSpec spec, BufferAllocator allocator, ScanMetrics metrics);

  /**
   * What to read: the columns in order, the predicate to prune with (null: none; a hint, might-match only), the
   * filter every row that leaves the scan must pass (null: none; exact, its columns read even when not output),
   * and the pipeline to run on the scan's batches where they are read (null: none; see
   * {@link dev.quiver.scan.read.BatchPipeline}): the scan then returns what the pipelines emit.
   */
  record ScanSpec(List<String> columns, dev.quiver.scan.predicate.ScanPredicate predicate,
      dev.quiver.scan.predicate.RowPredicate filter, int batchRows, boolean pruning, dev.quiver.scan.read.ScanOptions options,
      dev.quiver.scan.read.BatchPipeline.Factory pipeline, Runnable stopCheck) {
    public ScanSpec {
      columns = List.copyOf(columns);
      if (stopCheck == null) stopCheck = () -> { };
    }

    /** {@code stopCheck}: the query's cancellation, which throws once it should stop; run by the scan's workers too. */
    public ScanSpec(List<String> columns, dev.quiver.scan.predicate.ScanPredicate predicate,
        dev.quiver.scan.predicate.RowPredicate filter, int batchRows, boolean pruning, dev.quiver.scan.read.ScanOptions options,
        dev.quiver.scan.read.BatchPipeline.Factory pipeline) {
      this(columns, predicate, filter, batchRows, pruning, options, pipeline, null);
    }

    public ScanSpec(List<String> columns, dev.quiver.scan.predicate.ScanPredicate predicate,
        dev.quiver.scan.predicate.RowPredicate filter, int batchRows, boolean pruning, dev.quiver.scan.read.ScanOptions options) {
      this(columns, predicate, filter, batchRows, pruning, options, null);
    }
  }

  /** Batches of a scan, in order; closing it releases every batch not handed out. */
  interface BatchReader extends AutoCloseable {
    /** The next batch (the caller owns it), or null when the scan is done. */
    org.apache.arrow.vector.VectorSchemaRoot next();

    /**
     * A filter known only at run time (a join's build keys), given before the first {@link #next()}: the source may
     * skip what cannot satisfy it (it must not drop rows on its own account: pruning only). Default: ignored.
     */
    default void runtimeFilter(dev.quiver.scan.predicate.ScanPredicate filter) {
    }

    /**
     * Before the first {@link #next()}: whether the source hands string columns {@code columns} as dictionary indexes
     * where it can ({@code ParquetScan#withKeysByIndex}); the caller then reads them so and calls {@code
     * DictionaryStrings.received} for every batch. Default: no.
     */
    default boolean keysByIndex(java.util.Set<String> columns) {
      return false;
    }

    /**
     * A top-N's bound on one of the source's columns, tightened while the scan runs, given before the first {@link
     * #next()}: the source may read best first and skip what cannot satisfy the bound when its turn comes (pruning
     * only). Returns whether the source takes it. Default: ignored.
     */
    default boolean topN(dev.quiver.scan.read.TopNFilter filter) {
      return false;
    }

    @Override
    void close();
  }
}
