package dev.quiver.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.parquet.column.ParquetProperties;

/**
 * The bundled sample data set, generated once, deterministically, into a cache directory outside git:
 * all eight TPC-H tables at scale factor 0.1, so every TPC-H query runs on it ({@code lineitem} sorted by
 * {@code l_shipdate} and {@code orders} in {@code o_orderkey} order, both in ~64k-row row groups; the
 * other six in one row group each), and the synthetic {@code events} table. One {@code <table>.parquet}
 * file per table.
 */
public final class SampleData {
  public static final String VERSION = "v2";
  public static final double TPCH_SCALE_FACTOR = 0.1;
  public static final int LINEITEM_ROW_GROUP_ROWS = 65_536;
  public static final int ORDERS_ROW_GROUP_ROWS = 65_536;
  public static final long EVENTS_ROWS = 100_000;
  public static final long EVENTS_SEED = 20_240_101L;
  public static final int EVENTS_ROW_GROUP_ROWS = 8_192;
  private static final String COMPLETE = "_COMPLETE";

  private SampleData() {}

  /** The cache root: {@code $QUIVER_CACHE_DIR}, else {@code $XDG_CACHE_HOME/quiver}, else {@code ~/.cache/quiver}. */
  public static Path cacheRoot() {
    String explicit = System.getenv("QUIVER_CACHE_DIR");
    if (explicit != null && !explicit.isBlank()) return Path.of(explicit);
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("quiver");
  }

  /** The sample directory under {@link #cacheRoot()}, generating it first if needed. */
  public static Path ensure() {
    return ensure(cacheRoot().resolve("sample-" + VERSION));
  }

  /** {@code dir} holding the sample tables, generated there first if it is not complete. */
  public static synchronized Path ensure(Path dir) {
    if (Files.exists(dir.resolve(COMPLETE))) return dir;
    try {
      Files.createDirectories(dir.getParent());
      Path tmp = Files.createTempDirectory(dir.getParent(), dir.getFileName() + ".tmp");
      Lineitem.write(tmp.resolve("lineitem.parquet"), TPCH_SCALE_FACTOR, Lineitem.Order.SHIPDATE,
          LINEITEM_ROW_GROUP_ROWS, b -> b);
      for (TpchTables.Table<?> t : TpchTables.ALL) {
        int rowGroupRows = t == TpchTables.ORDERS
            ? ORDERS_ROW_GROUP_ROWS : ParquetProperties.DEFAULT_ROW_GROUP_ROW_COUNT_LIMIT;
        t.write(tmp.resolve(t.name() + ".parquet"), TPCH_SCALE_FACTOR, rowGroupRows, b -> b);
      }
      Events.write(tmp.resolve("events.parquet"), EVENTS_ROWS, EVENTS_SEED, EVENTS_ROW_GROUP_ROWS);
      Files.writeString(tmp.resolve(COMPLETE), VERSION + "\n");
      replace(dir, tmp);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot generate sample data into " + dir, e);
    }
  }

  /** Puts the complete directory {@code tmp} in the place of {@code dir} (atomically where the file system can). */
  static void replace(Path dir, Path tmp) throws IOException {
    deleteRecursively(dir);
    try {
      Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, dir);
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) return;
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }
}
