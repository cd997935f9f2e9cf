package dev.quiver.scan.table;

import java.util.Map;
import org.apache.hadoop.fs.Path;

/**
 * One Parquet file of a table, identified by path, length and modification time (the footer cache key),
 * with the hive-style partition values of the directories it sits in.
 */
public record DataFile(Path path, long length, long modificationTime, Map<String, String> partitionValues) {
  public DataFile {
    partitionValues = Map.copyOf(partitionValues);
  }
}
