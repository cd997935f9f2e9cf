package dev.quiver.planner.kernel;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;

/**
 * Whole-batch reads for the kernels' fast paths: the values of a column as a primitive array, read
 * straight from the Arrow buffer in one loop (no per-row interface call), and validity written a byte
 * at a time. NULL rows hold 0 in the arrays; callers check {@link #anyNull} first.
 */
public final class BatchValues {
  private BatchValues() {}

  private static final java.lang.invoke.VarHandle LONGS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
  private static final java.lang.invoke.VarHandle INTS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

  /** The first {@code n} values of a fixed-width vector's data buffer, copied out at once. */
  private static byte[] raw(FieldVector vector, int n, int width) {
    byte[] raw = new byte[n * width];
    vector.getDataBuffer().getBytes(0, raw, 0, raw.length);
    return raw;
  }

  /** Whether some row of the batch is NULL (a scalar NULL: every row). */
  public static boolean anyNull(ColumnValues v) {
    FieldVector vector = v.vector();
    return vector == null ? v.isNull(0) : vector.getNullCount() > 0;
  }

  /** The LONG-family values of rows {@code [0, n)}. */
  public static long[] longs(ColumnValues v, int n) {
    long[] out = new long[n];
    FieldVector vector = v.vector();
    if (vector == null) {
      if (!v.isNull(0)) java.util.Arrays.fill(out, v.getLong(0));
    } else if (vector instanceof BigIntVector || vector instanceof TimeStampVector) {
      byte[] raw = raw(vector, n, 8);
      for (int i = 0; i < n; i++) out[i] = (long) LONGS.get(raw, i << 3);
    } else if (vector instanceof IntVector || vector instanceof DateDayVector) {
      byte[] raw = raw(vector, n, 4);
      for (int i = 0; i < n; i++) out[i] = (int) INTS.get(raw, i << 2);
    } else {
      for (int i = 0; i < n; i++) if (!v.isNull(i)) out[i] = v.getLong(i);
    }
    return out;
  }

  /**
   * The unscaled values of a DECIMAL for rows {@code [0, n)}, or null when one does not fit a long (the
   * caller then takes its exact BigDecimal path).
   */
  public static long[] unscaled(ColumnValues v, int n) {
    long[] out = new long[n];
    FieldVector vector = v.vector();
    if (vector == null) {
      if (v.isNull(0)) return out;
      try {
        java.util.Arrays.fill(out, v.getUnscaledLong(0));
        return out;
      } catch (ArithmeticException wide) {
        return null;
      }
    }
    if (!(vector instanceof DecimalVector)) return null;
    byte[] raw = raw(vector, n, 16);
    for (int i = 0; i < n; i++) {
      long low = (long) LONGS.get(raw, i << 4);
      long high = (long) LONGS.get(raw, (i << 4) + 8);
      if (high != (low >> 63)) {
        if (vector.isNull(i)) continue; // garbage under a NULL
        return null;
      }
      out[i] = low;
    }
    return out;
  }

  /** Marks rows {@code [0, n)} valid: whole bytes at once. */
  public static void setAllValid(ArrowBuf validity, int n) {
    int full = n >>> 3;
    if (full > 0) validity.setOne(0, full);
    for (int i = full << 3; i < n; i++) org.apache.arrow.vector.BitVectorHelper.setBit(validity, i);
  }

  /**
   * The rows of a BOOLEAN mask that are TRUE (not NULL, not FALSE) into {@code selected}; returns how many.
   */
  public static int selectTrue(ColumnValues mask, int n, int[] selected) {
    int count = 0;
    if (mask.vector() instanceof BitVector bits) {
      ArrowBuf valid = bits.getValidityBuffer();
      ArrowBuf data = bits.getDataBuffer();
      int bytes = (n + 7) >>> 3;
      for (int b = 0; b < bytes; b++) {
        int m = valid.getByte(b) & data.getByte(b) & 0xFF;
        while (m != 0) {
          int bit = Integer.numberOfTrailingZeros(m);
          int row = (b << 3) + bit;
          if (row < n) selected[count++] = row;
          m &= m - 1;
        }
      }
      return count;
    }
    for (int i = 0; i < n; i++) if (!mask.isNull(i) && mask.getBool(i)) selected[count++] = i;
    return count;
  }
}
