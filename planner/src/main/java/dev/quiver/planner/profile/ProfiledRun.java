package dev.quiver.planner.profile;

import java.util.List;

/**
 * What one run of a query returned, for a console: first rows as text, and its profile. {@code rows}: the first
 * {@link ProfileOptions#maxRows()} rows, each value rendered as text as the JDBC driver shows it (NULL as Java null);
 * {@code rowCount} counts all rows; {@code truncated} = {@code rowCount > rows.size()}.
 */
public record ProfiledRun(List<String> columnNames, List<String> columnTypes, List<List<String>> rows,
    long rowCount, boolean truncated, double elapsedMs, QueryProfile profile) {}
