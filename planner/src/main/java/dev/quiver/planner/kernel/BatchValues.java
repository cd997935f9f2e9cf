package dev.quiver.planner.kernel;

import dev.quiver.common.ArrowBulk;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Whole-batch reads for the kernels' fast paths: the values of a column as a primitive array, read
 * straight from the Arrow buffer in one loop (no per-row interface call), and validity written a byte
 * at a time. NULL rows hold whatever their slot holds; callers check {@link #anyNull} first.
 */
public final class BatchValues {
  private BatchValues() {}

  /** Whether some row of the batch is NULL (a scalar NULL: every row). */
  public static boolean anyNull(ColumnValues v) {
    FieldVector vector = v.vector();
    return vector == null ? v.isNull(0) : vector.getNullCount() > 0;
  }

  /** The LONG-family values of rows {@code [0, n)}. */
  public static long[] longs(ColumnValues v, int n) {
    return longs(v, n, null);
  }

  /**
   * As {@link #longs(ColumnValues, int)}, into {@code reuse} when it holds {@code n} values: for a caller that keeps
   * the array of the batch before (allocating a new one a batch cost more than filling it).
   */
  public static long[] longs(ColumnValues v, int n, long[] reuse) {
    FieldVector vector = v.vector();
    long[] read = vector == null ? null : ArrowBulk.longs(vector, n, reuse);
    if (read != null) return read;
    long[] out = reuse != null && reuse.length >= n ? reuse : new long[n];
    if (vector == null) {
      java.util.Arrays.fill(out, 0, n, v.isNull(0) ? 0 : v.getLong(0));
    } else {
      for (int i = 0; i < n; i++) if (!v.isNull(i)) out[i] = v.getLong(i);
    }
    return out;
  }

  /** The values of a DOUBLE or REAL for rows {@code [0, n)} as doubles (NULL rows: any value). */
  public static double[] doubles(ColumnValues v, int n) {
    return doubles(v, n, null);
  }

  /** As {@link #doubles(ColumnValues, int)}, into {@code reuse} when it holds {@code n} values. */
  public static double[] doubles(ColumnValues v, int n, double[] reuse) {
    FieldVector vector = v.vector();
    double[] read = vector == null ? null : ArrowBulk.doubles(vector, n, reuse);
    if (read != null) return read;
    double[] out = reuse != null && reuse.length >= n ? reuse : new double[n];
    if (vector == null) {
      java.util.Arrays.fill(out, 0, n, v.isNull(0) ? 0 : v.getDouble(0));
    } else {
      for (int i = 0; i < n; i++) if (!v.isNull(i)) out[i] = v.getDouble(i);
    }
    return out;
  }

  /**
   * The unscaled values of a DECIMAL for rows {@code [0, n)}, or null when one does not fit a long (the
   * caller then takes its exact BigDecimal path).
   */
  public static long[] unscaled(ColumnValues v, int n) {
    return unscaled(v, n, null);
  }

  /** As {@link #unscaled(ColumnValues, int)}, into {@code reuse} when it holds {@code n} values. */
  public static long[] unscaled(ColumnValues v, int n, long[] reuse) {
    FieldVector vector = v.vector();
    if (vector == null) {
      long[] out = reuse != null && reuse.length >= n ? reuse : new long[n];
      if (v.isNull(0)) {
        java.util.Arrays.fill(out, 0, n, 0);
        return out;
      }
      try {
        java.util.Arrays.fill(out, 0, n, v.getUnscaledLong(0));
        return out;
      } catch (ArithmeticException wide) {
        return null;
      }
    }
    return vector instanceof DecimalVector d ? ArrowBulk.unscaled(d, n, reuse) : null;
  }

  /** Marks rows {@code [0, n)} valid: whole bytes at once. */
  public static void setAllValid(ArrowBuf validity, int n) {
    ArrowBulk.setValid(validity, 0, n);
  }

  /**
   * Marks in {@code keep[0, n)} the rows of a BOOLEAN mask that are TRUE (not NULL, not FALSE), every entry
   * written; returns how many. A word of 64 rows at a time, without branches.
   */
  public static int keepTrue(ColumnValues mask, int n, boolean[] keep) {
    if (!(mask.vector() instanceof BitVector bits)) {
      int count = 0;
      for (int i = 0; i < n; i++) {
        keep[i] = !mask.isNull(i) && mask.getBool(i);
        if (keep[i]) count++;
      }
      return count;
    }
    ArrowBuf valid = bits.getValidityBuffer();
    ArrowBuf data = bits.getDataBuffer();
    int count = 0;
    int words = (n + 63) >>> 6;
    for (int w = 0; w < words; w++) {
      long m = CompareKernels.word(valid, w, n) & CompareKernels.word(data, w, n);
      int base = w << 6;
      int end = Math.min(64, n - base);
      for (int k = 0; k < end; k++) keep[base + k] = (m >>> k & 1L) != 0;
      count += Long.bitCount(m);
    }
    return count;
  }

  /**
   * The rows of a BOOLEAN mask that are TRUE (not NULL, not FALSE) into {@code selected}; returns how many.
   */
  public static int selectTrue(ColumnValues mask, int n, int[] selected) {
    int count = 0;
    if (mask.vector() instanceof BitVector bits) {
      // 64 rows a word: TRUE is valid and set
      ArrowBuf valid = bits.getValidityBuffer();
      ArrowBuf data = bits.getDataBuffer();
      int words = (n + 63) >>> 6;
      for (int w = 0; w < words; w++) {
        long m = CompareKernels.word(valid, w, n) & CompareKernels.word(data, w, n);
        int base = w << 6;
        if (m == -1L) {
          for (int k = 0; k < 64; k++) selected[count + k] = base + k;
          count += 64;
          continue;
        }
        while (m != 0) {
          selected[count++] = base + Long.numberOfTrailingZeros(m);
          m &= m - 1;
        }
      }
      return count;
    }
    for (int i = 0; i < n; i++) if (!mask.isNull(i) && mask.getBool(i)) selected[count++] = i;
    return count;
  }
}
