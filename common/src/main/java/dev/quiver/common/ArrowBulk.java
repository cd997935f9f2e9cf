package dev.quiver.common;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;

/**
 * Whole-run access to fixed-width Arrow buffers. Every {@code ArrowBuf} get/set checks bounds and reads
 * the buffer's reference count, so reading or writing value by value costs more than the values; these
 * copy a run out of (or into) a Java array at once and work on the array with little-endian views.
 */
public final class ArrowBulk {
  private ArrowBulk() {}

  /** Little-endian views of a byte[]: {@code (long) LONGS.get(bytes, offset)}, {@code LONGS.set(...)}. */
  public static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  public static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  public static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * The values of rows {@code [0, n)} of a signed 64-bit (BIGINT, TIMESTAMP) or 32-bit (INT, DATE) vector
   * as longs, or null for any other vector. NULL rows hold whatever their slot holds.
   */
  public static long[] longs(FieldVector v, int n) {
    long[] out = new long[n];
    if (v instanceof BigIntVector || v instanceof TimeStampVector) {
      byte[] raw = copyOut(v, n, 8);
      for (int i = 0; i < n; i++) out[i] = (long) LONGS.get(raw, i << 3);
    } else if (v instanceof IntVector || v instanceof DateDayVector) {
      byte[] raw = copyOut(v, n, 4);
      for (int i = 0; i < n; i++) out[i] = (int) INTS.get(raw, i << 2);
    } else {
      return null;
    }
    return out;
  }

  /**
   * Rows {@code [0, n)} of a DOUBLE or REAL vector as doubles (NULL rows hold whatever their slot holds), or null for
   * another kind of vector. One bulk copy instead of a bounds-checked read a row.
   */
  public static double[] doubles(FieldVector v, int n) {
    double[] out = new double[n];
    if (v instanceof Float8Vector) {
      byte[] raw = copyOut(v, n, 8);
      for (int i = 0; i < n; i++) out[i] = Double.longBitsToDouble((long) LONGS.get(raw, i << 3));
    } else if (v instanceof Float4Vector) {
      byte[] raw = copyOut(v, n, 4);
      for (int i = 0; i < n; i++) out[i] = Float.intBitsToFloat((int) INTS.get(raw, i << 2));
    } else {
      return null;
    }
    return out;
  }

  /**
   * The unscaled values of rows {@code [0, n)} of a DECIMAL vector as longs, or null when a non-NULL one
   * does not fit a long. NULL rows hold whatever their slot holds.
   */
  public static long[] unscaled(DecimalVector v, int n) {
    long[] out = new long[n];
    byte[] raw = copyOut(v, n, 16);
    for (int i = 0; i < n; i++) {
      long low = (long) LONGS.get(raw, i << 4);
      if ((long) LONGS.get(raw, (i << 4) + 8) != (low >> 63) && !v.isNull(i)) return null;
      out[i] = low;
    }
    return out;
  }

  private static byte[] copyOut(FieldVector v, int n, int width) {
    byte[] raw = new byte[n * width];
    v.getDataBuffer().getBytes(0, raw, 0, raw.length);
    return raw;
  }

  /** Marks slots {@code [at, at + count)} valid: whole bytes at once, bits at the ends. */
  public static void setValid(ArrowBuf validity, int at, int count) {
    int i = at;
    int end = at + count;
    while (i < end && (i & 7) != 0) BitVectorHelper.setBit(validity, i++);
    int fullBytes = (end - i) >>> 3;
    if (fullBytes > 0) {
      validity.setOne(i >>> 3, fullBytes);
      i += fullBytes << 3;
    }
    while (i < end) BitVectorHelper.setBit(validity, i++);
  }
}
