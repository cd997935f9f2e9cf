package dev.quiver.planner.profile;

import java.util.List;
import java.util.Map;

/**
 * One scan of a profiled run. {@code nodeId}: the physical {@link PlanNode#id()} of that scan; {@code metrics}: the
 * same keys as EXPLAIN ANALYZE's scan line; {@code oracle}: whether {@link RowGroupOutcome#rowsMatching()} was found.
 */
public record ScanProfile(String nodeId, String table, String predicate, String residual, List<String> exact,
    List<String> predicateColumns, Map<String, Long> metrics, boolean oracle, List<RowGroupOutcome> rowGroups) {}
