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
    Map<String, Long> distinctBounds,
    java.util.Set<String> dictionaryColumns) {

  public ParquetTable {
    files = List.copyOf(files);
    partitionColumns = List.copyOf(partitionColumns);
    unsupportedColumns = Map.copyOf(unsupportedColumns);
    distinctBounds = Map.copyOf(distinctBounds);
    dictionaryColumns = java.util.Set.copyOf(dictionaryColumns);
  }

  public ParquetTable(String name, List<DataFile> files, Schema schema, List<String> partitionColumns,
      Map<String, String> unsupportedColumns, long rowCount, Map<String, Long> distinctBounds) {
    this(name, files, schema, partitionColumns, unsupportedColumns, rowCount, distinctBounds, java.util.Set.of());
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

  /**
   * Whether every chunk of byte-array column {@code column}, in every row group of every file, has only
   * dictionary-encoded data pages by its footer ({@link #dictionaryOnly}): its values can be handled by dictionary
   * index throughout.
   */
  public boolean dictionaryEncoded(String column) {
    return dictionaryColumns.contains(column);
  }

  /**
   * Whether every data page of chunk {@code c} is dictionary-encoded, by the footer: its encoding statistics, or
   * (written without them) a data-page encoding that can only be the dictionary's. Unsure is no.
   */
  public static boolean dictionaryOnly(org.apache.parquet.hadoop.metadata.ColumnChunkMetaData c) {
    org.apache.parquet.column.EncodingStats stats = c.getEncodingStats();
    if (stats != null) return stats.hasDictionaryPages() && !stats.hasNonDictionaryEncodedPages();
    java.util.Set<org.apache.parquet.column.Encoding> encodings = new java.util.HashSet<>(c.getEncodings());
    // written without statistics (parquet-java before 1.9 wrote pages v1): PLAIN_DICTIONARY pages, levels RLE or
    // BIT_PACKED; a PLAIN among them would be a page that fell back from the dictionary
    if (!encodings.remove(org.apache.parquet.column.Encoding.PLAIN_DICTIONARY)) return false;
    encodings.remove(org.apache.parquet.column.Encoding.RLE);
    encodings.remove(org.apache.parquet.column.Encoding.BIT_PACKED);
    return encodings.isEmpty();
  }

  public boolean isPartitionColumn(String column) {
    return partitionColumns.contains(column);
  }
}
