package dev.quiver.scan.table;

import java.util.Map;
import org.apache.hadoop.fs.Path;

/**
 * One version of one Parquet file of a table, as a query planned it: path, length, modification time
 * (milliseconds) and {@code version} — on a local file system the file's identity (device and inode) and
 * its modification time to the nanosecond, on stores that have one the entity tag, else empty — with the
 * hive-style partition values of the directories it sits in. The footer cache is keyed by all of it, and a
 * scan checks that the file still is this version (see {@link FileVersions}).
 */
public record DataFile(Path path, long length, long modificationTime, String version, Map<String, String> partitionValues) {
  public DataFile {
    version = version == null ? "" : version;
    partitionValues = Map.copyOf(partitionValues);
  }

  public DataFile(Path path, long length, long modificationTime, Map<String, String> partitionValues) {
    this(path, length, modificationTime, "", partitionValues);
  }

  /** Whether {@code other} is the same version of the same file (partition values aside). */
  public boolean sameVersion(DataFile other) {
    return other != null && path.equals(other.path) && length == other.length
        && modificationTime == other.modificationTime && version.equals(other.version);
  }
}
