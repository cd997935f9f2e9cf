package dev.quiver.scan.read;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ParquetFilterConverter;
import dev.quiver.scan.prune.PruningLevel;
import dev.quiver.scan.prune.RowGroupPruner;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.DataFile;
import dev.quiver.scan.table.FileSystems;
import dev.quiver.scan.table.FooterCache;
import dev.quiver.scan.table.ParquetTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
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
 * A scan with no projected columns (e.g. {@code count(*)}) answers from row-group metadata alone.
 */
public final class ParquetScan implements AutoCloseable {
  private final ParquetTable table;
  private final List<Field> fields;
  private final ScanPredicate predicate;
  private final BufferAllocator allocator;
  private final ScanMetrics metrics;
  private final FooterCache footers;
  private final int batchRows;
  private final boolean usePageIndex;

  private int fileIndex = -1;
  private ParquetFileReader reader;
  private MessageType requested;
  private RowGroupPruner pruner;
  private boolean fileNeverMatches;
  private int blockIndex;
  private DataFile file;
  private ColumnReader[] columnReaders;
  private ValueDecoder[] decoders;
  private long rowsLeftInGroup;

  public ParquetScan(Catalog catalog, ParquetTable table, List<String> columns, ScanPredicate predicate,
      BufferAllocator allocator, ScanMetrics metrics, int batchRows) {
    this(catalog, table, columns, predicate, allocator, metrics, batchRows, true);
  }

  /**
   * A scan; with {@code usePageIndex} the column and offset indexes narrow each surviving row group to
   * the pages that might match, and only those pages are read (rows stay aligned across columns).
   */
  public ParquetScan(Catalog catalog, ParquetTable table, List<String> columns, ScanPredicate predicate,
      BufferAllocator allocator, ScanMetrics metrics, int batchRows, boolean usePageIndex) {
    this.usePageIndex = usePageIndex;
    this.table = table;
    this.fields = new ArrayList<>();
    for (String c : columns) {
      Field f = table.field(c);
      if (f == null) throw QuiverException.internal("column " + c + " not in table " + table.name());
      fields.add(f);
    }
    this.predicate = predicate;
    this.allocator = allocator;
    this.metrics = metrics;
    this.footers = catalog.footers();
    this.batchRows = batchRows;
  }

  public Schema schema() {
    return new Schema(fields);
  }

  /** The next batch, or null when the scan is done. */
  public VectorSchemaRoot next() {
    while (true) {
      if (rowsLeftInGroup > 0) return readBatch();
      if (!advanceRowGroup()) return null;
    }
  }

  private boolean advanceRowGroup() {
    while (true) {
      if (reader != null) {
        List<BlockMetaData> blocks = reader.getRowGroups();
        while (blockIndex < blocks.size()) {
          int i = blockIndex++;
          BlockMetaData block = blocks.get(i);
          metrics.rowGroup();
          PruningLevel level = fileNeverMatches ? PruningLevel.PARTITION : pruner == null ? null : prune(block);
          if (level != null) {
            metrics.pruned(level);
            continue;
          }
          startRowGroup(i, block);
          if (rowsLeftInGroup > 0) return true;
        }
        closeReader();
      }
      if (++fileIndex >= table.files().size()) return false;
      openFile(table.files().get(fileIndex));
    }
  }

  private PruningLevel prune(BlockMetaData block) {
    try {
      return pruner.prune(reader, block);
    } catch (RuntimeException e) {
      throw corrupt("cannot evaluate row group statistics", e);
    }
  }

  private void openFile(DataFile f) {
    file = f;
    metrics.file();
    ParquetMetadata footer = footers.footer(f);
    MessageType fileSchema = footer.getFileMetaData().getSchema();
    List<Type> present = new ArrayList<>();
    for (Field field : fields) {
      if (!table.isPartitionColumn(field.getName()) && fileSchema.containsField(field.getName())) {
        present.add(fileSchema.getType(field.getName()));
      }
    }
    requested = new MessageType(fileSchema.getName(), present);
    ParquetFilterConverter.Result r = ParquetFilterConverter.convert(predicate, fileSchema, f,
        new HashSet<>(table.partitionColumns()), footer.getFileMetaData().getCreatedBy());
    fileNeverMatches = r instanceof ParquetFilterConverter.Never;
    pruner = r instanceof ParquetFilterConverter.Pred p ? new RowGroupPruner(p) : null;
    blockIndex = 0;
    try {
      ParquetReadOptions options = HadoopReadOptions.builder(FileSystems.conf()).build();
      HadoopInputFile in = HadoopInputFile.fromPath(f.path(), FileSystems.conf());
      reader = new ParquetFileReader(in, footer, options, in.newStream());
      reader.setRequestedSchema(requested);
    } catch (IOException | RuntimeException e) {
      throw corrupt("cannot open", e);
    }
  }

