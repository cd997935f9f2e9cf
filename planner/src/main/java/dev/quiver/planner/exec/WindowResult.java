package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.Vectors;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * One window call's results over a bucket, by the row's local id: integers (every type read as a long: BIGINT and
 * the narrower integers, dates, timestamps) and DOUBLEs unboxed, with a NULL flag a row; other types as values in
 * physical form. 9 bytes a row instead of a reference and a boxed value.
 */
final class WindowResult {
  private final long[] longs;
  private final double[] doubles;
  private final boolean[] nulls;
  private final Object[] objects;

  private WindowResult(ArrowType type, int n) {
    Kernels.Family family = Kernels.family(type);
    boolean asLong = family == Kernels.Family.LONG || family == Kernels.Family.ULONG;
    boolean asDouble = type instanceof ArrowType.FloatingPoint fp && fp.getPrecision() == FloatingPointPrecision.DOUBLE;
    longs = asLong ? new long[n] : null;
    doubles = asDouble ? new double[n] : null;
    nulls = asLong || asDouble ? new boolean[n] : null;
    objects = asLong || asDouble ? null : new Object[n];
  }

  /** Room for {@code n} results of {@code type}, charged to {@code memory}. */
  static WindowResult of(ArrowType type, int n, MemoryReservation memory) {
    WindowResult r = new WindowResult(type, n);
    memory.add((r.objects != null ? 40L : 9L) * n);
    return r;
  }

  /** A value in physical form, or null. */
  void set(int i, Object v) {
    if (objects != null) {
      objects[i] = v;
    } else if (v == null) {
      nulls[i] = true;
    } else if (longs != null) {
      longs[i] = (Long) v;
    } else {
      doubles[i] = (Double) v;
    }
  }

  void setLong(int i, long v) {
    if (longs != null) longs[i] = v;
    else set(i, v);
  }

  void setDouble(int i, double v) {
    if (doubles != null) doubles[i] = v;
    else set(i, v);
  }

  /** Writes the results of local ids {@code ids[from, from + count)} into {@code v}, rows 0 to count - 1. */
  void write(FieldVector v, int[] ids, int from, int count) {
    if (objects != null) {
      for (int k = 0; k < count; k++) Vectors.set(v, k, objects[ids[from + k]]);
    } else if (longs != null && v instanceof BigIntVector b) {
      for (int k = 0; k < count; k++) {
        int i = ids[from + k];
        if (nulls[i]) b.setNull(k);
        else b.set(k, longs[i]);
      }
    } else if (doubles != null && v instanceof Float8Vector f) {
      for (int k = 0; k < count; k++) {
        int i = ids[from + k];
        if (nulls[i]) f.setNull(k);
        else f.set(k, doubles[i]);
      }
    } else {
      for (int k = 0; k < count; k++) {
        int i = ids[from + k];
        if (nulls[i]) v.setNull(k);
        else if (longs != null) Vectors.setLong(v, k, longs[i]);
        else Vectors.set(v, k, doubles[i]);
      }
    }
  }
}
