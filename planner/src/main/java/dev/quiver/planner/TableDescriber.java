package dev.quiver.planner;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.profile.ColumnDescription;
import dev.quiver.planner.profile.ColumnStat;
import dev.quiver.planner.profile.FileDescription;
import dev.quiver.planner.profile.RowGroupDescription;
import dev.quiver.planner.profile.TableDescription;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ChunkStats;
import dev.quiver.scan.table.DataFile;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveComparator;
import org.apache.parquet.schema.PrimitiveType;

/** A table as its footers (the footer cache of the snapshot) describe it, for the console's Tables page. */
final class TableDescriber {
  private TableDescriber() {}

  static TableDescription describe(Catalog snapshot, String name) {
    ParquetTable table = name == null ? null : snapshot.table(name);
    if (table == null) throw new QuiverException(ErrorCode.NOT_FOUND, "table " + name + " does not exist");
    List<Field> fields = table.schema().getFields();
    Map<String, Summary> columns = new LinkedHashMap<>();
    for (Field f : fields) columns.put(f.getName(), new Summary(f));
    Map<String, Ordering> orderings = new LinkedHashMap<>();
    for (Field f : fields) if (!table.isPartitionColumn(f.getName())) orderings.put(f.getName(), new Ordering());
    List<FileDescription> files = new ArrayList<>();
    long rows = 0;
    long bytes = 0;
    int rowGroups = 0;
    for (DataFile file : table.files()) {
      ParquetMetadata footer = snapshot.footers().footer(file);
      MessageType schema = footer.getFileMetaData().getSchema();
      bytes += file.length();
      List<RowGroupDescription> groups = new ArrayList<>();
      List<BlockMetaData> blocks = footer.getBlocks();
      for (int i = 0; i < blocks.size(); i++) {
        BlockMetaData block = blocks.get(i);
        rows += block.getRowCount();
        rowGroups++;
        List<ColumnStat> stats = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (ColumnChunkMetaData c : block.getColumns()) {
          String column = c.getPath().toDotString();
          Summary summary = columns.get(column);
          if (summary == null) continue; // a column Quiver does not read (nested, unsupported)
          seen.add(column);
          PrimitiveType type = schema.getType(column).asPrimitiveType();
          summary.add(c, type);
          ChunkStats s = ChunkStats.of(column, c, type);
          stats.add(new ColumnStat(s.column(), s.min(), s.max(), s.nullCount(), s.hasDictionary(), s.hasBloomFilter()));
          Ordering o = orderings.get(column);
          if (o != null) o.next(c.getStatistics(), type);
        }
        for (Map.Entry<String, Ordering> o : orderings.entrySet()) {
          if (!seen.contains(o.getKey())) o.getValue().sorted = false; // absent from this file: all NULL
        }
        groups.add(new RowGroupDescription(i, block.getRowCount(), block.getCompressedSize(), List.copyOf(stats)));
      }
      files.add(new FileDescription(snapshot.relativePath(file), file.length(),
          java.util.Collections.unmodifiableMap(new TreeMap<>(file.partitionValues())), List.copyOf(groups)));
    }
    List<ColumnDescription> described = new ArrayList<>();
    for (Summary s : columns.values()) described.add(s.describe(table.isPartitionColumn(s.field.getName())));
    List<String> sortedBy = new ArrayList<>();
    if (rowGroups >= 2) {
      for (Map.Entry<String, Ordering> o : orderings.entrySet()) if (o.getValue().sorted) sortedBy.add(o.getKey());
    }
    return new TableDescription(table.name(), rows, bytes, List.copyOf(described), table.partitionColumns(),
        List.copyOf(sortedBy), List.copyOf(files));
  }

  /** One column over all its chunks. */
  private static final class Summary {
    final Field field;
    String physicalType;
    final TreeSet<String> codecs = new TreeSet<>();
    final TreeSet<String> encodings = new TreeSet<>();
    boolean dictionary = true;
    boolean bloom = true;
    boolean pageIndex = true;
    int chunks;
    long compressed;
    long uncompressed;

    Summary(Field field) {
      this.field = field;
    }

    void add(ColumnChunkMetaData c, PrimitiveType type) {
      if (physicalType == null) {
        physicalType = type.getPrimitiveTypeName().name()
            + (type.getLogicalTypeAnnotation() == null ? "" : " (" + type.getLogicalTypeAnnotation() + ")");
      }
      chunks++;
      codecs.add(c.getCodec().name());
      for (var e : c.getEncodings()) encodings.add(e.name());
      dictionary &= c.hasDictionaryPage();
      bloom &= c.getBloomFilterOffset() >= 0;
      pageIndex &= c.getColumnIndexReference() != null && c.getOffsetIndexReference() != null;
      compressed += c.getTotalSize();
      uncompressed += c.getTotalUncompressedSize();
    }

    ColumnDescription describe(boolean partition) {
      boolean any = chunks > 0;
      return new ColumnDescription(field.getName(), SqlTypes.sqlName(field.getType()),
          partition ? "partition" : physicalType, field.isNullable(), any ? String.join(",", codecs) : null,
          List.copyOf(encodings), any && dictionary, any && bloom, any && pageIndex, compressed, uncompressed);
    }
  }

  /**
   * Whether a column's row groups, in file order, have ascending, non-overlapping [min, max] ranges (touching ends
   * allowed: a value at a boundary may sit in both); every row group needs statistics.
   */
  private static final class Ordering {
    boolean sorted = true;
    Object lastMax;
    PrimitiveType lastType;

    @SuppressWarnings({"unchecked", "rawtypes"})
    void next(Statistics<?> s, PrimitiveType type) {
      if (!sorted) return;
      if (s == null || s.isEmpty() || !s.hasNonNullValue()
          || type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96) {
        sorted = false;
        return;
      }
      if (lastMax != null) {
        if (!type.equals(lastType)) {
          sorted = false;
          return;
        }
        PrimitiveComparator cmp = (PrimitiveComparator) s.comparator();
        Object min = s.genericGetMin();
        if (cmp.compare(lastMax, min) > 0) {
          sorted = false;
          return;
        }
        if (cmp.compare(s.genericGetMin(), s.genericGetMax()) > 0) {
          sorted = false;
          return;
        }
      }
      lastMax = s.genericGetMax();
      lastType = type;
    }
  }
}
