package dev.quiver.scan.read;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.predicate.RowPredicate;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ParquetFilterConverter;
import dev.quiver.scan.prune.PruningLevel;
import dev.quiver.scan.prune.RowGroupPruner;
import dev.quiver.scan.prune.RowGroupReport;
import dev.quiver.scan.table.ChunkStats;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.DataFile;
import dev.quiver.scan.table.FileSystems;
import dev.quiver.scan.table.FileVersions;
import dev.quiver.scan.table.FooterCache;
import dev.quiver.scan.table.ParquetTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.fs.FileStatus;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.DictionaryPageReadStore;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.BloomFilterReader;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexFilter;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Reads the projected columns of a table's Parquet files into Arrow batches, skipping the row groups
 * that {@link RowGroupPruner} proves cannot match the pushed predicate. Batches are owned by the caller.
 * A {@link RowPredicate}, if given, is applied to every row read (its columns decoded first, the others only
 * for the rows it keeps). A scan with no projected columns and no row predicate (e.g. {@code count(*)})
 * answers from row-group metadata alone: its batches have no columns, only row counts.
 *
 * <p>Row groups are read in parallel: each is a task (prune, then read its surviving pages into
 * batches) run on the executor of the {@link ScanOptions} (the server's pool, shared by its queries); up to
 * {@code threads} tasks of one scan run ahead of the consumer. Batches come out in file and row-group order, so results do
 * not depend on timing. Closing the scan stops its tasks and releases every batch not handed out.
 */
public final class ParquetScan implements AutoCloseable {
  private final ParquetTable table;
  /** The output columns. */
  private final List<Field> fields;
  /** The columns read: the output columns, then the row predicate's columns that are not output. */
  private final List<Field> readFields;
  private final ScanPredicate predicate;
  /** A join's runtime filter ({@link #withRuntimeFilter}), or null. */
  private ScanPredicate runtime;
  /** A top-N's bound ({@link #withTopN}), or null. */
  private TopNFilter topN;
  /** Row-group tasks whose batches were collected (under a top-N the first runs alone). */
  private int completedTasks;
  private final BufferAllocator allocator;
  private final ScanMetrics metrics;
  private final FooterCache footers;
  /** Dictionaries, bloom filters and page indexes read to prune, kept across queries by file version. */
  private final dev.quiver.scan.table.MetadataCache metadataCache;
  private final FileSystems fileSystems;
  private final int batchRows;
  private final boolean usePageIndex;
  private final int parallelism;
  private RowPredicate rowPredicate;
  private final ScanOptions options;
  private final Catalog catalog;
  /** Run by each row-group task on the batches it reads (null: none). */
  private BatchPipeline.Factory pipeline;
  /**
   * The query's stop condition: throws (a cancel, a statement timeout) once the scan should stop. Run while
   * {@link #next()} waits for a row group, every {@value #STOP_POLL_MS} ms, and by each row-group task between
   * its batches, so that neither the caller nor the shared scan pool keeps working for a query that has ended.
   */
  private volatile Runnable stopCheck = () -> { };
  static final long STOP_POLL_MS = 20;

  /** Only these row groups (by file path) are read; null: all (see {@link #withRowGroups}). */
  private java.util.Map<org.apache.hadoop.fs.Path, Set<Integer>> only;

  /** The row groups still to read, in order. */
  private ArrayDeque<RowGroupTask> todo;
  private final ArrayDeque<Running> inFlight = new ArrayDeque<>();
  private final ArrayDeque<VectorSchemaRoot> ready = new ArrayDeque<>();
  private volatile boolean closed;

  public ParquetScan(Catalog catalog, ParquetTable table, List<String> columns, ScanPredicate predicate,
      BufferAllocator allocator, ScanMetrics metrics, int batchRows) {
    this(catalog, table, columns, predicate, allocator, metrics, batchRows, true);
  }

  public ParquetScan(Catalog catalog, ParquetTable table, List<String> columns, ScanPredicate predicate,
      BufferAllocator allocator, ScanMetrics metrics, int batchRows, boolean usePageIndex) {
    this(catalog, table, columns, predicate, allocator, metrics, batchRows, usePageIndex, ScanOptions.shared());
  }

  /**
   * A scan; with {@code usePageIndex} the column and offset indexes narrow each surviving row group to
   * the pages that might match, and only those pages are read (rows stay aligned across columns).
   * {@code options} say how: {@code threads()} row groups are read ahead concurrently (1: one at a time)
   * on {@code executor()}, with the own decoders and codecs or parquet-java's.
   */
  public ParquetScan(Catalog catalog, ParquetTable table, List<String> columns, ScanPredicate predicate,
      BufferAllocator allocator, ScanMetrics metrics, int batchRows, boolean usePageIndex, ScanOptions options) {
    this(catalog, table, columns, predicate, null, allocator, metrics, batchRows, usePageIndex, options);
  }

  /**
   * A scan that also applies {@code rowPredicate} (null: none) to every row it reads: only rows for which
   * it is TRUE come out. Its columns are read whether or not they are among {@code columns} (the output).
   * {@code predicate} only prunes (row groups, and pages with {@code usePageIndex}).
   */
  public ParquetScan(Catalog catalog, ParquetTable table, List<String> columns, ScanPredicate predicate,
      RowPredicate rowPredicate, BufferAllocator allocator, ScanMetrics metrics, int batchRows, boolean usePageIndex,
      ScanOptions options) {
    this.usePageIndex = usePageIndex;
    this.table = table;
    this.fields = new ArrayList<>();
    for (String c : columns) fields.add(field(table, c));
    this.readFields = new ArrayList<>(fields);
    rowPredicate(rowPredicate);
    this.predicate = predicate;
    this.allocator = allocator;
    this.metrics = metrics;
    this.catalog = catalog;
    this.footers = catalog.footers();
    this.metadataCache = catalog.metadataCache();
    this.fileSystems = catalog.fileSystems();
    this.batchRows = batchRows;
    this.options = options;
    this.parallelism = options.threads();
  }

  /** Sets the row predicate (null: none), reading its columns that are not output after the output columns. */
  private void rowPredicate(RowPredicate p) {
    if (p == null) {
      this.rowPredicate = null;
      return;
    }
    int[] wholeColumns = readIndexes(p.columns());
    List<RowPredicate> parts = p.conjuncts();
    int[][] columns = new int[parts.size()][];
    for (int c = 0; c < parts.size(); c++) columns[c] = readIndexes(parts.get(c).columns());
    this.conjuncts = new Conjuncts(p, wholeColumns, parts, columns);
    this.rowPredicate = p;
  }

  /** The places of {@code cols} in {@link #readFields}, those not read yet added after the others. */
  private int[] readIndexes(List<String> cols) {
    int[] out = new int[cols.size()];
    for (int i = 0; i < cols.size(); i++) {
      int at = -1;
      for (int f = 0; f < readFields.size(); f++) if (readFields.get(f).getName().equals(cols.get(i))) at = f;
      if (at < 0) {
        at = readFields.size();
        readFields.add(field(table, cols.get(i)));
      }
      out[i] = at;
    }
    return out;
  }

  /**
   * The row predicate and the places of its columns in {@link #readFields}; its conjuncts ({@link
   * RowPredicate#conjuncts}) and the places of each one's columns.
   */
  private record Conjuncts(RowPredicate whole, int[] wholeColumns, List<RowPredicate> parts, int[][] columns) {}

  /** The conjuncts of {@link #rowPredicate} (set with it). */
  private volatile Conjuncts conjuncts;

  private static Field field(ParquetTable table, String column) {
    Field f = table.field(column);
    if (f == null) throw QuiverException.internal("column " + column + " not in table " + table.name());
    return f;
  }

  public Schema schema() {
    return new Schema(fields);
  }

  /**
   * Runs a {@link BatchPipeline} from {@code factory} in every row-group task, on the scan's threads: the scan then
   * hands out what the pipelines emit instead of the batches read. Set before the first {@link #next()}.
   */
  public ParquetScan withStopCheck(Runnable check) {
    this.stopCheck = check == null ? () -> { } : check;
    return this;
  }

  /**
   * Adds a runtime filter (a join's build keys: {@code column IN (…)} or a range), set before the first
   * {@link #next()}: row groups whose footer statistics prove none of their rows satisfies it are skipped when the
   * scan plans its row groups, before any is read, and counted at {@link PruningLevel#RUNTIME}. Statistics only:
   * trying a set against every row group's dictionary page or bloom filter cost more than it saved (TPC-H SF 1:
   * 603 order keys against 49 row groups of lineitem, none prunable, made the join 46% slower). Pruning only: the
   * rows of the groups read are not filtered by it (the join does that). Ignored once the scan has started, or with
   * pruning off.
   */
  public ParquetScan withRuntimeFilter(ScanPredicate filter) {
    // two joins may each send one: the scan keeps both
    if (todo == null && usePageIndex) this.runtime = runtime == null ? filter : ScanPredicate.and(List.of(runtime, filter));
    return this;
  }

  /**
   * Reads the row groups best first for {@code filter}'s top-N (by the minimum, or the maximum when descending, of
   * its column in the footer statistics; row groups without them first), and, with pruning on, the first one alone,
   * then skips every row group whose statistics prove that none of its rows satisfies the filter's bound as it is
   * when the row group's turn comes (counted at {@link PruningLevel#TOP_N}), and drops the rows of those it reads
   * that do not satisfy it before decoding their other columns ({@link TopNFilter#rows()}). The order is the same with pruning off,
   * so that both give the same answer among rows that tie. Set before the first {@link #next()}.
   */
  public ParquetScan withTopN(TopNFilter filter) {
    if (todo == null) {
      this.topN = filter;
      if (usePageIndex) {
        metrics.topNFilter(filter);
        // rows the bound excludes are dropped after decoding its column alone (late materialization)
        RowPredicate rows = filter.rows();
        if (rows != null) rowPredicate(rowPredicate == null ? rows : RowPredicate.and(rowPredicate, rows));
      }
    }
    return this;
  }

  public ParquetScan withPipeline(BatchPipeline.Factory factory) {
    this.pipeline = factory;
    return this;
  }

  /** Output string columns handed as dictionary indexes to the query's thread ({@link #withKeysByIndex}). */
  private java.util.Set<String> keysByIndex = java.util.Set.of();

  /**
   * Without a pipeline: hands the rows of output string columns {@code columns} as dictionary indexes, no string
   * made, where their chunks are all dictionary-encoded ({@link DictionaryStrings#absent}). The caller promises that
   * the one consumer of the batches reads those columns by their indexes ({@link DictionaryStrings#of}) and calls
   * {@link DictionaryStrings#received} for each batch. Set before the first {@link #next}.
   */
  public ParquetScan withKeysByIndex(java.util.Set<String> columns) {
    this.keysByIndex = java.util.Set.copyOf(columns);
    return this;
  }

  /**
   * Restricts the scan to row groups {@code rowGroups} (indexes per file path; files not named are not read at
   * all): a fragment of a query split into endpoints. Its metrics then count only these row groups. Set before
   * the first {@link #next()}.
   */
  public ParquetScan withRowGroups(java.util.Map<org.apache.hadoop.fs.Path, Set<Integer>> rowGroups) {
    this.only = rowGroups;
    return this;
  }

  /** A row group that survives planning-time pruning: its file, index in the file and compressed bytes. */
  public record RowGroupRef(DataFile file, int index, long compressedBytes) {}

  /**
   * The row groups of {@code table} a scan with {@code predicate} may read: all of them, except (with {@code
   * pruning}) those ruled out by partition values or footer statistics, the checks that cost no I/O beyond the
   * (cached) footers. Dictionaries, bloom filters and page indexes may prune more when the groups are read.
   */
  public static List<RowGroupRef> survivingRowGroups(Catalog catalog, ParquetTable table, ScanPredicate predicate,
      boolean pruning) {
    List<RowGroupRef> out = new ArrayList<>();
    for (DataFile f : table.files()) {
      ParquetMetadata footer = footer(catalog.footers(), table, f);
      List<BlockMetaData> blocks = footer.getBlocks();
      RowGroupPruner pruner = null;
      if (pruning) {
        ParquetFilterConverter.Result r = convert(predicate, table, f, footer);
        if (r instanceof ParquetFilterConverter.Never) continue;
        if (r instanceof ParquetFilterConverter.Pred p) pruner = new RowGroupPruner(p);
      }
      for (int i = 0; i < blocks.size(); i++) {
        if (pruner != null && pruner.prunedByStatistics(blocks.get(i))) continue;
        out.add(new RowGroupRef(f, i, blocks.get(i).getCompressedSize()));
      }
    }
    return out;
  }

  private static ParquetMetadata footer(FooterCache footers, ParquetTable table, DataFile f) {
    try {
      return footers.footer(f);
    } catch (RuntimeException e) {
      throw corrupt(table, f, "cannot read the footer of", e);
    }
  }

  /** The pruning form of {@code predicate} for one file: never matches, always may, or a predicate to test. */
  private static ParquetFilterConverter.Result convert(ScanPredicate predicate, ParquetTable table, DataFile f,
      ParquetMetadata footer) {
    return ParquetFilterConverter.convert(predicate, footer.getFileMetaData().getSchema(), f,
        new HashSet<>(table.partitionColumns()), footer.getFileMetaData().getCreatedBy());
  }

  /** The next batch, or null when the scan is done. */
  public VectorSchemaRoot next() {
    if (todo == null) plan();
    while (ready.isEmpty()) {
      // under a top-N the first row group runs alone: its rows set the bound the others are checked against
      int limit = topN != null && usePageIndex && completedTasks == 0 ? 1 : parallelism;
      while (inFlight.size() < limit && !todo.isEmpty()) {
        RowGroupTask t = todo.poll();
        if (t.prunedByTopN()) continue;
        inFlight.add(new Running(t, options.executor().submit(t::run)));
      }
      if (inFlight.isEmpty()) return null;
      Future<List<VectorSchemaRoot>> f = inFlight.peek().future();
      try {
        List<VectorSchemaRoot> batches;
        while (true) {
          try {
            batches = f.get(STOP_POLL_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
            break;
          } catch (java.util.concurrent.TimeoutException waiting) {
            stopCheck.run(); // throws once the query should stop; close() then stops the tasks
          }
        }
        inFlight.poll();
        completedTasks++;
        ready.addAll(batches);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new QuiverException(ErrorCode.CANCELLED, "the scan of " + table.name() + " was interrupted");
      } catch (ExecutionException e) {
        inFlight.poll();
        Throwable c = e.getCause();
        if (c instanceof QuiverException q) throw q;
        if (c instanceof RuntimeException r) throw r;
        if (c instanceof Error err) throw err;
        throw new QuiverException(ErrorCode.INTERNAL, "scan failed: " + c, c);
      }
    }
    return ready.poll();
  }

  /**
   * Lists the row groups to read: every row group of every file, except files whose partition values
   * (or a column missing from the file) rule them out, which are counted as pruned at once, and row groups the
   * pipeline answers from their statistics (their output is ready at once).
   */
  private void plan() {
    todo = new ArrayDeque<>();
    // no pruning predicate: every row of every row group reaches the pipeline (a converted predicate's "always"
    // may only mean "cannot prune")
    boolean unfiltered = predicate == null || predicate instanceof ScanPredicate.Const c && c.value();
    // one pipeline answers, here, the row groups whose statistics can
    BatchPipeline statistics = unfiltered && rowPredicate == null && runtime == null && pipeline != null
        && pipeline.answersFromStatistics() ? pipeline.create() : null;
    List<VectorSchemaRoot> answered = new ArrayList<>();
    try {
      planRowGroups(statistics, answered);
      if (topN != null) bestFirst();
      if (statistics != null) statistics.finish(answered);
    } catch (RuntimeException | Error e) {
      answered.forEach(VectorSchemaRoot::close);
      throw e;
    } finally {
      if (statistics != null) statistics.close();
    }
    ready.addAll(answered);
  }

  private void planRowGroups(BatchPipeline statistics, List<VectorSchemaRoot> answered) {
    int ordinal = 0;
    if (only != null) {
      Set<org.apache.hadoop.fs.Path> files = new HashSet<>();
      for (DataFile f : table.files()) files.add(f.path());
      for (org.apache.hadoop.fs.Path p : only.keySet()) {
        if (!files.contains(p)) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "the endpoint reads " + p.getName() + ", which is not a file of "
              + "table " + table.name());
        }
      }
    }
    for (DataFile f : table.files()) {
      Set<Integer> onlyHere = only == null ? null : only.get(f.path());
      if (only != null && onlyHere == null) continue;
      metrics.file();
      ParquetMetadata footer = footer(footers, table, f);
      MessageType fileSchema = footer.getFileMetaData().getSchema();
      List<Type> present = new ArrayList<>();
      for (Field field : readFields) {
        if (!table.isPartitionColumn(field.getName()) && fileSchema.containsField(field.getName())) {
          present.add(fileSchema.getType(field.getName()));
        }
      }
      MessageType requested = new MessageType(fileSchema.getName(), present);
      ParquetFilterConverter.Result r = convert(predicate, table, f, footer);
      RowGroupPruner pruner = r instanceof ParquetFilterConverter.Pred p ? new RowGroupPruner(p) : null;
      ParquetFilterConverter.Result rr = runtime == null ? null : convert(runtime, table, f, footer);
      RowGroupPruner runtimePruner = rr instanceof ParquetFilterConverter.Pred p ? new RowGroupPruner(p) : null;
      List<BlockMetaData> blocks = footer.getBlocks();
      if (onlyHere != null) {
        for (int g : onlyHere) {
          if (g < 0 || g >= blocks.size()) {
            throw new QuiverException(ErrorCode.INVALID_QUERY, "the endpoint reads row group " + g + " of "
                + f.path().getName() + ", which has " + blocks.size() + " row groups");
          }
        }
      }
      List<String> statsColumns = metrics.recordsRowGroups() ? statsColumns(fileSchema) : List.of();
      for (int i = 0; i < blocks.size(); i++) {
        if (onlyHere != null && !onlyHere.contains(i)) continue;
        PruningLevel now = r instanceof ParquetFilterConverter.Never ? PruningLevel.PARTITION
            : rr instanceof ParquetFilterConverter.Never
                // a group the scan's own statistics already rule out is theirs (counted when its task runs)
                || runtimePruner != null && (pruner == null || !pruner.prunedByStatistics(blocks.get(i)))
                && runtimePruner.prunedByStatistics(blocks.get(i)) ? PruningLevel.RUNTIME : null;
        if (now != null) {
          metrics.rowGroup();
          metrics.pruned(now);
          if (metrics.recordsRowGroups()) {
            metrics.report(report(ordinal, f, footer, i, statsColumns, now, 0, 0, 0, 0));
          }
          ordinal++;
        } else {
          RowGroupTask t = new RowGroupTask(f, footer, requested, pruner, i, ordinal++, statsColumns);
          if (statistics == null || !t.answerFromStatistics(statistics, answered)) todo.add(t);
        }
      }
    }
  }

  /**
   * Orders the row groups to read for the top-N: ascending by the minimum of its column (descending by the maximum);
   * row groups whose statistics do not say (none, or an INT32/INT64-stored column without them), and those holding
   * NULLs when NULLs sort first, go first, in file order. Only the order depends on this: the bound's check is exact.
   */
  private void bestFirst() {
    List<RowGroupTask> tasks = new ArrayList<>(todo);
    long[] keys = new long[tasks.size()];
    boolean[] known = new boolean[tasks.size()];
    for (int t = 0; t < tasks.size(); t++) {
      RowGroupTask task = tasks.get(t);
      for (ColumnChunkMetaData c : task.footer.getBlocks().get(task.index).getColumns()) {
        if (!c.getPath().toDotString().equals(topN.column())) continue;
        org.apache.parquet.column.statistics.Statistics<?> st = c.getStatistics();
        boolean integral = c.getPrimitiveType().getPrimitiveTypeName() == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32
            || c.getPrimitiveType().getPrimitiveTypeName() == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;
        if (!integral || st == null || st.isEmpty() || !st.hasNonNullValue()) break;
        if (topN.nullsFirst() && (!st.isNumNullsSet() || st.getNumNulls() > 0)) break;
        Object bound = topN.ascending() ? st.genericGetMin() : st.genericGetMax();
        if (!(bound instanceof Number n)) break;
        keys[t] = topN.ascending() ? n.longValue() : -n.longValue() - 1; // -x - 1 never overflows: descending
        known[t] = true;
      }
    }
    Integer[] order = new Integer[tasks.size()];
    for (int t = 0; t < order.length; t++) order[t] = t;
    java.util.Arrays.sort(order, (a, b) -> known[a] != known[b] ? (known[a] ? 1 : -1)
        : known[a] ? Long.compare(keys[a], keys[b]) : 0); // stable: ties keep file order
    todo.clear();
    for (Integer t : order) todo.add(tasks.get(t));
  }

  /** The predicate's columns stored in a file of schema {@code fileSchema} (not partition columns), in order. */
  private List<String> statsColumns(MessageType fileSchema) {
    Set<String> names = ScanPredicate.columns(predicate);
    List<String> out = new ArrayList<>();
    for (String n : names) {
      if (!table.isPartitionColumn(n) && fileSchema.containsField(n) && fileSchema.getType(n).isPrimitive()) out.add(n);
    }
    return out;
  }

  /** The report of row group {@code index} of {@code file}, with the footer statistics of {@code statsColumns}. */
  private RowGroupReport report(int ordinal, DataFile file, ParquetMetadata footer, int index, List<String> statsColumns,
      PruningLevel prunedBy, int pagesTotal, int pagesPruned, long rowsRead, long rowsPassing) {
    BlockMetaData block = footer.getBlocks().get(index);
    MessageType schema = footer.getFileMetaData().getSchema();
    List<ChunkStats> stats = new ArrayList<>();
    for (String column : statsColumns) {
      for (ColumnChunkMetaData c : block.getColumns()) {
        if (c.getPath().toDotString().equals(column)) {
          stats.add(ChunkStats.of(column, c, schema.getType(column).asPrimitiveType()));
          break;
        }
      }
    }
    return new RowGroupReport(ordinal, catalog.relativePath(file), index, block.getRowCount(), block.getCompressedSize(),
        prunedBy, pagesTotal, pagesPruned, rowsRead, rowsPassing, stats);
  }

  /** A submitted task and its future. */
  private record Running(RowGroupTask task, Future<List<VectorSchemaRoot>> future) {}

  /** One row group of one file: pruned, then read into batches, on a pool thread. */
  private final class RowGroupTask {
    /** Set by whichever comes first: the pool starting the task, or the scan closing before it ran. */
    final java.util.concurrent.atomic.AtomicBoolean claimed = new java.util.concurrent.atomic.AtomicBoolean();
    final DataFile file;
    final ParquetMetadata footer;
    final MessageType requested;
    final RowGroupPruner pruner;
    final int index;
    /** For a {@link RowGroupReport}: the task's place in the scan, and the columns whose statistics it shows. */
    final int ordinal;
    final List<String> statsColumns;
    /** Pages of the columns read, and those the page index excluded (set when it excluded any). */
    int pagesTotal;
    int pagesPruned;
    /** Rows that passed the row predicate so far (late materialization). */
    long passing;
    /** The conjuncts this row group is filtered by (those of the scan when the row group's reading began). */
    Conjuncts filter;
    /**
     * Per conjunct, whether this row group's chunk of its one column is read as dictionary indexes and the conjunct
     * asked once per entry ({@link #readRowGroup}).
     */
    boolean[] byIndex;
    /** Per read column, its rows' dictionary indexes (-1: NULL) when read so, reused batch after batch. */
    int[][] rowIds;
    /**
     * Per output column, whether this row group's batches hand it to the pipeline as dictionary indexes instead of
     * strings ({@link BatchPipeline#keysByIndex}, {@link DictionaryStrings#instead}); null: none.
     */
    boolean[] indexesInstead;
    /**
     * Per conjunct, its verdict on each entry of {@link #verdictsFor}'s dictionary, then on NULL; a zero-length array
     * when asking per entry failed (the rows are then judged one by one).
     */
    boolean[][] verdicts;
    ChunkDecoder[] verdictsFor;

    RowGroupTask(DataFile file, ParquetMetadata footer, MessageType requested, RowGroupPruner pruner, int index,
        int ordinal, List<String> statsColumns) {
      this.ordinal = ordinal;
      this.statsColumns = statsColumns;
      this.file = file;
      this.footer = footer;
      this.requested = requested;
      this.pruner = pruner;
      this.index = index;
    }

    List<VectorSchemaRoot> run() {
      if (!claimed.compareAndSet(false, true)) return List.of(); // the scan was closed before this started
      if (prunedByTopN()) return List.of(); // the bound tightened while the task waited for a thread
      return readPlannedVersion();
    }

    /**
     * Whether the top-N's bound, as it is now, rules this row group out by its footer statistics (counted and
     * reported as pruned at {@link PruningLevel#TOP_N} if so). Asked when the task is submitted and when it starts.
     */
    boolean prunedByTopN() {
      ScanPredicate bound = topN == null || !usePageIndex ? null : topN.bound();
      if (bound == null) return false;
      ParquetFilterConverter.Result r = convert(bound, table, file, footer);
      boolean pruned = r instanceof ParquetFilterConverter.Never
          || r instanceof ParquetFilterConverter.Pred p && new RowGroupPruner(p).prunedByStatistics(footer.getBlocks().get(index));
      if (!pruned) return false;
      metrics.rowGroup();
      metrics.pruned(PruningLevel.TOP_N);
      if (metrics.recordsRowGroups()) {
        metrics.report(report(ordinal, file, footer, index, statsColumns, PruningLevel.TOP_N, 0, 0, 0, 0));
      }
      return true;
    }

    /**
     * {@link #read()}, then a check that the file is still the version the query planned (length,
     * modification time, identity): a file replaced or deleted since fails the query, and never gives rows
     * of two versions or a misleading "corrupt" error. The stream is opened before and the check made
     * after everything was read from it, so whatever was read is the planned version.
     */
    List<VectorSchemaRoot> readPlannedVersion() {
      List<VectorSchemaRoot> out;
      try {
        out = read();
      } catch (RuntimeException | Error e) {
        QuiverException changed = FileVersions.changed(fileSystems, file, e);
        if (changed != null) throw changed;
        throw e;
      }
      try {
        FileVersions.verify(fileSystems, file);
      } catch (RuntimeException e) {
        out.forEach(VectorSchemaRoot::close);
        throw e;
      }
      if (metadata != null) metadata.publish(); // read from the planned version: safe to cache under its key
      return out;
    }

    List<VectorSchemaRoot> read() {
      List<VectorSchemaRoot> out = new ArrayList<>();
      BlockMetaData block = footer.getBlocks().get(index);
      metrics.rowGroup();
      metadata = new TaskMetadata(block);
      try (TaskMetadata meta = metadata) {
        if (pruner != null) {
          PruningLevel level;
          try {
            level = pruner.prune(meta::dictionaries, meta::blooms, block);
          } catch (RuntimeException e) {
            throw corrupt(file, "cannot evaluate row group statistics of", e);
          }
          if (level != null) {
            metrics.pruned(level);
            if (metrics.recordsRowGroups()) {
              metrics.report(report(ordinal, file, footer, index, statsColumns, level, 0, 0, 0, 0));
            }
            return out;
          }
        }
        Set<String> requestedNames = new HashSet<>();
        for (Type t : requested.getFields()) requestedNames.add(t.getName());
        RowRanges ranges = pageRanges(meta, block, requestedNames);
        long bytes = 0;
        for (ColumnChunkMetaData c : block.getColumns()) {
          if (requestedNames.contains(c.getPath().toDotString())) {
            bytes += ranges == null ? c.getTotalSize() : bytesRead(meta, c, ranges, block);
          }
        }
        ParquetFileReader reader = meta.reader();
        long rows = ranges == null ? block.getRowCount() : ranges.rowCount();
        metrics.scanned(rows, bytes);
        // with a row predicate: its columns first, the others only for the rows that pass (late materialization)
        boolean late = rowPredicate != null;
        // Quiver's own batch decoders (for page-index reads they skip to the selected rows themselves);
        // parquet-java's column readers for whatever the own decoders do not handle — if one meets such
        // a page, the row group is read again that way
        boolean own = options.ownDecoders();
        BatchPipeline pipe = pipeline == null ? null : pipeline.create();
        try {
          try {
            readRowGroup(reader, ranges, requestedNames, rows, late, own, pipe, out);
          } catch (ChunkDecoder.Unsupported fallback) {
            DictionaryStrings.forget();
            metrics.decoderFallbacks(requestedNames.size());
            out.forEach(VectorSchemaRoot::close);
            out.clear();
            passing = 0;
            if (pipe != null) { // its state holds rows read before the fallback: start again
              pipe.close();
              pipe = null;
              pipe = pipeline.create();
            }
            readRowGroup(reader, ranges, requestedNames, rows, late, false, pipe, out);
          }
          if (pipe != null && !closed) pipe.finish(out);
        } finally {
          if (pipe != null) pipe.close();
        }
        if (metrics.recordsRowGroups()) {
          metrics.report(report(ordinal, file, footer, index, statsColumns, null, pagesTotal, pagesPruned, rows,
              rowPredicate == null ? rows : passing));
        }
        return out;
      } catch (RuntimeException | Error e) {
        out.forEach(VectorSchemaRoot::close);
        throw e;
      }
    }

    /**
     * Whether {@code pipe} took this row group's rows from its footer statistics (adding its output to {@code out}):
     * asked, when the scan plans its row groups on the query's thread, only when every row of the group reaches the
     * pipeline — no pruning predicate, no row filter, no runtime filter — so no page is read, no file opened and no
     * task run; the footer is the planned version's (the footer cache is keyed by it).
     */
    private boolean answerFromStatistics(BatchPipeline pipe, List<VectorSchemaRoot> out) {
      BlockMetaData block = footer.getBlocks().get(index);
      RowGroupStatistics stats = RowGroupStatistics.of(block, footer.getFileMetaData().getSchema(), fields,
          table::isPartitionColumn);
      if (!pipe.fromStatistics(stats, out)) return false;
      metrics.rowGroup();
      metrics.answeredFromStatistics();
      if (metrics.recordsRowGroups()) {
        metrics.report(report(ordinal, file, footer, index, statsColumns, null, 0, 0, 0, block.getRowCount())
            .answeredFromStatistics());
      }
      return true;
    }

    private void readRowGroup(ParquetFileReader reader, RowRanges ranges, Set<String> requestedNames, long rows,
        boolean late, boolean own, BatchPipeline pipe, List<VectorSchemaRoot> out) {
      ColumnReader[] columnReaders = new ColumnReader[readFields.size()];
      ChunkDecoder[] decoders = new ChunkDecoder[readFields.size()];
      if (requested.getFieldCount() > 0 && rows > 0) {
        try {
          // a filtered read returns only the overlapping pages; parquet-java's column readers then skip
          // to the selected row indexes, so all columns stay row-aligned
          PageReadStore pages = ranges == null ? reader.readRowGroup(index) : reader.readFilteredRowGroup(index, ranges);
          ColumnReadStoreImpl store = null;
          for (int c = 0; c < readFields.size(); c++) {
            String name = readFields.get(c).getName();
            if (!requestedNames.contains(name)) continue;
            ColumnDescriptor d = requested.getColumnDescription(new String[] {name});
            if (own && ChunkDecoder.handles(d, readFields.get(c).getType())) {
              decoders[c] = new ChunkDecoder(pages.getPageReader(d), d, readFields.get(c).getType(), ranges);
            } else {
              if (own) metrics.decoderFallbacks(1);
              if (store == null) {
                store = new ColumnReadStoreImpl(pages, new NoOpGroupConverter(), requested,
                    footer.getFileMetaData().getCreatedBy());
              }
              columnReaders[c] = store.getColumnReader(d);
            }
          }
        } catch (ChunkDecoder.Unsupported e) {
          throw e;
        } catch (IOException | RuntimeException e) {
          throw corrupt(file, "cannot read row group " + index + " of", e);
        }
      }
      indexesInstead = null;
      java.util.Set<String> keysByIndex = pipe == null ? ParquetScan.this.keysByIndex : pipe.keysByIndex();
      for (int c = 0; c < fields.size() && !keysByIndex.isEmpty(); c++) {
        String name = fields.get(c).getName();
        if (keysByIndex.contains(name) && decoders[c] != null && decoders[c].dictionaryOfStrings()
            && dictionaryOnly(footer.getBlocks().get(index), name)) {
          if (indexesInstead == null) indexesInstead = new boolean[fields.size()];
          indexesInstead[c] = true;
        }
      }
      if (late) {
        filter = conjuncts;
        int parts = filter.parts().size();
        byIndex = new boolean[parts];
        verdicts = new boolean[parts][];
        verdictsFor = new ChunkDecoder[parts];
        for (int p = 0; p < parts; p++) {
          int[] cols = filter.columns()[p];
          if (!filter.parts().get(p).perValue() || cols.length != 1) continue;
          int c = cols[0];
          byIndex[p] = decoders[c] != null && decoders[c].dictionaryOfStrings()
              && dictionaryOnly(footer.getBlocks().get(index), readFields.get(c).getName());
        }
      }
      long left = rows;
      while (left > 0) {
        if (closed) break;
        stopCheck.run();
        int n = (int) Math.min(batchRows, left);
        if (indexesInstead != null) DictionaryStrings.forget(); // what a batch that failed before its hand-over left
        VectorSchemaRoot b = late ? readBatchLate(columnReaders, decoders, n) : readBatch(columnReaders, decoders, n);
        if (b != null) {
          if (pipe == null && indexesInstead != null) DictionaryStrings.sendAcross(ParquetScan.this);
          if (pipe == null) out.add(b);
          else if (indexesInstead == null) pipe.accept(b, out);
          else DictionaryStrings.handOver(() -> pipe.accept(b, out));
        }
        left -= n;
      }
    }

    /** The metadata this task read (set by {@link #read}). */
    private TaskMetadata metadata;

    /** A dictionary page whose bytes are held in memory (the reader's buffers go with the reader). */
    private static DictionaryPage copy(DictionaryPage d) {
      if (d == null) return null;
      try {
        return new DictionaryPage(org.apache.parquet.bytes.BytesInput.copy(d.getBytes()), d.getUncompressedSize(),
            d.getDictionarySize(), d.getEncoding());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    /** What a cached value holds, roughly, in bytes. */
    private static long sizeOf(Object value) {
      if (value == null) return 0;
      if (value instanceof DictionaryPage d) return d.getUncompressedSize() + 64L;
      if (value instanceof byte[] b) return b.length + 64L;
      if (value instanceof OffsetIndex oi) return 40L * oi.getPageCount() + 64;
      if (value instanceof ColumnIndex ci) {
        long bytes = 64;
        for (java.nio.ByteBuffer b : ci.getMinValues()) bytes += b.remaining() + 32;
        for (java.nio.ByteBuffer b : ci.getMaxValues()) bytes += b.remaining() + 32;
        return bytes + 16L * ci.getNullPages().size();
      }
      return 1024;
    }

    /**
     * What this task reads of its file: the file's reader, opened on first use, so that a row group pruned by cached
     * dictionaries or bloom filters never opens it; and the pruning metadata (dictionary pages, bloom filters, column
     * and offset indexes) looked up in the scan's {@link dev.quiver.scan.table.MetadataCache} first. What it reads
     * from the file is cached only once the file was checked to be the planned version ({@link #publish}), so the
     * cache never holds what a replaced file said under the old version's key.
     */
    private final class TaskMetadata implements AutoCloseable {
      private final BlockMetaData block;
      private ParquetFileReader reader;
      private final List<Object[]> read = new ArrayList<>();
      private DictionaryPageReadStore fileDictionaries;

      TaskMetadata(BlockMetaData block) {
        this.block = block;
      }

      ParquetFileReader reader() {
        if (reader == null) reader = open();
        return reader;
      }

      /** A value read from the file, or null. */
      private interface Read {
        Object get() throws IOException;
      }

      /** The {@code kind} of {@code column}: from the cache, else read (and kept for {@link #publish}). */
      private Object cached(dev.quiver.scan.table.MetadataCache.Kind kind, String column, Read fromFile) {
        var key = dev.quiver.scan.table.MetadataCache.Key.of(file, index, column, kind);
        for (Object[] r : read) if (r[0].equals(key)) return r[1]; // read by this task already (the offset index twice)
        var hit = metadataCache.maxBytes() == 0 ? null : metadataCache.get(key);
        if (hit != null) {
          metrics.metadataCacheHit();
          return hit.value();
        }
        if (metadataCache.maxBytes() > 0) metrics.metadataCacheMiss();
        Object value;
        try {
          value = fromFile.get();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
        if (value instanceof DictionaryPage d) value = copy(d);
        read.add(new Object[] {key, value});
        return value;
      }

      DictionaryPageReadStore dictionaries() {
        return descriptor -> (DictionaryPage) cached(dev.quiver.scan.table.MetadataCache.Kind.DICTIONARY,
            String.join(".", descriptor.getPath()), () -> {
              if (fileDictionaries == null) fileDictionaries = reader().getDictionaryReader(block);
              return fileDictionaries.readDictionaryPage(descriptor);
            });
      }

      /**
       * Bloom filters cached as their bitsets: parquet-java's {@code BlockSplitBloomFilter} keeps scratch state for
       * each lookup, so one filter object must not serve two threads; each lookup wraps the shared bitset (read
       * only) in a filter of its own.
       */
      BloomFilterReader blooms() {
        return new BloomFilterReader(null, block) {
          @Override
          public BloomFilter readBloomFilter(ColumnChunkMetaData meta) {
            byte[] bitset = (byte[]) cached(dev.quiver.scan.table.MetadataCache.Kind.BLOOM, meta.getPath().toDotString(),
                () -> bitset(reader().getBloomFilterDataReader(block).readBloomFilter(meta)));
            return bitset == null ? null : new BlockSplitBloomFilter(bitset);
          }
        };
      }

      /** The bitset of {@code filter} (null when there is none, or it is not a split-block filter). */
      private static byte[] bitset(BloomFilter filter) throws IOException {
        if (!(filter instanceof BlockSplitBloomFilter)) return null;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(filter.getBitsetSize());
        filter.writeTo(out);
        return out.toByteArray();
      }

      OffsetIndex offsetIndex(ColumnChunkMetaData c) {
        return (OffsetIndex) cached(dev.quiver.scan.table.MetadataCache.Kind.OFFSET_INDEX, c.getPath().toDotString(),
            () -> reader().readOffsetIndex(c));
      }

      ColumnIndexStore columnIndexes() {
        java.util.Map<ColumnPath, ColumnChunkMetaData> chunks = new java.util.HashMap<>();
        for (ColumnChunkMetaData c : block.getColumns()) chunks.put(c.getPath(), c);
        return new ColumnIndexStore() {
          @Override
          public ColumnIndex getColumnIndex(ColumnPath path) {
            ColumnChunkMetaData c = chunks.get(path);
            return c == null ? null : (ColumnIndex) cached(dev.quiver.scan.table.MetadataCache.Kind.COLUMN_INDEX,
                path.toDotString(), () -> reader().readColumnIndex(c));
          }

          @Override
          public OffsetIndex getOffsetIndex(ColumnPath path) {
            ColumnChunkMetaData c = chunks.get(path);
            OffsetIndex oi = c == null ? null : offsetIndex(c);
            if (oi == null) throw new ColumnIndexStore.MissingOffsetIndexException(path);
            return oi;
          }
        };
      }

      /** Caches what was read from the file: call once the file was checked to be the planned version. */
      void publish() {
        if (metadataCache.maxBytes() == 0) return;
        for (Object[] r : read) {
          metadataCache.put((dev.quiver.scan.table.MetadataCache.Key) r[0], r[1], sizeOf(r[1]));
        }
        read.clear();
      }

      @Override
      public void close() {
        if (reader == null) return;
        try {
          reader.close();
        } catch (IOException e) {
          throw corrupt(file, "cannot close", e);
        } finally {
          reader = null;
        }
      }
    }

    private ParquetFileReader open() {
      try {
        HadoopReadOptions.Builder builder = HadoopReadOptions.builder(fileSystems.conf());
        if (options.ownCodecs()) builder.withCodecFactory(new PageCodecs(new org.apache.parquet.hadoop.CodecFactory(fileSystems.conf(), 0)));
        ParquetReadOptions readOptions = builder.build();
        // the planned length (no stat here: the read is checked against the planned version afterwards)
        HadoopInputFile in = HadoopInputFile.fromStatus(
            new FileStatus(file.length(), false, 1, 0, file.modificationTime(), file.path()), fileSystems.conf());
        ParquetFileReader reader = new ParquetFileReader(in, footer, readOptions, in.newStream());
        reader.setRequestedSchema(requested);
        return reader;
      } catch (IOException | RuntimeException e) {
        throw corrupt(file, "cannot open", e);
      }
    }

    /**
     * The rows of the row group the page index says might match, or null to read it whole (no
     * predicate, no page index, or no page excluded). Counts the excluded pages.
     */
    private RowRanges pageRanges(TaskMetadata meta, BlockMetaData block, Set<String> requestedNames) {
      if (!usePageIndex || pruner == null || requested.getFieldCount() == 0) return null;
      Set<ColumnPath> paths = new HashSet<>();
      for (String n : requestedNames) paths.add(ColumnPath.get(n));
      if (!paths.containsAll(pruner.predicateColumns())) return null; // unrequested columns would read as all-NULL
      try {
        RowRanges rr = ColumnIndexFilter.calculateRowRanges(FilterCompat.get(pruner.predicate()),
            meta.columnIndexes(), paths, block.getRowCount());
        if (rr.rowCount() >= block.getRowCount()) return null;
        for (ColumnChunkMetaData c : block.getColumns()) {
          if (!requestedNames.contains(c.getPath().toDotString())) continue;
          OffsetIndex oi = meta.offsetIndex(c);
          if (oi == null) continue;
          long skipped = 0;
          for (int p = 0; p < oi.getPageCount(); p++) {
            if (!rr.isOverlapping(oi.getFirstRowIndex(p), oi.getLastRowIndex(p, block.getRowCount()))) skipped++;
          }
          metrics.pagesPruned(skipped);
          pagesTotal += oi.getPageCount();
          pagesPruned += (int) skipped;
        }
        return rr;
      } catch (RuntimeException e) {
        return null; // a broken page index only costs pruning, never rows
      }
    }

    /** Compressed bytes of the pages of {@code c} that overlap {@code rr} (the whole chunk if unknown). */
    private long bytesRead(TaskMetadata meta, ColumnChunkMetaData c, RowRanges rr, BlockMetaData block) {
      try {
        OffsetIndex oi = meta.offsetIndex(c);
        if (oi == null) return c.getTotalSize();
        long bytes = 0;
        for (int p = 0; p < oi.getPageCount(); p++) {
          if (rr.isOverlapping(oi.getFirstRowIndex(p), oi.getLastRowIndex(p, block.getRowCount()))) {
            bytes += oi.getCompressedPageSize(p);
          }
        }
        return bytes;
      } catch (RuntimeException e) {
        return c.getTotalSize();
      }
    }

    private VectorSchemaRoot readBatch(ColumnReader[] columnReaders, ChunkDecoder[] decoders, int n) {
      List<FieldVector> vectors = new ArrayList<>(fields.size());
      try {
        for (int c = 0; c < fields.size(); c++) {
          Field field = fields.get(c);
          if (indexesInstead != null && indexesInstead[c]) {
            int[] ids = rowIds(c, n);
            decoders[c].readIds(ids, n);
            vectors.add(indexesInstead(field, decoders[c], ids, n, null, n));
            continue;
          }
          FieldVector v = allocate(field, n, decoders[c]);
          vectors.add(v);
          readAll(columnReaders[c], decoders[c], field, v, n);
          v.setValueCount(n);
        }
      } catch (ChunkDecoder.Unsupported e) {
        vectors.forEach(FieldVector::close);
        throw e;
      } catch (RuntimeException e) {
        vectors.forEach(FieldVector::close);
        throw corrupt(file, "cannot decode", e);
      } catch (Error e) {
        vectors.forEach(FieldVector::close); // e.g. a page header that makes parquet-java allocate too much
        throw e;
      }
      return new VectorSchemaRoot(fields, vectors, n);
    }

    /**
     * One batch of {@code n} rows under the row predicate. Conjuncts over a dictionary-encoded string chunk judge
     * the rows by their dictionary indexes first ({@link #byIndex}); the other conjuncts are then asked about the
     * rows those kept ({@link Batch#selectRest}). Without such conjuncts the predicate's columns are decoded for all
     * rows and the predicate asked once, as a whole. Then the output columns, decoded for the rows kept (the
     * decoders skip the others) or compacted when the predicate read them. Returns the output columns; null when no
     * row is kept.
     */
    private VectorSchemaRoot readBatchLate(ColumnReader[] columnReaders, ChunkDecoder[] decoders, int n) {
      Batch batch = new Batch(columnReaders, decoders, n);
      try {
        Conjuncts f = filter;
        boolean anyByIndex = false;
        for (boolean b : byIndex) anyByIndex |= b;
        if (!anyByIndex) {
          batch.selectAll(f.whole(), f.wholeColumns());
        } else {
          // the conjuncts judged by dictionary index first (no string decoded), then the others together on the rows
          // they kept
          List<Integer> rest = new ArrayList<>();
          for (int p = 0; p < byIndex.length; p++) {
            if (!byIndex[p]) rest.add(p);
            else if (batch.count > 0) batch.byIndex(p, f.parts().get(p), f.columns()[p][0]);
          }
          if (!rest.isEmpty() && batch.count > 0) batch.selectRest(f, rest);
        }
        int count = batch.count;
        metrics.filteredLate(n - count);
        passing += count;
        for (int c = 0; c < readFields.size(); c++) {
          if (c >= fields.size() || count == 0) batch.drop(c); // read for the predicate only, or no row kept
          else if (indexesInstead != null && indexesInstead[c] && batch.canIndex(c)) batch.indexesInstead(c);
          else batch.column(c);
        }
        if (count == 0) return null;
        List<FieldVector> out = new ArrayList<>(fields.size());
        for (int c = 0; c < fields.size(); c++) {
          out.add(batch.vectors[c]);
          batch.vectors[c] = null;
        }
        return new VectorSchemaRoot(fields, out, count);
      } catch (ChunkDecoder.Unsupported e) {
        batch.close();
        throw e;
      } catch (PredicateFailed e) {
        batch.close();
        RuntimeException cause = (RuntimeException) e.getCause();
        throw cause instanceof OutOfMemoryException ? corrupt(file, "cannot filter", cause) : cause;
      } catch (RuntimeException e) {
        batch.close();
        throw corrupt(file, "cannot decode", e);
      } catch (Error e) {
        batch.close();
        throw e;
      }
    }

    /**
     * The columns of one batch of {@code n} rows as the conjuncts read them: the rows kept so far ({@link #keep},
     * {@link #count}), each read column's vector and the selection it was read at, and which columns' decoders have
     * moved past the batch (each must, exactly once, whether its column is read, read as indexes or skipped).
     */
    private final class Batch implements AutoCloseable {
      final ColumnReader[] readers;
      final ChunkDecoder[] decoders;
      final int n;
      final boolean[] keep;
      int count;
      /** Bumped whenever {@link #keep} drops rows. */
      int version;
      final FieldVector[] vectors;
      /** The selection each vector was read at (null: all rows) and its version. */
      final boolean[][] readAt;
      final int[] readVersion;
      /** Whether the column's decoder or reader has moved past this batch's rows. */
      final boolean[] consumed;
      /** Whether the column's rows were read as dictionary indexes (in {@link #rowIds}). */
      final boolean[] asIds;

      Batch(ColumnReader[] readers, ChunkDecoder[] decoders, int n) {
        this.readers = readers;
        this.decoders = decoders;
        this.n = n;
        int columns = readFields.size();
        keep = new boolean[n];
        Arrays.fill(keep, true);
        count = n;
        vectors = new FieldVector[columns];
        readAt = new boolean[columns][];
        readVersion = new int[columns];
        consumed = new boolean[columns];
        asIds = new boolean[columns];
      }

      /** {@code p} over its columns {@code cols}, every row decoded and asked (no row is dropped yet). */
      void selectAll(RowPredicate p, int[] cols) {
        kept(RowGroupTask.this.select(p, columns(cols, false), keep));
      }

      /** {@link #keep} now holds {@code kept} rows (fewer than before, or as many). */
      private void kept(int kept) {
        if (kept != count) {
          count = kept;
          version++;
        }
      }

      /**
       * Conjuncts {@code parts} of {@code f} on the rows kept so far: each asked about the same rows, a row kept when
       * all keep it. When most rows are kept, their columns are decoded whole (the decoders copy runs in bulk) and
       * the conjuncts asked about every row; when a quarter or fewer are, only the kept rows are decoded (the
       * decoders skip the others) and asked.
       */
      void selectRest(Conjuncts f, List<Integer> parts) {
        boolean sparse = count <= n / 4;
        int rows = sparse ? count : n;
        boolean[] all = new boolean[rows];
        Arrays.fill(all, true);
        int kept = rows;
        for (int p : parts) {
          boolean[] sel = new boolean[rows];
          RowGroupTask.this.select(f.parts().get(p), columns(f.columns()[p], !sparse), sel);
          kept = and(all, sel, rows);
          if (kept == 0) break;
        }
        if (sparse) {
          narrow(all, kept);
          return;
        }
        kept(and(keep, all, n));
      }

      /**
       * {@code into[i] &= other[i]} for {@code i < n}; how many stay true. Without a branch a row: the rows a filter
       * keeps are as good as random, and a mispredicted branch a row took a quarter of a filtered scan's time.
       */
      private static int and(boolean[] into, boolean[] other, int n) {
        int kept = 0;
        for (int i = 0; i < n; i++) {
          boolean b = into[i] & other[i];
          into[i] = b;
          kept += b ? 1 : 0;
        }
        return kept;
      }

      /** Conjunct {@code part} over columns {@code cols}, asked about the rows kept so far. */
      void select(RowPredicate part, int[] cols) {
        boolean[] sel = new boolean[count];
        int kept = RowGroupTask.this.select(part, columns(cols, false), sel);
        narrow(sel, kept);
      }

      /** Columns {@code cols} as a batch: of all {@code n} rows if {@code whole}, else of the rows kept now. */
      private VectorSchemaRoot columns(int[] cols, boolean whole) {
        List<Field> fs = new ArrayList<>(cols.length);
        List<FieldVector> vs = new ArrayList<>(cols.length);
        for (int c : cols) {
          fs.add(readFields.get(c));
          vs.add(whole ? columnWhole(c) : column(c));
        }
        return new VectorSchemaRoot(fs, vs, whole ? n : count);
      }

      /**
       * Conjunct {@code part} of dictionary-encoded string column {@code c}: asked once per dictionary entry (and
       * for NULL) at the chunk's first batch, then each kept row judged by its index. If asking per entry failed —
       * an entry no selected row holds may raise an error the rows would not — the rows kept are made into strings
       * and asked one by one, as without this.
       */
      void byIndex(int p, RowPredicate part, int c) {
        ids(c);
        ChunkDecoder decoder = decoders[c];
        if (verdictsFor[p] != decoder) {
          verdictsFor[p] = decoder;
          verdicts[p] = verdicts(part, decoder, readFields.get(c));
        }
        boolean[] byEntry = verdicts[p];
        if (byEntry.length == 0) {
          select(part, new int[] {c});
          return;
        }
        int nullAt = byEntry.length - 1;
        int[] ids = rowIds[c];
        int before = count;
        int kept = 0;
        for (int i = 0; i < n; i++) { // without a branch a row (see and)
          int id = ids[i];
          boolean k = keep[i] & byEntry[id < 0 ? nullAt : id];
          keep[i] = k;
          kept += k ? 1 : 0;
        }
        metrics.dictionaryFilterRows(before);
        kept(kept);
      }

      /**
       * Reads column {@code c}'s rows as dictionary indexes (once). The conjuncts judged by index run before any
       * other reads a column, so its decoder has not moved yet.
       */
      private void ids(int c) {
        if (asIds[c]) return;
        if (consumed[c]) {
          throw new IllegalStateException("column " + readFields.get(c).getName() + " read before its indexes");
        }
        decoders[c].readIds(rowIds(c, n), n);
        asIds[c] = true;
        consumed[c] = true;
      }

      /** Keeps, of the rows kept so far, those marked in {@code sel} (one entry per kept row; {@code kept} true). */
      private void narrow(boolean[] sel, int kept) {
        if (kept == count) return;
        for (int i = 0, j = 0; i < n; i++) {
          if (keep[i] && !sel[j++]) keep[i] = false;
        }
        kept(kept);
      }

      /**
       * Column {@code c} for all {@code n} rows, whichever are kept (read so once; {@link #column} compacts it to the
       * rows kept when asked).
       */
      FieldVector columnWhole(int c) {
        FieldVector v = vectors[c];
        if (v != null && readAt[c] == null) return v;
        if (v != null && asIds[c]) { // made for fewer rows from its indexes (a conjunct asked about its strings)
          vectors[c] = null;
          v.close();
          v = null;
        }
        if (v != null || consumed[c] && !asIds[c]) throw new IllegalStateException("column read for fewer rows");
        Field field = readFields.get(c);
        if (asIds[c]) {
          v = allocate(field, n);
          vectors[c] = v;
          boolean[] every = new boolean[n];
          Arrays.fill(every, true);
          decoders[c].gatherIds((VarCharVector) v, rowIds[c], n, every);
          v.setValueCount(n);
        } else {
          v = allocate(field, n, decoders[c]);
          vectors[c] = v;
          consumed[c] = true;
          readAll(readers[c], decoders[c], field, v, n);
          v.setValueCount(n);
        }
        readAt[c] = null;
        readVersion[c] = count == n ? version : -1;
        return v;
      }

      /** Column {@code c} for the rows kept now: read (decoded, or made from its indexes), or compacted. */
      FieldVector column(int c) {
        FieldVector v = vectors[c];
        if (v != null) {
          if (readVersion[c] == version) return v;
          // read for more rows: keep those still kept
          boolean[] at = readAt[c];
          boolean[] sub = new boolean[v.getValueCount()];
          for (int i = 0, j = 0; i < n; i++) {
            if (at == null || at[i]) sub[j++] = keep[i];
          }
          vectors[c] = null;
          v = ScanVectors.compact(v, sub, count, allocator);
        } else {
          Field field = readFields.get(c);
          boolean all = count == n;
          if (asIds[c]) {
            v = allocate(field, count);
            vectors[c] = v;
            decoders[c].gatherIds((VarCharVector) v, rowIds[c], n, keep);
          } else {
            if (consumed[c]) throw new IllegalStateException("column " + field.getName() + " read twice in a batch");
            v = allocate(field, count, decoders[c]);
            vectors[c] = v;
            consumed[c] = true;
            if (all) readAll(readers[c], decoders[c], field, v, n);
            else readKept(readers[c], decoders[c], field, v, n, keep, count);
          }
          v.setValueCount(count);
        }
        vectors[c] = v;
        readAt[c] = count == n ? null : keep.clone();
        readVersion[c] = version;
        return v;
      }

      /** Whether output column {@code c} can still be handed as its rows' dictionary indexes. */
      boolean canIndex(int c) {
        return asIds[c] ? vectors[c] == null : !consumed[c];
      }

      /** Output column {@code c}, a dictionary-encoded string column, as the kept rows' dictionary indexes. */
      void indexesInstead(int c) {
        ids(c);
        vectors[c] = RowGroupTask.this.indexesInstead(readFields.get(c), decoders[c], rowIds[c], n,
            count == n ? null : keep, count);
      }

      /** Column {@code c} is not output: its vector goes, and its decoder moves past the batch if it has not. */
      void drop(int c) {
        if (vectors[c] != null) {
          vectors[c].close();
          vectors[c] = null;
        }
        if (consumed[c]) return;
        consumed[c] = true;
        Field field = readFields.get(c);
        if (decoders[c] != null) {
          try (FieldVector scratch = allocate(field, 1)) {
            decoders[c].readSelected(scratch, n, new boolean[n]);
          }
        } else if (readers[c] != null) {
          skip(readers[c], requested.getColumnDescription(new String[] {field.getName()}), n);
        }
      }

      @Override
      public void close() {
        closeAll(vectors);
      }
    }

    /**
     * A string vector of the {@code count} rows of {@code ids[0, n)} marked in {@code keep} (null: all), each non-NULL
     * row an empty string, their indexes into {@code decoder}'s dictionary handed to the pipeline instead
     * ({@link DictionaryStrings#instead}).
     */
    private FieldVector indexesInstead(Field field, ChunkDecoder decoder, int[] ids, int n, boolean[] keep,
        int count) {
      VarCharVector v = (VarCharVector) field.createVector(allocator);
      try {
        v.setInitialCapacity(Math.max(count, 1), 0); // offsets and validity; no room for strings
        v.allocateNew();
        int[] kept = new int[count];
        int nulls = 0;
        if (keep == null) {
          System.arraycopy(ids, 0, kept, 0, count);
          for (int i = 0; i < count; i++) nulls += ids[i] >>> 31;
        } else {
          for (int i = 0, j = 0; i < n; i++) {
            if (!keep[i]) continue;
            int id = ids[i];
            kept[j++] = id;
            nulls += id >>> 31;
          }
        }
        // every row valid, then the NULLs cleared; offsets all 0: every non-NULL row an empty string
        org.apache.arrow.memory.ArrowBuf validity = v.getValidityBuffer();
        validity.setOne(0, count >>> 3);
        for (int j = count & ~7; j < count; j++) org.apache.arrow.vector.BitVectorHelper.setBit(validity, j);
        if (nulls > 0) {
          for (int j = 0; j < count; j++) if (kept[j] < 0) org.apache.arrow.vector.BitVectorHelper.unsetBit(validity, j);
        }
        v.getOffsetBuffer().setZero(0, 4L * (count + 1));
        v.setLastSet(count - 1); // no hole to fill
        v.setValueCount(count);
        DictionaryStrings.instead(v, decoder.entries(), kept);
        metrics.dictionaryKeyRows(count);
        return v;
      } catch (RuntimeException | Error e) {
        v.close();
        throw e;
      }
    }

    /** The array for read column {@code c}'s dictionary indexes, for at least {@code n} rows, reused batch after batch. */
    private int[] rowIds(int c, int n) {
      if (rowIds == null || rowIds.length != readFields.size()) rowIds = new int[readFields.size()][];
      if (rowIds[c] == null || rowIds[c].length < n) rowIds[c] = new int[Math.max(n, batchRows)];
      return rowIds[c];
    }

    /** {@code part}'s verdict on each row of {@code batch} into {@code keep}; how many are kept. */
    private int select(RowPredicate part, VectorSchemaRoot batch, boolean[] keep) {
      try {
        return part.select(batch, allocator, keep);
      } catch (RuntimeException e) {
        throw new PredicateFailed(e);
      }
    }

    /** {@code part} on each entry of {@code decoder}'s dictionary, then on NULL; an empty array if that failed. */
    private boolean[] verdicts(RowPredicate part, ChunkDecoder decoder, Field field) {
      int size = decoder.dictionarySize();
      boolean[] out = new boolean[size + 1];
      try (VarCharVector v = (VarCharVector) allocate(field, size + 1)) {
        decoder.dictionaryInto(v);
        part.select(new VectorSchemaRoot(List.of(field), List.of(v), size + 1), allocator, out);
        return out;
      } catch (RuntimeException e) {
        return new boolean[0];
      }
    }

    /**
     * Reads the {@code count} rows of {@code n} marked in {@code keep} of one column into {@code v}, the others
     * skipped: a partition value, a decoder, or all NULL.
     */
    private void readKept(ColumnReader reader, ChunkDecoder decoder, Field field, FieldVector v, int n, boolean[] keep,
        int count) {
      if (table.isPartitionColumn(field.getName())) {
        fillPartition(v, file.partitionValues().get(field.getName()), count);
      } else if (decoder != null) {
        decoder.readSelected(v, n, keep);
      } else if (reader != null) {
        decodeSelected(reader, requested.getColumnDescription(new String[] {field.getName()}), v, n, keep);
      } // else: absent from this file, all NULL
    }

    /** Reads all {@code n} rows of one column into {@code v}: a partition value, a decoder, or all NULL. */
    private void readAll(ColumnReader reader, ChunkDecoder decoder, Field field, FieldVector v, int n) {
      if (table.isPartitionColumn(field.getName())) {
        fillPartition(v, file.partitionValues().get(field.getName()), n);
      } else if (decoder != null) {
        decoder.read(v, n);
      } else if (reader != null) {
        decode(reader, requested.getColumnDescription(new String[] {field.getName()}), v, n);
      } // else: absent from this file, all NULL (vectors start out null)
    }

    private FieldVector allocate(Field field, int n) {
      return ScanVectors.allocate(field, allocator, n);
    }

    /** A vector for {@code n} rows: not zero-filled where {@code decoder} (non-null) will write every slot. */
    private FieldVector allocate(Field field, int n, ChunkDecoder decoder) {
      return decoder != null && !table.isPartitionColumn(field.getName())
          ? ScanVectors.allocateToOverwrite(field, allocator, n) : ScanVectors.allocate(field, allocator, n);
    }

    /** A new vector with the kept rows of {@code v}; {@code v} is closed. */
    private FieldVector compact(FieldVector v, boolean[] keep, int count) {
      return ScanVectors.compact(v, keep, count, allocator);
    }
  }

  /**
   * Whether every data page of column {@code name}'s chunk in {@code block} is dictionary-encoded, by the footer: its
   * encoding statistics, or (written without them) a data-page encoding that can only be the dictionary's. Unsure is
   * no; a footer that says yes wrongly costs a second read of the row group ({@link ChunkDecoder#readIds}).
   */
  static boolean dictionaryOnly(BlockMetaData block, String name) {
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (c.getPath().toDotString().equals(name)) return ParquetTable.dictionaryOnly(c);
    }
    return false;
  }

  private static void closeAll(FieldVector[] vectors) {
    for (FieldVector v : vectors) if (v != null) v.close();
  }

  /** The row predicate failed (not the file): rethrown as it is, not as a corrupt file. */
  private static final class PredicateFailed extends RuntimeException {
    PredicateFailed(RuntimeException cause) {
      super(cause);
    }
  }

  private static void decodeSelected(ColumnReader r, ColumnDescriptor d, FieldVector v, int n, boolean[] keep) {
    ValueDecoder decoder = ValueDecoder.forColumn(d.getPrimitiveType(), v);
    int maxDef = d.getMaxDefinitionLevel();
    int k = 0;
    for (int i = 0; i < n; i++) {
      boolean present = r.getCurrentDefinitionLevel() == maxDef;
      if (keep[i]) {
        if (present) decoder.copy(r, v, k);
        else v.setNull(k);
        k++;
      } else if (present) {
        r.skip();
      }
      r.consume();
    }
  }

  private static void skip(ColumnReader r, ColumnDescriptor d, int n) {
    int maxDef = d.getMaxDefinitionLevel();
    for (int i = 0; i < n; i++) {
      if (r.getCurrentDefinitionLevel() == maxDef) r.skip();
      r.consume();
    }
  }

  private static void decode(ColumnReader r, ColumnDescriptor d, FieldVector v, int n) {
    ValueDecoder decoder = ValueDecoder.forColumn(d.getPrimitiveType(), v);
    int maxDef = d.getMaxDefinitionLevel();
    for (int i = 0; i < n; i++) {
      if (r.getCurrentDefinitionLevel() == maxDef) {
        decoder.copy(r, v, i);
      } else {
        v.setNull(i);
      }
      r.consume();
    }
  }

  private static void fillPartition(FieldVector v, String raw, int n) {
    if (raw == null || Catalog.HIVE_NULL.equals(raw)) return;
    if (v instanceof BigIntVector b) {
      long value = Long.parseLong(raw);
      for (int i = 0; i < n; i++) b.set(i, value);
    } else {
      byte[] bytes = raw.getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < n; i++) ((VarCharVector) v).setSafe(i, bytes);
    }
  }

  private QuiverException corrupt(DataFile file, String what, Exception e) {
    return corrupt(table, file, what, e);
  }

  private static QuiverException corrupt(ParquetTable table, DataFile file, String what, Exception e) {
    if (e instanceof QuiverException q) return q;
    if (e instanceof OutOfMemoryException) {
      return new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "query exceeded its memory limit while reading "
          + table.name() + ": " + e.getMessage(), e);
    }
    return new QuiverException(ErrorCode.CORRUPT_FILE,
        what + " Parquet file " + (file == null ? "?" : file.path()) + ": " + e, e);
  }

  /**
   * Stops the scan: tasks not started yet never run; running ones stop at their next batch and are
   * waited for; every batch not handed out is released.
   */
  @Override
  public void close() {
    closed = true;
    for (Running r : inFlight) {
      if (r.task().claimed.compareAndSet(false, true)) continue; // never started: holds nothing
      try {
        r.future().get().forEach(VectorSchemaRoot::close);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException ignored) {
        // the task failed: it released its own batches
      }
    }
    inFlight.clear();
    ready.forEach(VectorSchemaRoot::close);
    ready.clear();
    if (!keysByIndex.isEmpty()) DictionaryStrings.drop(this); // batches never consumed
  }

  /** parquet-java walks a converter tree to build column readers; Quiver reads values itself. */
  private static final class NoOpGroupConverter extends GroupConverter {
    private static final PrimitiveConverter PRIMITIVE = new PrimitiveConverter() {};

    @Override
    public Converter getConverter(int fieldIndex) {
      return PRIMITIVE;
    }

    @Override
    public void start() {}

    @Override
    public void end() {}
  }
}
