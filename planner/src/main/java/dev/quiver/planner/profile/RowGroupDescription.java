package dev.quiver.planner.profile;

import java.util.List;

/** One row group of a file, with every column's statistics. */
public record RowGroupDescription(int index, long rows, long compressedBytes, List<ColumnStat> columns) {}
