package dev.quiver.planner;

import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Per-session settings that change planning: whether expressions are simplified (off shows the same
 * query without the simplifier: same rows, fewer row groups pruned) and the session time zone.
 */
public record QuerySettings(boolean simplify, ZoneId zone) {
  public static final QuerySettings DEFAULT = new QuerySettings(true, ZoneOffset.UTC);

  public QuerySettings withSimplify(boolean on) {
    return new QuerySettings(on, zone);
  }

  public QuerySettings withZone(ZoneId z) {
    return new QuerySettings(simplify, z);
  }
}
