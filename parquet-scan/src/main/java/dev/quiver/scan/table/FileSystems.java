package dev.quiver.scan.table;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The Hadoop configuration Quiver reaches files through: local paths, {@code hdfs://}, {@code s3a://}.
 * Pages that carry a CRC (parquet-java writes one by default) are verified, so a damaged page fails
 * its query instead of answering wrong values; a site configuration can turn that off.
 */
public final class FileSystems {
  private static final Configuration CONF = new Configuration();

  static {
    CONF.setBooleanIfUnset("parquet.page.verify-checksum.enabled", true);
  }

  private FileSystems() {}

  public static Configuration conf() {
    return CONF;
  }

  /** A path from a user-given location: a URI with a scheme, or a local path. */
  public static Path toPath(String location) {
    URI uri = URI.create(location.replace(" ", "%20"));
    if (uri.getScheme() == null || uri.getScheme().length() == 1) {
      return new Path(java.nio.file.Path.of(location).toAbsolutePath().normalize().toUri());
    }
    return new Path(uri);
  }

  public static FileSystem fileSystem(Path path) throws IOException {
    return path.getFileSystem(CONF);
  }
}
