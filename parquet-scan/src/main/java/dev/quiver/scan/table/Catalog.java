package dev.quiver.scan.table;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables of a data directory: each {@code *.parquet} file is a table named after the file, each
 * directory of Parquet files is a table named after the directory, and hive-style {@code key=value}
 * sub-directories give partition columns. Names are matched case-insensitively.
 *
 * <p>One unreadable table does not stop the others from being served: a table none of whose files has a
 * readable footer (not Parquet, truncated, encrypted) is still listed, with no columns, and every query
 * naming it fails with the reason. A table of several files takes its schema from the first readable
 * one; a query that reaches an unreadable file fails then, naming the file (never a silently partial
 * answer).
 */
public final class Catalog {
  public static final String HIVE_NULL = "__HIVE_DEFAULT_PARTITION__";
  private static final Logger LOG = LoggerFactory.getLogger(Catalog.class);

  private final Map<String, ParquetTable> tables; // lower-case name -> table
  private final Map<String, QuiverException> unreadable; // lower-case name -> why its files cannot be read
  private final FooterCache footers;

  private Catalog(Map<String, ParquetTable> tables, Map<String, QuiverException> unreadable, FooterCache footers) {
    this.tables = tables;
    this.unreadable = unreadable;
    this.footers = footers;
  }

  public static Catalog open(String location) {
    FooterCache footers = new FooterCache(10_000);
    Path root = FileSystems.toPath(location);
    Map<String, ParquetTable> tables = new TreeMap<>();
    Map<String, QuiverException> unreadable = new TreeMap<>();
    try {
      FileSystem fs = FileSystems.fileSystem(root);
      if (!fs.exists(root)) {
        throw new QuiverException(ErrorCode.NOT_FOUND, "data directory " + location + " does not exist");
      }
      if (fs.getFileStatus(root).isFile()) {
        addTable(tables, unreadable, tableName(root.getName()), List.of(dataFile(fs.getFileStatus(root), Map.of())), footers);
      } else {
        for (FileStatus st : sorted(fs.listStatus(root))) {
          String name = st.getPath().getName();
          if (hidden(name)) continue;
          if (st.isFile() && name.endsWith(".parquet")) {
            addTable(tables, unreadable, tableName(name), List.of(dataFile(st, Map.of())), footers);
          } else if (st.isDirectory()) {
            List<DataFile> files = new ArrayList<>();
            collect(fs, st.getPath(), new LinkedHashMap<>(), files);
            if (!files.isEmpty()) addTable(tables, unreadable, name, files, footers);
          }
        }
      }
    } catch (IOException e) {
      throw new QuiverException(ErrorCode.NOT_FOUND, "cannot list data directory " + location + ": " + e.getMessage(), e);
    }
    return new Catalog(Collections.unmodifiableMap(tables), Collections.unmodifiableMap(unreadable), footers);
  }

  /** The table named {@code name}, or null; fails with the reason if the table's files cannot be read. */
  public ParquetTable table(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    QuiverException e = unreadable.get(key);
    if (e != null) {
      throw new QuiverException(e.code(), "table " + tables.get(key).name() + " cannot be read: " + e.getMessage(), e);
    }
    return tables.get(key);
  }

  public List<ParquetTable> tables() {
    return List.copyOf(tables.values());
  }

  public FooterCache footers() {
    return footers;
  }

  private static String tableName(String fileName) {
    return fileName.endsWith(".parquet") ? fileName.substring(0, fileName.length() - ".parquet".length()) : fileName;
  }

  private static boolean hidden(String name) {
    return name.startsWith(".") || name.startsWith("_");
  }

