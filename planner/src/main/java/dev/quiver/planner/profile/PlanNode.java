package dev.quiver.planner.profile;

import java.util.List;
import java.util.Map;

/**
 * One operator of a plan tree. {@code id}: unique in the tree (e.g. "p3"); {@code operator}: e.g. "ParquetScanExec",
 * "Filter"; {@code detail}: the rest of its EXPLAIN line without metrics; {@code outputRows}/{@code elapsedMs}: -1
 * when unknown (the logical plan); {@code attributes}: the EXPLAIN ANALYZE key=value metrics of that operator.
 */
public record PlanNode(String id, String operator, String detail, long outputRows, double elapsedMs,
    Map<String, String> attributes, List<PlanNode> children) {}
