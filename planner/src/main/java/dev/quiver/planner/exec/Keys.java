package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * Values as hash keys: equal SQL values give equal keys. {@code -0.0} is {@code 0.0}, every NaN is one
 * NaN, byte arrays compare by content. A NULL is {@link #NULL} (for grouping, where NULLs form a group).
 */
final class Keys {
  private Keys() {}

  /** The key of a NULL value. */
  static final Object NULL = new Object() {
    @Override public String toString() { return "NULL"; }
  };

  /** The key of one value (never null: NULL is {@link #NULL}). */
  static Object of(ColumnValues v, int i) {
    if (v.isNull(i)) return NULL;
    return normalize(v.getObject(i));
  }

  static Object normalize(Object o) {
    if (o instanceof Double d) {
      if (d == 0.0) return 0.0; // -0.0
      if (d.isNaN()) return Double.NaN;
      return d;
    }
    if (o instanceof byte[] b) return ByteBuffer.wrap(b);
    if (o instanceof java.math.BigDecimal b) return b.signum() == 0 ? java.math.BigDecimal.ZERO : b.stripTrailingZeros();
    return o;
  }

  /** The key of row {@code i} over several columns; a single column's key is the value's key itself. */
  static Object row(List<ColumnValues> columns, int i) {
    if (columns.size() == 1) return of(columns.get(0), i);
    Object[] k = new Object[columns.size()];
    for (int c = 0; c < k.length; c++) k[c] = of(columns.get(c), i);
    return new Composite(k);
  }

  /** Whether any of the columns is NULL at row {@code i}. */
  static boolean anyNull(List<ColumnValues> columns, int i) {
    for (ColumnValues c : columns) if (c.isNull(i)) return true;
    return false;
  }

  /** Whether any of the columns not marked {@code nullSafe} is NULL at row {@code i}. */
  static boolean anyNull(List<ColumnValues> columns, boolean[] nullSafe, int i) {
    for (int c = 0; c < columns.size(); c++) if (!nullSafe[c] && columns.get(c).isNull(i)) return true;
    return false;
  }

  /** A multi-column key. */
  record Composite(Object[] parts) {
    @Override public boolean equals(Object o) { return o instanceof Composite c && Arrays.equals(parts, c.parts); }
    @Override public int hashCode() { return Arrays.hashCode(parts); }
  }

  /** A rough heap size of a key, for memory accounting. */
  static long sizeOf(Object key) {
    if (key instanceof Composite c) {
      long s = 16 + 8L * c.parts.length;
      for (Object p : c.parts) s += sizeOf(p);
      return s;
    }
    if (key instanceof String s) return 40 + s.length();
    if (key instanceof ByteBuffer b) return 48 + b.remaining();
    if (key instanceof java.math.BigDecimal) return 40;
    return 16;
  }
}
