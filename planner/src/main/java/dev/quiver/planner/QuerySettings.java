package dev.quiver.planner;

import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Per-session settings that change planning: whether expressions are simplified (off shows the same
 * query without the simplifier: same rows, fewer row groups pruned) and the session time zone.
 */
public record QuerySettings(boolean simplify, ZoneId zone, long statementTimeoutMs, int batchRows, boolean pruning,
    boolean parallelPipelines) {
  public static final int DEFAULT_BATCH_ROWS = 32_768;
  public static final int MAX_BATCH_ROWS = 1_000_000;
  public static final QuerySettings DEFAULT = new QuerySettings(true, ZoneOffset.UTC, 0, DEFAULT_BATCH_ROWS, true, true);

  /**
   * Checked whatever the source (a session's SET, a fragment ticket, a test): batches of 0 rows made the scan's tasks
   * loop forever on empty batches.
   */
  public QuerySettings {
    if (zone == null) throw new IllegalArgumentException("settings need a time zone");
    if (statementTimeoutMs < 0) throw new IllegalArgumentException("a statement timeout of " + statementTimeoutMs + " ms");
    if (batchRows < 1 || batchRows > MAX_BATCH_ROWS) {
      throw new IllegalArgumentException("batches of " + batchRows + " rows (1 to " + MAX_BATCH_ROWS + ")");
    }
  }

  public QuerySettings(boolean simplify, ZoneId zone, long statementTimeoutMs, int batchRows, boolean pruning) {
    this(simplify, zone, statementTimeoutMs, batchRows, pruning, true);
  }

  /**
   * Off: filters, projections and aggregations above a scan run on the query's one consumer thread instead of
   * in the scan's row-group tasks (same results; for comparisons and benchmarks).
   */
  public QuerySettings withParallelPipelines(boolean on) {
    return new QuerySettings(simplify, zone, statementTimeoutMs, batchRows, pruning, on);
  }

  public QuerySettings withSimplify(boolean on) {
    return new QuerySettings(on, zone, statementTimeoutMs, batchRows, pruning, parallelPipelines);
  }

  public QuerySettings withZone(ZoneId z) {
    return new QuerySettings(simplify, z, statementTimeoutMs, batchRows, pruning, parallelPipelines);
  }

  /** 0 means no timeout. */
  public QuerySettings withStatementTimeoutMs(long ms) {
    return new QuerySettings(simplify, zone, ms, batchRows, pruning, parallelPipelines);
  }

  /**
   * Off: scans read every row group and page (the scan's exact conjuncts and the filter above still run):
   * the baseline for benchmarks.
   */
  public QuerySettings withPruning(boolean on) {
    return new QuerySettings(simplify, zone, statementTimeoutMs, batchRows, on, parallelPipelines);
  }

  /** Rows per scan batch (results are also split at a few MiB). */
  public QuerySettings withBatchRows(int rows) {
    return new QuerySettings(simplify, zone, statementTimeoutMs, rows, pruning, parallelPipelines);
  }
}
