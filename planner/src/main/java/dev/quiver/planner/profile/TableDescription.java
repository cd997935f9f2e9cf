package dev.quiver.planner.profile;

import java.util.List;

/**
 * A table as its footers describe it. {@code sortedBy}: columns whose row groups' [min,max] ranges are ascending and
 * non-overlapping in file order across the table.
 */
public record TableDescription(String name, long rows, long bytes, List<ColumnDescription> columns,
    List<String> partitionColumns, List<String> sortedBy, List<FileDescription> files) {}
