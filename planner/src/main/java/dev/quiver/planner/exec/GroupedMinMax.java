package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import java.util.Arrays;

/**
 * {@code min}/{@code max} of a LONG-family (integers, dates, timestamps) or DOUBLE argument for every group, in a
 * primitive array per group updated in one loop over a chunk of rows: the same answers as {@link Accumulator}'s
 * (NULLs ignored, NULL for a group without a value; doubles ordered by {@link Kernels#compareDouble}: NaN above every
 * number, {@code -0.0} equal to {@code 0.0}, and on a tie the first value seen is kept).
 */
final class GroupedMinMax extends GroupedAccumulator {
  @Override int bytesPerGroup() { return 9; }
  private final boolean min;
  private final boolean doubles;
  private long[] longs = new long[0];
  private double[] reals = new double[0];
  private boolean[] seen = new boolean[0];
  private ColumnValues v;
  private long[] x;
  /** The batch before's values, an array to fill again. */
  private long[] scratch;

  GroupedMinMax(boolean min, Kernels.Family family) {
    this.min = min;
    this.doubles = family == Kernels.Family.DOUBLE;
  }

  /** Whether an argument of {@code family} has this typed form. */
  static boolean handles(Kernels.Family family) {
    return family == Kernels.Family.LONG || family == Kernels.Family.DOUBLE;
  }

  @Override
  void grow(int count) {
    if (count > seen.length) {
      int cap = capacity(seen.length, count);
      seen = Arrays.copyOf(seen, cap);
      if (doubles) reals = Arrays.copyOf(reals, cap);
      else longs = Arrays.copyOf(longs, cap);
    }
  }

  @Override
  void batch(ColumnValues values, int n) {
    v = values;
    x = !doubles && values.vector() != null ? BatchValues.longs(values, n, scratch) : null;
    if (x != null) scratch = x;
  }

  @Override
  void update(int[] ids, int lo, int hi) {
    boolean scalar = v.vector() == null;
    if (scalar && v.isNull(0)) return;
    boolean nulls = !scalar && v.vector().getNullCount() > 0;
    if (doubles) {
      for (int i = lo; i < hi; i++) {
        if (nulls && v.isNull(i)) continue;
        double d = v.getDouble(scalar ? 0 : i);
        int g = ids[i];
        if (!seen[g]) {
          seen[g] = true;
          reals[g] = d;
        } else {
          int c = Kernels.compareDouble(d, reals[g]);
          if (min ? c < 0 : c > 0) reals[g] = d;
        }
      }
      return;
    }
    long[] best = longs;
    boolean[] s = seen;
    long constant = scalar ? v.getLong(0) : 0;
    for (int i = lo; i < hi; i++) {
      if (nulls && v.isNull(i)) continue;
      long a = scalar ? constant : x[i];
      int g = ids[i];
      if (!s[g]) {
        s[g] = true;
        best[g] = a;
      } else if (min ? a < best[g] : a > best[g]) {
        best[g] = a;
      }
    }
  }

  @Override
  void write(org.apache.arrow.vector.FieldVector v, int first, int count) {
    if (doubles && v instanceof org.apache.arrow.vector.Float8Vector f) {
      for (int r = 0; r < count; r++) {
        if (seen[first + r]) f.set(r, reals[first + r]);
        else f.setNull(r);
      }
    } else if (!doubles && v instanceof org.apache.arrow.vector.BigIntVector b) {
      for (int r = 0; r < count; r++) {
        if (seen[first + r]) b.set(r, longs[first + r]);
        else b.setNull(r);
      }
    } else {
      super.write(v, first, count);
    }
  }

  @Override
  Object result(int g) {
    if (!seen[g]) return null;
    return doubles ? (Object) reals[g] : (Object) longs[g];
  }
}
