package dev.quiver.planner.profile;

import java.util.List;

/**
 * What a scan did with one row group. {@code file}: path relative to the data directory; {@code index}: row group
 * number in that file; {@code pagesTotal}/{@code pagesPruned}: pages of the predicate columns (0/0 when no page index
 * was used); {@code rowsRead}: rows decoded; {@code rowsMatching}: rows matching the exact conjuncts (the oracle), -1
 * when not computed; {@code stats}: min/max/null count of each predicate column in that row group.
 */
public record RowGroupOutcome(String file, int index, long rows, long compressedBytes, Outcome outcome,
    int pagesTotal, int pagesPruned, long rowsRead, long rowsMatching, List<ColumnStat> stats) {
  public enum Outcome { PRUNED_PARTITION, PRUNED_STATISTICS, PRUNED_DICTIONARY, PRUNED_BLOOM, PRUNED_RUNTIME, PRUNED_TOP_N, FROM_STATISTICS, READ_PAGES_PRUNED, READ }
}
