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
    long bytes = 0;
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (requestedNames.contains(c.getPath().toDotString())) bytes += c.getTotalSize();
    }
    metrics.scanned(block.getRowCount(), bytes);
    rowsLeftInGroup = block.getRowCount();
    columnReaders = new ColumnReader[fields.size()];
    if (requested.getFieldCount() == 0) return;
    try {
      PageReadStore pages = reader.readRowGroup(index);
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
