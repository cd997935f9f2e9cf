package dev.quiver.scan.table;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The Hadoop configuration one data directory's files are reached through: local paths, {@code hdfs://},
 * {@code s3a://}. Each {@link Catalog} owns one (no process-wide static), handed to whatever reads its files
 * (footers, file versions, scans). Pages that carry a CRC (parquet-java writes one by default) are verified,
 * so a damaged page fails its query instead of answering wrong values; a site configuration can turn that off.
 */
public final class FileSystems {
  private final Configuration conf;

  /** File systems through a copy of {@code conf}, with page checksums verified unless it says otherwise. */
  public FileSystems(Configuration conf) {
    this.conf = new Configuration(conf);
    this.conf.setBooleanIfUnset("parquet.page.verify-checksum.enabled", true);
  }

  /** File systems through Hadoop's default configuration (its site files on the class path, if any). */
  public static FileSystems defaults() {
    return new FileSystems(new Configuration());
  }

  public Configuration conf() {
    return conf;
  }

  /** A path from a user-given location: a URI with a scheme, or a local path. */
  public static Path toPath(String location) {
    URI uri = URI.create(location.replace(" ", "%20"));
    if (uri.getScheme() == null || uri.getScheme().length() == 1) {
      return new Path(java.nio.file.Path.of(location).toAbsolutePath().normalize().toUri());
    }
    return new Path(uri);
  }

  public FileSystem fileSystem(Path path) throws IOException {
    return path.getFileSystem(conf);
  }
}
