package dev.quiver.scan.table;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet footers keyed by the version of their file (path, length, modification time and, where the file
 * system has one, identity: see {@link FileVersions}), so a changed file is re-read; a footer is only cached
 * once the file was checked to still be the version asked for after reading it.
 */
public final class FooterCache {
  private static final byte[] MAGIC = {'P', 'A', 'R', '1'};
  private static final byte[] ENCRYPTED_MAGIC = {'P', 'A', 'R', 'E'};

  private record Key(String path, long length, long modificationTime, String version) {}

  private final Map<Key, ParquetMetadata> cache;
  private final FileSystems fileSystems;

  public FooterCache(int maxEntries, FileSystems fileSystems) {
    this.fileSystems = fileSystems;
    this.cache = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Key, ParquetMetadata> eldest) {
        return size() > maxEntries;
      }
    };
  }

  public ParquetMetadata footer(DataFile file) {
    Key key = new Key(file.path().toString(), file.length(), file.modificationTime(), file.version());
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

  private ParquetMetadata read(DataFile file) {
    try {
      HadoopInputFile in = HadoopInputFile.fromPath(file.path(), fileSystems.conf());
      try (SeekableInputStream s = in.newStream()) {
        // parquet-java only reads the tail; a file that does not start like Parquet is not one either
        if (in.getLength() < 2L * MAGIC.length + 4) {
          throw new QuiverException(ErrorCode.CORRUPT_FILE, "cannot read Parquet footer of " + file.path()
              + ": not a Parquet file (only " + in.getLength() + " bytes long)");
        }
        byte[] head = new byte[MAGIC.length];
        s.readFully(head);
        if (!Arrays.equals(head, MAGIC) && !Arrays.equals(head, ENCRYPTED_MAGIC)) {
          throw new QuiverException(ErrorCode.CORRUPT_FILE, "cannot read Parquet footer of " + file.path()
              + ": not a Parquet file (it does not start with PAR1 but with " + shown(head) + ")");
        }
        ParquetMetadata footer;
        try {
          footer = ParquetFileReader.readFooter(in, ParquetMetadataConverter.NO_FILTER);
        } catch (RuntimeException e) {
          ParquetMetadata tolerant = withoutUnknownLogicalTypes(in, s);
          if (tolerant == null) throw e;
          footer = tolerant;
        }
        // the footer read is the one of the version asked for (not of a file replaced since it was listed)
        FileVersions.verify(fileSystems, file);
        return footer;
      }
    } catch (QuiverException e) {
      throw changedOr(file, e);
    } catch (ParquetCryptoRuntimeException e) {
      throw changedOr(file, new QuiverException(ErrorCode.UNSUPPORTED, "cannot read " + file.path()
          + ": Parquet modular encryption is not supported (" + e.getMessage() + ")", e));
    } catch (IOException | RuntimeException e) {
      throw changedOr(file, new QuiverException(
          ErrorCode.CORRUPT_FILE, "cannot read Parquet footer of " + file.path() + ": " + firstLine(e), e));
    }
  }

  /** {@code e}, unless the file is no longer the version asked for: then that is the error (a half-written, replaced file). */
  private QuiverException changedOr(DataFile file, QuiverException e) {
    QuiverException changed = FileVersions.changed(fileSystems, file, e);
    return changed != null ? changed : e;
  }

  /** An exception's message up to its first line break (parquet-java appends whole schemas to some). */
  private static String firstLine(Exception e) {
    String m = e.getMessage() == null ? e.toString() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl).replaceAll("[\\s{]+$", "") + " ...";
  }

  /**
   * The footer of a file whose schema has logical types newer than parquet-java knows (which it fails
   * on): such columns are read as their physical type, without min/max statistics or column index
   * since their order is unknown, as the Parquet format asks of older readers. Null if the footer
   * has no unknown logical type, or cannot be parsed at all.
   */
  private static ParquetMetadata withoutUnknownLogicalTypes(HadoopInputFile in, SeekableInputStream s) {
    try {
      long len = in.getLength();
      s.seek(len - 8);
      byte[] tail = new byte[8];
      s.readFully(tail);
      long footerLength = BytesUtils.readIntLittleEndian(tail, 0) & 0xFFFFFFFFL;
      if (!Arrays.equals(Arrays.copyOfRange(tail, 4, 8), MAGIC) || footerLength > len - 12) return null;
      byte[] footer = new byte[(int) footerLength];
      s.seek(len - 8 - footerLength);
      s.readFully(footer);
      FileMetaData meta = Util.readFileMetaData(new ByteArrayInputStream(footer));
      Set<String> unknown = new HashSet<>();
      for (SchemaElement e : meta.getSchema()) {
        if (e.isSetLogicalType() && e.getLogicalType().getSetField() == null) {
          e.unsetLogicalType();
          unknown.add(e.getName());
        }
      }
      if (unknown.isEmpty()) return null;
      for (RowGroup g : meta.getRow_groups()) {
        for (ColumnChunk c : g.getColumns()) {
          List<String> path = c.isSetMeta_data() ? c.getMeta_data().getPath_in_schema() : List.of();
          if (!path.isEmpty() && unknown.contains(path.get(path.size() - 1))) {
            c.getMeta_data().unsetStatistics();
            c.unsetColumn_index_offset();
            c.unsetColumn_index_length();
          }
        }
      }
      return new ParquetMetadataConverter().fromParquetMetadata(meta);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** A file's first bytes as a person reads them: "text" when printable ASCII, else hexadecimal. */
  static String shown(byte[] head) {
    boolean text = true;
    for (byte b : head) text &= b >= 0x20 && b < 0x7F;
    if (text) return "\"" + new String(head, java.nio.charset.StandardCharsets.US_ASCII) + "\"";
    StringBuilder hex = new StringBuilder("0x");
    for (byte b : head) hex.append(String.format("%02X", b));
    return hex.toString();
  }
}
