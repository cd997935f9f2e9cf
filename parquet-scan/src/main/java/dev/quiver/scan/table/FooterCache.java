package dev.quiver.scan.table;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/** Parquet footers keyed by path, length and modification time, so a changed file is re-read. */
public final class FooterCache {
  private record Key(String path, long length, long modificationTime) {}

  private final Map<Key, ParquetMetadata> cache;

  public FooterCache(int maxEntries) {
    this.cache = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Key, ParquetMetadata> eldest) {
        return size() > maxEntries;
      }
    };
  }

  public ParquetMetadata footer(DataFile file) {
    Key key = new Key(file.path().toString(), file.length(), file.modificationTime());
    synchronized (cache) {
      ParquetMetadata m = cache.get(key);
      if (m != null) return m;
    }
    ParquetMetadata m = read(file);
    synchronized (cache) {
      cache.put(key, m);
    }
    return m;
  }

  private static ParquetMetadata read(DataFile file) {
    try {
      HadoopInputFile in = HadoopInputFile.fromPath(file.path(), FileSystems.conf());
      return ParquetFileReader.readFooter(in, ParquetMetadataConverter.NO_FILTER);
    } catch (IOException | RuntimeException e) {
      throw new QuiverException(
          ErrorCode.CORRUPT_FILE, "cannot read Parquet footer of " + file.path() + ": " + e.getMessage(), e);
    }
  }
}
