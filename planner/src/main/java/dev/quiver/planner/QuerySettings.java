package dev.quiver.planner;

import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Per-session settings that change planning: whether expressions are simplified (off shows the same
 * query without the simplifier: same rows, fewer row groups pruned) and the session time zone.
 */
public record QuerySettings(boolean simplify, ZoneId zone, long statementTimeoutMs, int batchRows) {
  public static final int DEFAULT_BATCH_ROWS = 32_768;
  public static final QuerySettings DEFAULT = new QuerySettings(true, ZoneOffset.UTC, 0, DEFAULT_BATCH_ROWS);

  public QuerySettings withSimplify(boolean on) {
    return new QuerySettings(on, zone, statementTimeoutMs, batchRows);
  }

  public QuerySettings withZone(ZoneId z) {
    return new QuerySettings(simplify, z, statementTimeoutMs, batchRows);
  }

  /** 0 means no timeout. */
  public QuerySettings withStatementTimeoutMs(long ms) {
    return new QuerySettings(simplify, zone, ms, batchRows);
  }

  /** Rows per scan batch (results are also split at a few MiB). */
  public QuerySettings withBatchRows(int rows) {
    return new QuerySettings(simplify, zone, statementTimeoutMs, rows);
  }
}
