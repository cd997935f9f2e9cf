package dev.quiver.planner;

import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Per-session settings that change planning: whether expressions are simplified (off shows the same
 * query without the simplifier: same rows, fewer row groups pruned) and the session time zone.
 */
public record QuerySettings(boolean simplify, ZoneId zone, long statementTimeoutMs) {
  public static final QuerySettings DEFAULT = new QuerySettings(true, ZoneOffset.UTC, 0);

  public QuerySettings withSimplify(boolean on) {
    return new QuerySettings(on, zone, statementTimeoutMs);
  }

  public QuerySettings withZone(ZoneId z) {
    return new QuerySettings(simplify, z, statementTimeoutMs);
  }

  /** 0 means no timeout. */
  public QuerySettings withStatementTimeoutMs(long ms) {
    return new QuerySettings(simplify, zone, ms);
  }
}
