package dev.quiver.scan.table;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table: a named set of Parquet files with one Arrow schema. Partition columns (hive-style
 * {@code key=value} directories) come after the file columns. Columns whose Parquet type Quiver cannot
 * read are listed in {@code unsupportedColumns} with the reason, and are not part of the schema.
 */
public record ParquetTable(
    String name,
    List<DataFile> files,
    Schema schema,
    List<String> partitionColumns,
    Map<String, String> unsupportedColumns,
    long rowCount) {

  public ParquetTable {
    files = List.copyOf(files);
    partitionColumns = List.copyOf(partitionColumns);
    unsupportedColumns = Map.copyOf(unsupportedColumns);
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
