package dev.quiver.scan.table;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Which version of a file a query reads. A file is identified by its length and modification time, and
 * more where the file system offers it: on a local file system by its file key (device and inode) and
 * its modification time in nanoseconds (java.nio; Hadoop's local file system only gives milliseconds), so
 * that an atomic {@code mv} of a new file of the same size within the same millisecond (or with its
 * modification time copied) is still a new version; on object stores by the entity tag when the Hadoop
 * client gives one ({@link EtagSource}, e.g. S3A, ABFS). On HDFS, length and modification time
 * (milliseconds) are what there is.
 */
public final class FileVersions {
  private FileVersions() {}

  /**
   * A local file's status as {@link #list} gives it: with its version, so that it needs no second stat, and
   * its Hadoop path only made when asked for (making one costs as much as the stat).
   */
  private static final class LocalStatus extends FileStatus {
    final Path dir;
    final String name;
    final String version;
    private volatile Path path;

    LocalStatus(long length, boolean isDir, long modificationTime, Path dir, String name, String version) {
      super(length, isDir, 1, 0, modificationTime, null);
      this.dir = dir;
      this.name = name;
      this.version = version;
    }

    @Override
    public Path getPath() {
      if (path == null) path = new Path(dir, name);
      return path;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof FileStatus other && getPath().equals(other.getPath());
    }

    @Override
    public int hashCode() {
      return getPath().hashCode();
    }
  }

  /**
   * The entries of a directory; on a local file system through java.nio (with each file's version), which
   * costs a fraction of Hadoop's local {@code listStatus}: a query lists the data directory, and the
   * directories of the tables it names, every time.
   */
  static FileStatus[] list(FileSystem fs, Path dir) throws IOException {
    if (!isLocal(dir)) return fs.listStatus(dir);
    java.nio.file.Path local = java.nio.file.Path.of(dir.toUri());
    List<FileStatus> out = new ArrayList<>();
    try (DirectoryStream<java.nio.file.Path> entries = Files.newDirectoryStream(local)) {
      for (java.nio.file.Path e : entries) {
        BasicFileAttributes a;
        try {
          a = Files.readAttributes(e, BasicFileAttributes.class);
        } catch (NoSuchFileException gone) {
          continue; // deleted since the directory was read
        }
        out.add(new LocalStatus(a.isDirectory() ? 0 : a.size(), a.isDirectory(), a.lastModifiedTime().toMillis(), dir,
            e.getFileName().toString(), a.isRegularFile() ? version(a) : null));
      }
    } catch (NoSuchFileException e) {
      throw new FileNotFoundException(dir + " does not exist");
    }
    return out.toArray(new FileStatus[0]);
  }

  /** The name of a listed entry (without making its path). */
  static String name(FileStatus st) {
    return st instanceof LocalStatus l ? l.name : st.getPath().getName();
  }

  /** The file of {@code st} (as listed), with its version; null if it disappeared since it was listed. */
  static DataFile of(FileStatus st, Map<String, String> partitions) throws IOException {
    Path path = st.getPath();
    if (st instanceof LocalStatus l && l.version != null) {
      return new DataFile(path, l.getLen(), l.getModificationTime(), l.version, partitions);
    }
    if (isLocal(path)) {
      try {
        return local(path, partitions);
      } catch (NoSuchFileException | FileNotFoundException e) {
        return null;
      }
    }
    return new DataFile(path, st.getLen(), st.getModificationTime(), etag(st), partitions);
  }

  /** The current version of {@code file}'s path (its partition values kept), or null if there is no file there. */
  static DataFile current(FileSystems fileSystems, DataFile file) throws IOException {
    Path path = file.path();
    try {
      if (isLocal(path)) return local(path, file.partitionValues());
      FileStatus st = fileSystems.fileSystem(path).getFileStatus(path);
      if (!st.isFile()) return null;
      return new DataFile(path, st.getLen(), st.getModificationTime(), etag(st), file.partitionValues());
    } catch (NoSuchFileException | FileNotFoundException e) {
      return null;
    }
  }

  /**
   * Fails with {@link ErrorCode#FILE_CHANGED} if the file at {@code file}'s path is no longer that version
   * of it (replaced, rewritten, deleted) since the query was planned.
   */
  public static void verify(FileSystems fileSystems, DataFile file) {
    QuiverException e = changed(fileSystems, file, null);
    if (e != null) throw e;
  }

  /**
   * Why {@code file} is no longer the version the query planned, as the error to fail the query with
   * ({@code cause} its cause: what reading it ran into), or null if it still is.
   */
  public static QuiverException changed(FileSystems fileSystems, DataFile file, Throwable cause) {
    if (cause instanceof QuiverException q && q.code() == ErrorCode.FILE_CHANGED) return q;
    DataFile now;
    try {
      now = current(fileSystems, file);
    } catch (IOException | RuntimeException e) {
      if (cause != null) return null; // the read's own error tells more
      return new QuiverException(ErrorCode.CORRUPT_FILE, "cannot check Parquet file " + file.path() + ": " + e, e);
    }
    if (now == null) {
      return new QuiverException(ErrorCode.FILE_CHANGED, "file " + file.path()
          + " was deleted while the query read it; retry the query", cause);
    }
    if (!now.sameVersion(file)) {
      return new QuiverException(ErrorCode.FILE_CHANGED, "file " + file.path() + " changed while the query read it"
          + " (its length, modified time or identity differs from when the query was planned); retry the query", cause);
    }
    return null;
  }

  private static boolean isLocal(Path path) {
    return "file".equals(path.toUri().getScheme());
  }

  private static DataFile local(Path path, Map<String, String> partitions) throws IOException {
    BasicFileAttributes a = Files.readAttributes(java.nio.file.Path.of(path.toUri()), BasicFileAttributes.class);
    if (!a.isRegularFile()) throw new NoSuchFileException(path.toString());
    return new DataFile(path, a.size(), a.lastModifiedTime().toMillis(), version(a), partitions);
  }

  /** A local file's modification time in nanoseconds and its file key (device and inode). */
  private static String version(BasicFileAttributes a) {
    return a.lastModifiedTime().to(TimeUnit.NANOSECONDS) + (a.fileKey() == null ? "" : "@" + a.fileKey());
  }

  private static String etag(FileStatus st) {
    if (st instanceof EtagSource e) {
      String tag = e.getEtag();
      return tag == null ? "" : tag;
    }
    return "";
  }
}
