package dev.quiver.common;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
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
    return longs(v, n, null);
  }

  /**
   * As {@link #longs(FieldVector, int)}, into {@code reuse} when it holds {@code n} values (a caller's array from
   * the batch before: allocating and zeroing a new array a batch cost more than the copy itself). Read through a
   * little-endian view of the buffer's memory: one bulk copy for 64-bit values, a widening loop for 32-bit ones.
   */
  public static long[] longs(FieldVector v, int n, long[] reuse) {
    boolean wide = v instanceof BigIntVector || v instanceof TimeStampVector;
    if (!wide && !(v instanceof IntVector || v instanceof DateDayVector)) return null;
    long[] out = reuse != null && reuse.length >= n ? reuse : new long[n];
    if (n == 0) return out;
    ByteBuffer raw = view(v, n, wide ? 8 : 4);
    if (wide) {
      raw.asLongBuffer().get(out, 0, n);
    } else {
      IntBuffer ints = raw.asIntBuffer();
      for (int i = 0; i < n; i++) out[i] = ints.get(i);
    }
    return out;
  }

  /**
   * Rows {@code [0, n)} of a DOUBLE or REAL vector as doubles (NULL rows hold whatever their slot holds), or null for
   * another kind of vector. One bulk copy instead of a bounds-checked read a row.
   */
  public static double[] doubles(FieldVector v, int n) {
    return doubles(v, n, null);
  }

  /** As {@link #doubles(FieldVector, int)}, into {@code reuse} when it holds {@code n} values. */
  public static double[] doubles(FieldVector v, int n, double[] reuse) {
    boolean wide = v instanceof Float8Vector;
    if (!wide && !(v instanceof Float4Vector)) return null;
    double[] out = reuse != null && reuse.length >= n ? reuse : new double[n];
    if (n == 0) return out;
    ByteBuffer raw = view(v, n, wide ? 8 : 4);
    if (wide) {
      raw.asDoubleBuffer().get(out, 0, n);
    } else {
      FloatBuffer floats = raw.asFloatBuffer();
      for (int i = 0; i < n; i++) out[i] = floats.get(i);
    }
    return out;
  }

  /**
   * The unscaled values of rows {@code [0, n)} of a DECIMAL vector as longs, or null when a non-NULL one
   * does not fit a long. NULL rows hold whatever their slot holds.
   */
  public static long[] unscaled(DecimalVector v, int n) {
    return unscaled(v, n, null);
  }

  /** As {@link #unscaled(DecimalVector, int)}, into {@code reuse} when it holds {@code n} values. */
  public static long[] unscaled(DecimalVector v, int n, long[] reuse) {
    long[] out = reuse != null && reuse.length >= n ? reuse : new long[n];
    if (n == 0) return out;
    LongBuffer halves = view(v, n, 16).asLongBuffer();
    for (int i = 0; i < n; i++) {
      long low = halves.get(2 * i);
      if (halves.get(2 * i + 1) != (low >> 63) && !v.isNull(i)) return null;
      out[i] = low;
    }
    return out;
  }

  /**
   * Rows {@code [0, n)} of a signed 64-bit (BIGINT, TIMESTAMP) or 32-bit (INT, DATE) vector without NULLs, converted
   * to DOUBLE into slots {@code [0, n)} of {@code out} (allocated for them), all marked valid; false (nothing written)
   * for another kind of vector. Read and written through views of the buffers: no array, no checked set a row.
   */
  public static boolean longsToDoubles(FieldVector in, Float8Vector out, int n) {
    boolean wide = in instanceof BigIntVector || in instanceof TimeStampVector;
    if (!wide && !(in instanceof IntVector || in instanceof DateDayVector)) return false;
    if (n == 0) return true;
    DoubleBuffer to = view(out, n, 8).asDoubleBuffer();
    if (wide) {
      LongBuffer from = view(in, n, 8).asLongBuffer();
      for (int i = 0; i < n; i++) to.put(i, (double) from.get(i));
    } else {
      IntBuffer from = view(in, n, 4).asIntBuffer();
      for (int i = 0; i < n; i++) to.put(i, (double) from.get(i));
    }
    setValid(out.getValidityBuffer(), 0, n);
    return true;
  }

  /** A little-endian view of the first {@code n} values ({@code width} bytes each) of {@code v}'s data buffer. */
  private static ByteBuffer view(FieldVector v, int n, int width) {
    return v.getDataBuffer().nioBuffer(0, n * width).order(ByteOrder.LITTLE_ENDIAN);
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
