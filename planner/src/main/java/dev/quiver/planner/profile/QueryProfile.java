package dev.quiver.planner.profile;

import java.util.List;

/**
 * The structured profile of one run. {@code steps}: each simplifier rewrite that fired on a predicate, in order, from
 * the same source as EXPLAIN VERBOSE (the optimizer's recorded steps); empty when the simplifier is off.
 */
public record QueryProfile(String sql, boolean simplified, PlanNode logical, PlanNode physical,
    List<RewriteStep> steps, List<ScanProfile> scans, double planningMs, double executionMs) {}
