package dev.quiver.scan.table;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
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
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>A catalog is a snapshot of the directory: {@link #refresh()} takes a new one, and the planner takes
 * one per query, so that files added, deleted or replaced (by ETL jobs, while the server runs) are seen by
 * the next query, and a query sees one version of each table however often it names it. A snapshot
 * lists the data directory when it is first asked for a table (one naming none lists nothing); a table is resolved when a query first names it: its files are
 * listed and their versions (length, modification time, identity: {@link FileVersions}) compared with
 * those of the last resolution, which is reused if nothing changed (footers are cached by file version,
 * so an unchanged table costs a listing and no read). A scan checks that each file is still the version
 * the query planned, and fails the query if not.
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
  /** Listings of a table retried when one of its files changes while its footer is read. */
  private static final int RESOLVE_ATTEMPTS = 3;

  /** A table's files as listed, and the table they make (null: no files) or why it cannot be read. */
  private record Resolved(List<DataFile> files, ParquetTable table, QuiverException error) {}

  /** A top-level entry of the data directory: a table's file, or its directory. */
  private record Entry(String name, FileStatus status) {}

  /** What all snapshots of one data directory share: its footers and the last resolution of each table. */
  private static final class Directory {
    final String location;
    final Path root;
    final boolean rootIsFile;
    final FileSystems fileSystems;
    final FooterCache footers;
    /** Dictionaries, bloom filters and page indexes read to prune, across queries (see {@link #metadataCache(long)}). */
    volatile MetadataCache metadata = new MetadataCache(metadataCacheBytes);
    final Map<String, Resolved> last = new ConcurrentHashMap<>(); // lower-case name -> last resolution

    Directory(String location, Path root, boolean rootIsFile, FileSystems fileSystems) {
      this.fileSystems = fileSystems;
      this.footers = new FooterCache(10_000, fileSystems);
      this.location = location;
      this.root = root;
      this.rootIsFile = rootIsFile;
    }
  }

  private final Directory directory;
  /** Lower-case name -> entry, sorted; null until a table is first asked for (then listed, once). */
  private volatile Map<String, Entry> entries;
  private final Map<String, Resolved> resolved = new ConcurrentHashMap<>(); // this snapshot's tables

  private Catalog(Directory directory, Map<String, Entry> entries) {
    this.directory = directory;
    this.entries = entries;
  }

  /**
   * A snapshot of the data directory (or single file) at {@code location}, with every table resolved (so
   * that unreadable ones are logged at start-up).
   */
  public static Catalog open(String location) {
    return open(location, FileSystems.defaults());
  }

  /** {@link #open(String)} with the files reached through {@code fileSystems}' Hadoop configuration. */
  public static Catalog open(String location, FileSystems fileSystems) {
    Path root = FileSystems.toPath(location);
    FileStatus status;
    try {
      FileSystem fs = fileSystems.fileSystem(root);
      if (!fs.exists(root)) {
        throw new QuiverException(ErrorCode.NOT_FOUND, "data directory " + location + " does not exist");
      }
      status = fs.getFileStatus(root);
    } catch (IOException e) {
      throw new QuiverException(ErrorCode.NOT_FOUND, "cannot list data directory " + location + ": " + e.getMessage(), e);
    }
    Catalog catalog = snapshot(new Directory(location, root, status.isFile(), fileSystems));
    try {
      for (ParquetTable t : catalog.tables()) {
        if (t.unsupportedColumns().isEmpty()) continue;
        List<String> cols = new ArrayList<>();
        new TreeMap<>(t.unsupportedColumns()).forEach((c, why) -> cols.add(c + " (" + why + ")"));
        LOG.warn("table {}: column{} {} not supported; its other columns are served", t.name(),
            cols.size() == 1 ? "" : "s", String.join(", ", cols) + (cols.size() == 1 ? " is" : " are"));
      }
      List<String> skipped = catalog.notTables();
      if (!skipped.isEmpty()) {
        LOG.warn("not served: {} (only *.parquet files, and directories of them, are tables)", String.join(", ", skipped));
      }
    } catch (QuiverException | IOException e) {
      LOG.warn("data directory {} changed while it was read: {}", location, e.getMessage());
    }
    return catalog;
  }

  /**
   * A new snapshot of the same data directory: lists it again when a table is first asked for (tables are
   * resolved when named), so that a statement naming no table (a pool's {@code SELECT 1}) lists nothing.
   */
  public Catalog refresh() {
    return new Catalog(directory, null);
  }

  /** The data directory's top level as this snapshot sees it: listed by the first call, the same ever after. */
  private Map<String, Entry> entries() {
    Map<String, Entry> e = entries;
    if (e == null) {
      synchronized (this) {
        e = entries;
        if (e == null) entries = e = list(directory);
      }
    }
    return e;
  }

  /** The names of the snapshot's tables as listed, without reading any of them (for "did you mean"). */
  public List<String> tableNames() {
    List<String> out = new ArrayList<>();
    for (Entry e : entries().values()) out.add(e.name());
    return out;
  }

  /** The table named {@code name}, or null; fails with the reason if the table's files cannot be read. */
  public ParquetTable table(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    Entry entry = entries().get(key);
    if (entry == null) return null;
    Resolved r = resolve(key, entry);
    if (r.error() != null) {
      throw new QuiverException(r.error().code(), "table " + r.table().name() + " cannot be read: " + r.error().getMessage(),
          r.error());
    }
    return r.table();
  }

  /** Every table of the snapshot (unreadable ones with no columns), by name. */
  public List<ParquetTable> tables() {
    List<ParquetTable> out = new ArrayList<>();
    for (var e : entries().entrySet()) {
      ParquetTable t = resolve(e.getKey(), e.getValue()).table();
      if (t != null) out.add(t);
    }
    return out;
  }

  /** {@code file}'s path relative to the data directory (its name when the data directory is one file). */
  public String relativePath(DataFile file) {
    String p = file.path().toUri().getPath();
    if (directory.rootIsFile) return file.path().getName();
    String root = directory.root.toUri().getPath();
    if (root.endsWith("/")) root = root.substring(0, root.length() - 1);
    return p.startsWith(root + "/") ? p.substring(root.length() + 1) : p;
  }

  public FooterCache footers() {
    return directory.footers;
  }

  /** The default bound of the metadata cache: 256 MiB. */
  public static final long DEFAULT_METADATA_CACHE = 256L << 20;
  private static volatile long metadataCacheBytes = DEFAULT_METADATA_CACHE;

  /**
   * The bound of the metadata cache of every data directory opened from now on (the server's
   * {@code --metadata-cache BYTES}; 0: nothing cached).
   */
  public static void defaultMetadataCache(long bytes) {
    if (bytes < 0) throw new IllegalArgumentException("--metadata-cache must not be negative");
    metadataCacheBytes = bytes;
  }

  /** The cache of dictionaries, bloom filters and page indexes that scans of this data directory prune with. */
  public MetadataCache metadataCache() {
    return directory.metadata;
  }

  /**
   * Bounds the metadata cache of this data directory (every snapshot of it) to {@code bytes} (0: nothing cached), in
   * a new, empty cache (the server's {@code --metadata-cache}); returns this snapshot.
   */
  public Catalog metadataCache(long bytes) {
    directory.metadata = new MetadataCache(bytes);
    return this;
  }

  /** The Hadoop configuration this data directory's files are read through. */
  public FileSystems fileSystems() {
    return directory.fileSystems;
  }

  private Resolved resolve(String key, Entry entry) {
    Resolved r = resolved.get(key);
    if (r == null) {
      r = resolve(directory, key, entry);
      Resolved raced = resolved.putIfAbsent(key, r);
      if (raced != null) r = raced; // one version per snapshot
    }
    return r;
  }

  /** A snapshot listed now. */
  private static Catalog snapshot(Directory d) {
    return new Catalog(d, list(d));
  }

  /** Lists the data directory's top level: its tables' files and directories (not what is inside them). */
  private static Map<String, Entry> list(Directory d) {
    Map<String, Entry> entries = new TreeMap<>();
    try {
      FileSystem fs = d.fileSystems.fileSystem(d.root);
      if (d.rootIsFile) {
        FileStatus st = fs.getFileStatus(d.root);
        entries.put(tableName(d.root.getName()).toLowerCase(Locale.ROOT), new Entry(tableName(d.root.getName()), st));
      } else {
        for (FileStatus st : sorted(FileVersions.list(fs, d.root))) {
          String name = FileVersions.name(st);
          if (hidden(name)) continue;
          if (st.isFile() && name.endsWith(".parquet")) {
            entries.put(tableName(name).toLowerCase(Locale.ROOT), new Entry(tableName(name), st));
          } else if (st.isDirectory()) {
            entries.put(name.toLowerCase(Locale.ROOT), new Entry(name, st));
          }
        }
      }
    } catch (java.io.FileNotFoundException e) {
      // clients are told without the directory's path (docs/operations.md: no absolute path in messages); the log has it
      LOG.warn("data directory {} no longer exists", d.location);
      throw new QuiverException(ErrorCode.NOT_FOUND, "the data directory no longer exists (deleted or moved since the "
          + "server started)", e);
    } catch (IOException e) {
      LOG.warn("cannot list data directory {}: {}", d.location, e.toString());
      throw new QuiverException(ErrorCode.NOT_FOUND, "cannot list the data directory (" + e.getClass().getSimpleName()
          + "; the server's log has the details)", e);
    }
    d.last.keySet().retainAll(entries.keySet()); // forget tables that are gone
    return Collections.unmodifiableMap(entries);
  }

  /**
   * A table as its files are now: the last resolution if they are the same versions, else their footers
   * read (from the cache where a version was seen before). A file that changes while its footer is read
   * makes the table be listed again.
   */
  private static Resolved resolve(Directory d, String key, Entry entry) {
    for (int attempt = 1; ; attempt++) {
      List<DataFile> files = new ArrayList<>();
      try {
        if (entry.status().isFile()) {
          // the top-level listing's status, unless this is a retry
          FileStatus st = attempt == 1 ? entry.status() : d.fileSystems.fileSystem(d.root).getFileStatus(entry.status().getPath());
          DataFile f = FileVersions.of(st, Map.of());
          if (f != null) files.add(f);
        } else {
          collect(d.fileSystems.fileSystem(d.root), entry.status().getPath(), new LinkedHashMap<>(), files);
        }
      } catch (java.io.FileNotFoundException e) {
        files.clear(); // deleted since the top level was listed: no table
      } catch (IOException e) {
        LOG.warn("cannot list table {} in {}: {}", entry.name(), d.location, e.toString());
        throw new QuiverException(ErrorCode.NOT_FOUND, "cannot list table " + entry.name() + " ("
            + e.getClass().getSimpleName() + "; the server's log has the details)", e);
      }
      if (files.isEmpty()) return new Resolved(List.of(), null, null);
      Resolved last = d.last.get(key);
      if (last != null && last.files().equals(files) && last.table().name().equals(entry.name())) return last;
      Resolved r;
      try {
        r = new Resolved(files, table(entry.name(), files, d.footers), null);
      } catch (QuiverException e) {
        if (e.code() == ErrorCode.FILE_CHANGED) {
          if (attempt < RESOLVE_ATTEMPTS) continue;
          throw e;
        }
        r = unreadable(entry.name(), files, e);
      } catch (RuntimeException e) {
        r = unreadable(entry.name(), files, new QuiverException(ErrorCode.CORRUPT_FILE,
            "cannot read Parquet metadata of " + files.get(0).path() + ": " + e, e));
      }
      d.last.put(key, r);
      return r;
    }
  }

  /** A table listed with no columns, every query on which fails with {@code e}. */
  private static Resolved unreadable(String name, List<DataFile> files, QuiverException e) {
    LOG.warn("table {} cannot be read, queries on it will fail: {}", name, e.getMessage());
    return new Resolved(files, new ParquetTable(name, files, new Schema(List.of()), List.of(), Map.of(), 0), e);
  }

  /**
   * The files at the data directory's top level that are not tables (a CSV, a {@code notes.txt}), hidden ones
   * ({@code .x}, {@code _x}) aside: named at start-up, so that nothing vanishes without a word.
   */
  public List<String> notTables() throws IOException {
    List<String> out = new ArrayList<>();
    if (directory.rootIsFile) return out;
    FileSystem fs = directory.fileSystems.fileSystem(directory.root);
    for (FileStatus st : sorted(FileVersions.list(fs, directory.root))) {
      String name = FileVersions.name(st);
      if (st.isFile() && !hidden(name) && !name.endsWith(".parquet")) out.add(name);
    }
    return out;
  }

  private static String tableName(String fileName) {
    return fileName.endsWith(".parquet") ? fileName.substring(0, fileName.length() - ".parquet".length()) : fileName;
  }

  private static boolean hidden(String name) {
    return name.startsWith(".") || name.startsWith("_");
  }

  private static List<FileStatus> sorted(FileStatus[] statuses) {
    List<FileStatus> list = new ArrayList<>(List.of(statuses));
    list.sort((a, b) -> FileVersions.name(a).compareTo(FileVersions.name(b)));
    return list;
  }

  private static void collect(FileSystem fs, Path dir, LinkedHashMap<String, String> partitions, List<DataFile> out)
      throws IOException {
    for (FileStatus st : sorted(FileVersions.list(fs, dir))) {
      String name = FileVersions.name(st);
      if (hidden(name)) continue;
      if (st.isDirectory()) {
        int eq = name.indexOf('=');
        LinkedHashMap<String, String> next = new LinkedHashMap<>(partitions);
        if (eq > 0) {
          next.put(name.substring(0, eq), URLDecoder.decode(name.substring(eq + 1), StandardCharsets.UTF_8));
        }
        try {
          collect(fs, st.getPath(), next, out);
        } catch (java.io.FileNotFoundException e) {
          // a partition deleted since its parent was listed
        }
      } else if (st.getLen() > 0 && !name.endsWith(".crc")) {
        DataFile f = FileVersions.of(st, partitions);
        if (f != null && f.length() > 0) out.add(f);
      }
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
        if (e.code() == ErrorCode.FILE_CHANGED) throw e; // the table is listed again
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
    // byte-array columns all of whose chunks are dictionary-encoded (a file without the column: not so)
    java.util.Set<String> dictionary = new java.util.HashSet<>();
    for (Field f : fields) dictionary.add(f.getName());
    for (ParquetMetadata m : readable.values()) {
      java.util.Set<String> inFile = new java.util.HashSet<>();
      for (BlockMetaData b : m.getBlocks()) {
        for (org.apache.parquet.hadoop.metadata.ColumnChunkMetaData c : b.getColumns()) {
          if (c.getPath().size() != 1 || c.isEncrypted()) continue;
          String col = c.getPath().toArray()[0];
          if (c.getPrimitiveType().getPrimitiveTypeName() != org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY
              || !ParquetTable.dictionaryOnly(c)) {
            dictionary.remove(col);
          }
          inFile.add(col);
        }
      }
      if (!m.getBlocks().isEmpty()) dictionary.retainAll(inFile);
    }
    if (readable.size() < files.size()) dictionary.clear(); // a file unread: unknown
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
    dictionary.removeAll(partitionColumns);
    return new ParquetTable(name, files, new Schema(fields), partitionColumns, unsupported, rows, bounds, dictionary);
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
