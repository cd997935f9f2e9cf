package dev.quiver.scan.table;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table: a named set of Parquet files with one Arrow schema. Partition columns (hive-style
 * {@code key=value} directories) come after the file columns. {@code distinctBounds} bounds the distinct
 * values of integer columns, from footer statistics. Columns whose Parquet type Quiver cannot
 * read are listed in {@code unsupportedColumns} with the reason, and are not part of the schema.
 */
public record ParquetTable(
    String name,
    List<DataFile> files,
    Schema schema,
    List<String> partitionColumns,
    Map<String, String> unsupportedColumns,
    long rowCount,
    Map<String, Long> distinctBounds) {

  public ParquetTable {
    files = List.copyOf(files);
    partitionColumns = List.copyOf(partitionColumns);
    unsupportedColumns = Map.copyOf(unsupportedColumns);
    distinctBounds = Map.copyOf(distinctBounds);
  }

  public ParquetTable(String name, List<DataFile> files, Schema schema, List<String> partitionColumns,
      Map<String, String> unsupportedColumns, long rowCount) {
    this(name, files, schema, partitionColumns, unsupportedColumns, rowCount, Map.of());
  }

  /**
   * An upper bound of a column's number of distinct values, from the footers' min/max of integer
   * columns (max - min + 1, at most the row count); the row count when unknown. For join ordering.
   */
  public long distinctBound(String column) {
    Long b = distinctBounds.get(column);
    return b == null ? Math.max(1, rowCount) : b;
  }

  /** The field of a column, matched case-insensitively, or null. */
  public Field field(String column) {
    for (Field f : schema.getFields()) {
      if (f.getName().equalsIgnoreCase(column)) return f;
    }
    return null;
  }

  public boolean isPartitionColumn(String column) {
    return partitionColumns.contains(column);
  }
}
