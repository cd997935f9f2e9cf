package dev.quiver.planner.profile;

/**
 * How to profile a run: keep the first {@code maxRows} rows; {@code oracle}: also find, per scanned row group, how
 * many rows really match the scan's exact conjuncts (the scans read again with pruning off;
 * {@link RowGroupOutcome#rowsMatching()}, else -1).
 */
public record ProfileOptions(int maxRows, boolean oracle) {}
