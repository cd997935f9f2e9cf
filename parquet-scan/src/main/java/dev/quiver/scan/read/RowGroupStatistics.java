package dev.quiver.scan.read;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * What a row group's footer says exactly about its rows, offered to a {@link BatchPipeline} before any page is
 * read ({@link BatchPipeline#fromStatistics}): the row count, and per output column of the scan (in the scan's
 * order) its NULL count and least and greatest value, or null where the footer does not say it exactly.
 *
 * <p>Exact only where no writer can make it wrong: columns stored as INT32 or INT64 that read as signed integers,
 * dates or decimals (values as {@code Long} for integers and dates — days since the epoch — and {@code BigDecimal}
 * for decimals, Quiver's value forms), with the NULL count set. Not floating point (a writer may leave NaN out of
 * the bounds, or give up on them), not strings or binary (bounds may be truncated), not unsigned integers or
 * timestamps (different orders and units), not partition columns. A column the file does not have is all NULL.
 */
public record RowGroupStatistics(long rows, List<Column> columns) {
  /** One column's statistics: {@code nulls} NULLs; {@code min}/{@code max} null when every value is NULL. */
  public record Column(long nulls, Object min, Object max) {}

  public RowGroupStatistics {
    columns = java.util.Collections.unmodifiableList(new ArrayList<>(columns));
  }

  /**
   * The statistics of {@code block} (of a file of schema {@code fileSchema}) for the columns {@code fields};
   * {@code partition} tells which are partition columns.
   */
  static RowGroupStatistics of(BlockMetaData block, MessageType fileSchema, List<Field> fields,
      java.util.function.Predicate<String> partition) {
    long rows = block.getRowCount();
    List<Column> out = new ArrayList<>();
    for (Field f : fields) {
      String name = f.getName();
      if (partition.test(name)) {
        out.add(null);
      } else if (!fileSchema.containsField(name)) {
        out.add(new Column(rows, null, null)); // absent from this file: NULL in every row
      } else {
        Map<String, java.util.Optional<Column>> known = CACHE.computeIfAbsent(block,
            b -> new java.util.concurrent.ConcurrentHashMap<>());
        out.add(known.computeIfAbsent(name + '\0' + f.getType(),
            k -> java.util.Optional.ofNullable(column(block, fileSchema.getType(name), f.getType(), rows))).orElse(null));
      }
    }
    return new RowGroupStatistics(rows, out);
  }

  /**
   * The columns' statistics per row group of a cached footer (the footer cache keeps one per file version, so the
   * same row group object comes back while the file is unchanged), converted once: a statistics answer then costs
   * a lookup per row group and column. Weak keys: gone with the footer.
   */
  private static final Map<BlockMetaData, Map<String, java.util.Optional<Column>>> CACHE =
      java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

  private static Column column(BlockMetaData block, Type type, ArrowType arrow, long rows) {
    if (!type.isPrimitive()) return null;
    PrimitiveType p = type.asPrimitiveType();
    ColumnChunkMetaData chunk = null;
    org.apache.parquet.hadoop.metadata.ColumnPath path = org.apache.parquet.hadoop.metadata.ColumnPath.get(type.getName());
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (c.getPath().equals(path)) chunk = c;
    }
    if (chunk == null) return null;
    Statistics<?> s = chunk.getStatistics();
    if (s == null || s.isEmpty() || !s.isNumNullsSet() || s.getNumNulls() < 0 || s.getNumNulls() > rows) return null;
    long nulls = s.getNumNulls();
    PrimitiveType.PrimitiveTypeName physical = p.getPrimitiveTypeName();
    if (physical != PrimitiveType.PrimitiveTypeName.INT32 && physical != PrimitiveType.PrimitiveTypeName.INT64) return null;
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    Integer scale = null;
    if (logical == null || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && i.isSigned()) {
      if (!(arrow instanceof ArrowType.Int a && a.getIsSigned())) return null;
    } else if (logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
      if (!(arrow instanceof ArrowType.Date)) return null;
    } else if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
      if (!(arrow instanceof ArrowType.Decimal a) || a.getScale() != d.getScale()) return null;
      scale = d.getScale();
    } else {
      return null;
    }
    if (!s.hasNonNullValue()) return nulls == rows ? new Column(nulls, null, null) : null;
    long min = ((Number) s.genericGetMin()).longValue();
    long max = ((Number) s.genericGetMax()).longValue();
    if (min > max) return null; // not a signed order: not trusted
    return scale == null ? new Column(nulls, min, max)
        : new Column(nulls, BigDecimal.valueOf(min, scale), BigDecimal.valueOf(max, scale));
  }
}