  private static List<FileStatus> sorted(FileStatus[] statuses) {
    List<FileStatus> list = new ArrayList<>(List.of(statuses));
    list.sort((a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
    return list;
  }

  private static void collect(FileSystem fs, Path dir, LinkedHashMap<String, String> partitions, List<DataFile> out)
      throws IOException {
    for (FileStatus st : sorted(fs.listStatus(dir))) {
      String name = st.getPath().getName();
      if (hidden(name)) continue;
      if (st.isDirectory()) {
        int eq = name.indexOf('=');
        LinkedHashMap<String, String> next = new LinkedHashMap<>(partitions);
        if (eq > 0) {
          next.put(name.substring(0, eq), URLDecoder.decode(name.substring(eq + 1), StandardCharsets.UTF_8));
        }
        collect(fs, st.getPath(), next, out);
      } else if (st.getLen() > 0 && !name.endsWith(".crc")) {
        out.add(dataFile(st, partitions));
      }
    }
  }

  private static DataFile dataFile(FileStatus st, Map<String, String> partitions) {
    return new DataFile(st.getPath(), st.getLen(), st.getModificationTime(), partitions);
  }

  /** Adds a table, or lists it as unreadable (with no columns) if no file of it has a readable footer. */
  private static void addTable(Map<String, ParquetTable> tables, Map<String, QuiverException> unreadable, String name,
      List<DataFile> files, FooterCache footers) {
    try {
      tables.put(name.toLowerCase(Locale.ROOT), table(name, files, footers));
    } catch (RuntimeException e) {
      QuiverException q = e instanceof QuiverException qe ? qe : new QuiverException(ErrorCode.CORRUPT_FILE,
          "cannot read Parquet metadata of " + files.get(0).path() + ": " + e, e);
      LOG.warn("table {} cannot be read, queries on it will fail: {}", name, q.getMessage());
      tables.put(name.toLowerCase(Locale.ROOT), new ParquetTable(name, files, new Schema(List.of()), List.of(), Map.of(), 0));
      unreadable.put(name.toLowerCase(Locale.ROOT), q);
    }
  }

  private static ParquetTable table(String name, List<DataFile> files, FooterCache footers) {
    ParquetMetadata first = null;
    RuntimeException firstError = null;
    Map<DataFile, ParquetMetadata> readable = new LinkedHashMap<>();
    for (DataFile f : files) {
      try {
        ParquetMetadata m = footers.footer(f);
        readable.put(f, m);
        if (first == null) first = m;
      } catch (QuiverException e) {
        // the scan fails on this file when a query reaches it
        if (firstError == null) firstError = e;
        if (files.size() > 1) LOG.warn("table {}: {}", name, e.getMessage());
      }
    }
    if (first == null) throw firstError;
    MessageType schema = first.getFileMetaData().getSchema();
    List<Field> fields = new ArrayList<>();
    Map<String, String> unsupported = new LinkedHashMap<>();
    for (String encrypted : encryptedColumns(first)) {
      unsupported.put(encrypted, "column encrypted with Parquet modular encryption");
    }
    for (Type t : schema.getFields()) {
      if (unsupported.containsKey(t.getName())) continue;
      TypeMapping.Mapped m = TypeMapping.map(t);
      if (m.supported()) {
        fields.add(new Field(t.getName(), new FieldType(!t.isRepetition(Type.Repetition.REQUIRED), m.type(), null), null));
      } else {
        unsupported.put(t.getName(), m.unsupportedReason());
      }
    }
    List<String> partitionColumns = new ArrayList<>(files.get(0).partitionValues().keySet());
    for (String p : partitionColumns) {
      boolean allIntegers = files.stream().map(f -> f.partitionValues().get(p))
          .allMatch(v -> v == null || HIVE_NULL.equals(v) || v.matches("-?\\d{1,18}"));
      ArrowType type = allIntegers ? new ArrowType.Int(64, true) : ArrowType.Utf8.INSTANCE;
      fields.add(new Field(p, FieldType.nullable(type), null));
    }
    long rows = 0;
    Map<String, long[]> ranges = new LinkedHashMap<>();
    java.util.Set<String> unknown = new java.util.HashSet<>();
    for (ParquetMetadata m : readable.values()) {
      for (BlockMetaData b : m.getBlocks()) {
        rows += b.getRowCount();
        for (org.apache.parquet.hadoop.metadata.ColumnChunkMetaData c : b.getColumns()) {
          if (c.getPath().size() != 1 || c.isEncrypted()) continue;
          String col = c.getPath().toArray()[0];
          var t = c.getPrimitiveType().getPrimitiveTypeName();
          if (t != org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32
              && t != org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64) continue;
          org.apache.parquet.column.statistics.Statistics<?> st;
          try {
            st = c.getStatistics();
          } catch (RuntimeException e) {
            unknown.add(col); // statistics parquet-java cannot decode only cost the bound
            continue;
          }
          if (st == null || st.isEmpty() || !st.hasNonNullValue()) {
            if (b.getRowCount() > 0 && (st == null || st.getNumNulls() != b.getRowCount())) unknown.add(col);
            continue;
          }
          long min = ((Number) st.genericGetMin()).longValue();
          long max = ((Number) st.genericGetMax()).longValue();
          long[] r = ranges.computeIfAbsent(col, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
          r[0] = Math.min(r[0], min);
          r[1] = Math.max(r[1], max);
        }
      }
    }
    Map<String, Long> bounds = new LinkedHashMap<>();
    for (var e : ranges.entrySet()) {
      if (unknown.contains(e.getKey())) continue;
      long span = e.getValue()[1] - e.getValue()[0];
      bounds.put(e.getKey(), span < 0 || span >= rows ? Math.max(1, rows) : span + 1);
    }
    return new ParquetTable(name, files, new Schema(fields), partitionColumns, unsupported, rows, bounds);
  }

  /** Top-level columns with an encrypted chunk (a plaintext footer can describe them; no keys read them). */
  private static List<String> encryptedColumns(ParquetMetadata footer) {
    List<String> out = new ArrayList<>();
    for (BlockMetaData b : footer.getBlocks()) {
      for (org.apache.parquet.hadoop.metadata.ColumnChunkMetaData c : b.getColumns()) {
        String top = c.getPath().toArray()[0];
        if (c.isEncrypted() && !out.contains(top)) out.add(top);
      }
    }
    return out;
  }
}
