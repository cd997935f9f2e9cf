package dev.quiver.scan.table;

import dev.quiver.common.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

/**
 * What a column chunk's footer says about it, for people: min and max as the text a client shows for values of the
 * column's type ({@code 1992-03-01}, {@code 1234.50}, strings as they are; null when the footer has none or Quiver
 * cannot read them, e.g. INT96), the null count (null when not recorded), and whether it has a dictionary page and a
 * bloom filter.
 */
public record ChunkStats(String column, String min, String max, Long nullCount, boolean hasDictionary,
    boolean hasBloomFilter) {

  /** The statistics of chunk {@code c}, of column {@code column} whose Parquet type is {@code type}. */
  public static ChunkStats of(String column, ColumnChunkMetaData c, PrimitiveType type) {
    String min = null;
    String max = null;
    Long nulls = null;
    Statistics<?> s = c.getStatistics();
    if (s != null && !s.isEmpty()) {
      if (s.hasNonNullValue()) {
        min = text(s.genericGetMin(), type);
        max = text(s.genericGetMax(), type);
      }
      if (s.isNumNullsSet()) nulls = s.getNumNulls();
    }
    return new ChunkStats(column, min, max, nulls, c.hasDictionaryPage(), c.getBloomFilterOffset() >= 0);
  }

  /** A statistics value of a column of Parquet type {@code type} as text, or null if it cannot be shown. */
  static String text(Object v, PrimitiveType type) {
    if (v == null) return null;
    try {
      TypeMapping.Mapped m = TypeMapping.map(type);
      if (!m.supported() || type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96) return null;
      ArrowType t = m.type();
      Object value;
      if (t instanceof ArrowType.Decimal d) {
        BigInteger unscaled = v instanceof Binary b ? new BigInteger(b.getBytes()) : BigInteger.valueOf(((Number) v).longValue());
        value = new BigDecimal(unscaled, d.getScale());
      } else if (t instanceof ArrowType.Int i) {
        value = v instanceof Integer n && !i.getIsSigned() ? Integer.toUnsignedLong(n) : ((Number) v).longValue();
      } else if (t instanceof ArrowType.Date || t instanceof ArrowType.Timestamp) {
        value = ((Number) v).longValue();
      } else if (t instanceof ArrowType.FloatingPoint) {
        if (!(v instanceof Number n)) return null; // FLOAT16 statistics are raw bytes
        value = n.doubleValue();
      } else if (t instanceof ArrowType.Utf8) {
        value = ((Binary) v).toStringUsingUTF8();
      } else if (t instanceof ArrowType.Binary) {
        value = ((Binary) v).getBytes();
      } else {
        value = v;
      }
      return Values.format(value, t);
    } catch (RuntimeException e) {
      return null; // statistics Quiver does not understand are not shown
    }
  }
}