  private void startRowGroup(int index, BlockMetaData block) {
    Set<String> requestedNames = new HashSet<>();
    for (Type t : requested.getFields()) requestedNames.add(t.getName());
    columnReaders = new ColumnReader[fields.size()];
    RowRanges ranges = pageRanges(index, block, requestedNames);
    long bytes = 0;
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (requestedNames.contains(c.getPath().toDotString())) bytes += ranges == null ? c.getTotalSize() : bytesRead(c, ranges, block);
    }
    long rows = ranges == null ? block.getRowCount() : ranges.rowCount();
    metrics.scanned(rows, bytes);
    rowsLeftInGroup = rows;
    if (requested.getFieldCount() == 0 || rows == 0) return;
    try {
      // a filtered read returns only the overlapping pages; parquet-java's column readers then skip
      // to the selected row indexes, so all columns stay row-aligned
      PageReadStore pages = ranges == null ? reader.readRowGroup(index) : reader.readFilteredRowGroup(index, ranges);
      ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, new NoOpGroupConverter(), requested,
          reader.getFooter().getFileMetaData().getCreatedBy());
      for (int c = 0; c < fields.size(); c++) {
        String name = fields.get(c).getName();
        if (requestedNames.contains(name)) {
          ColumnDescriptor d = requested.getColumnDescription(new String[] {name});
          columnReaders[c] = store.getColumnReader(d);
        }
      }
    } catch (IOException | RuntimeException e) {
      throw corrupt("cannot read row group " + index, e);
    }
  }

  /**
   * The rows of row group {@code index} the page index says might match, or null to read it whole
   * (no predicate, no page index, or no page excluded). Counts the excluded pages.
   */
  private RowRanges pageRanges(int index, BlockMetaData block, Set<String> requestedNames) {
    if (!usePageIndex || pruner == null || requested.getFieldCount() == 0) return null;
    Set<ColumnPath> paths = new HashSet<>();
    for (String n : requestedNames) paths.add(ColumnPath.get(n));
    if (!paths.containsAll(pruner.predicateColumns())) return null; // unrequested columns would read as all-NULL
    try {
      RowRanges rr = ColumnIndexFilter.calculateRowRanges(FilterCompat.get(pruner.predicate()),
          reader.getColumnIndexStore(index), paths, block.getRowCount());
      if (rr.rowCount() >= block.getRowCount()) return null;
      for (ColumnChunkMetaData c : block.getColumns()) {
        if (!requestedNames.contains(c.getPath().toDotString())) continue;
        OffsetIndex oi = reader.readOffsetIndex(c);
        if (oi == null) continue;
        long skipped = 0;
        for (int p = 0; p < oi.getPageCount(); p++) {
          if (!rr.isOverlapping(oi.getFirstRowIndex(p), oi.getLastRowIndex(p, block.getRowCount()))) skipped++;
        }
        metrics.pagesPruned(skipped);
      }
      return rr;
    } catch (IOException | RuntimeException e) {
      return null; // a broken page index only costs pruning, never rows
    }
  }

  /** Compressed bytes of the pages of {@code c} that overlap {@code rr} (the whole chunk if unknown). */
  private long bytesRead(ColumnChunkMetaData c, RowRanges rr, BlockMetaData block) {
    try {
      OffsetIndex oi = reader.readOffsetIndex(c);
      if (oi == null) return c.getTotalSize();
      long bytes = 0;
      for (int p = 0; p < oi.getPageCount(); p++) {
        if (rr.isOverlapping(oi.getFirstRowIndex(p), oi.getLastRowIndex(p, block.getRowCount()))) {
          bytes += oi.getCompressedPageSize(p);
        }
      }
      return bytes;
    } catch (IOException | RuntimeException e) {
      return c.getTotalSize();
    }
  }

  private VectorSchemaRoot readBatch() {
    int n = (int) Math.min(batchRows, rowsLeftInGroup);
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      for (int c = 0; c < fields.size(); c++) {
        Field field = fields.get(c);
        FieldVector v = field.createVector(allocator);
        vectors.add(v);
        v.setInitialCapacity(n);
        v.allocateNew();
        if (table.isPartitionColumn(field.getName())) {
          fillPartition(v, file.partitionValues().get(field.getName()), n);
        } else if (columnReaders[c] == null) {
          // column absent from this file: all NULL (vectors start out null)
        } else {
          decode(columnReaders[c], requested.getColumnDescription(new String[] {field.getName()}), v, n);
        }
        v.setValueCount(n);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw corrupt("cannot decode", e);
    }
    rowsLeftInGroup -= n;
    VectorSchemaRoot root = new VectorSchemaRoot(fields, vectors, n);
    return root;
  }

  private void decode(ColumnReader r, ColumnDescriptor d, FieldVector v, int n) {
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

  private QuiverException corrupt(String what, Exception e) {
    if (e instanceof QuiverException q) return q;
    if (e instanceof OutOfMemoryException) {
      return new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "query exceeded its memory limit while reading "
          + table.name() + ": " + e.getMessage(), e);
    }
    return new QuiverException(ErrorCode.CORRUPT_FILE,
        what + " Parquet file " + (file == null ? "?" : file.path()) + ": " + e, e);
  }

  private void closeReader() {
    if (reader != null) {
      try {
        reader.close();
      } catch (IOException ignored) {
        // closing a read-only stream; nothing to recover
      }
      reader = null;
    }
  }

  @Override
  public void close() {
    closeReader();
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
