package dev.quiver.planner.kernel;

import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.kernel.Kernels.Family;
import java.math.BigDecimal;
import java.math.RoundingMode;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;

/**
 * Comparisons read straight from Arrow memory, 64 rows (one result word) at a time, without copying a
 * column out: a column against a literal, or two columns of one physical kind. The kinds: signed 64-bit
 * (BIGINT, TIMESTAMP), signed 32-bit (INT, DATE), DECIMAL of precision up to 18 (the low 8 of its 16
 * little-endian bytes, checked to be the whole value) and DOUBLE (through a long key ordered as
 * {@link Kernels#compareDouble}: -0.0 is 0.0, every NaN one value above +Infinity).
 *
 * <p>A literal turns every operator into one test per row, {@code x - lo <= hi - lo} unsigned (x within
 * [lo, hi]), the word complemented for NE and for the empty ranges; a DECIMAL literal is rescaled once to
 * the column's scale (rounded toward the side that keeps the answer exact). Validity is combined a word at a
 * time, and the value bits of NULL rows are left 0. Each method answers false (the output untouched or
 * cleared) when its case does not apply, and the caller takes the general path.
 */
final class CompareKernels {
  private CompareKernels() {}

  /** Off in tests, to compare these paths against the general one. */
  static volatile boolean enabled = MemoryUtil.LITTLE_ENDIAN;

  static final int L8 = 1;
  static final int I4 = 2;
  static final int DEC = 3;
  static final int F8 = 4;

  /** The physical kind of a vector for a comparison of family {@code f}, or 0 when none applies. */
  static int kind(Family f, FieldVector v) {
    if (f == Family.LONG) {
      if (v instanceof BigIntVector || v instanceof TimeStampVector) return L8;
      if (v instanceof IntVector || v instanceof DateDayVector) return I4;
    } else if (f == Family.DECIMAL) {
      if (v instanceof DecimalVector d && d.getPrecision() <= 18) return DEC;
    } else if (f == Family.DOUBLE) {
      if (v instanceof Float8Vector) return F8;
    }
    return 0;
  }

  static int width(int kind) {
    return switch (kind) {
      case L8, F8 -> 8;
      case I4 -> 4;
      default -> 16;
    };
  }

  static CmpOp flip(CmpOp op) {
    return switch (op) {
      case LT -> CmpOp.GT; case LE -> CmpOp.GE; case GT -> CmpOp.LT; case GE -> CmpOp.LE; default -> op;
    };
  }

  /** Writes {@code a op b} for rows {@code [0, n)} into {@code out} (all NULL on entry); false if no fast path applies. */
  static boolean compare(CmpOp op, Family f, ColumnValues a, ColumnValues b, int n, BitVector out) {
    if (!enabled || n == 0) return false;
    if (a.vector() == null && b.vector() != null) return compare(flip(op), f, b, a, n, out);
    FieldVector x = a.vector();
    if (x == null) return false;
    int kind = kind(f, x);
    if (kind == 0 || !fits(x, kind, n) || !fitsBool(out, n)) return false;
    if (b.vector() == null) {
      if (b.isNull(0)) return true; // NULL for every row: out is all NULL already
      Range r = range(op, kind, x, b);
      if (r == null) return false;
      return literal(kind, x, r, n, out);
    }
    FieldVector y = b.vector();
    if (kind(f, y) != kind || !fits(y, kind, n)) return false;
    if (kind == DEC && ((DecimalVector) x).getScale() != ((DecimalVector) y).getScale()) return false;
    return columns(op, kind, x, y, n, out);
  }

  static boolean fits(FieldVector v, int kind, int n) {
    return v.getDataBuffer().capacity() >= (long) n * width(kind) && v.getValueCount() >= n;
  }

  static boolean fitsBool(BitVector out, int n) {
    long bytes = (n + 7) >>> 3;
    return out.getDataBuffer().capacity() >= bytes && out.getValidityBuffer().capacity() >= bytes;
  }

  /** Rows pass when {@code (key - lo) ^ MIN <= limit}; the word is complemented when {@code negate}. */
  record Range(long lo, long limit, boolean negate) {
    static Range of(long lo, long hi, boolean negate) {
      return new Range(lo, (hi - lo) ^ Long.MIN_VALUE, negate);
    }

    static final Range NONE = of(Long.MIN_VALUE, Long.MAX_VALUE, true);
    static final Range ALL = of(Long.MIN_VALUE, Long.MAX_VALUE, false);
  }

  /** {@code key op k} as a range of keys. */
  static Range range(CmpOp op, long k) {
    return switch (op) {
      case EQ -> Range.of(k, k, false);
      case NE -> Range.of(k, k, true);
      case LT -> k == Long.MIN_VALUE ? Range.NONE : Range.of(Long.MIN_VALUE, k - 1, false);
      case LE -> Range.of(Long.MIN_VALUE, k, false);
      case GT -> k == Long.MAX_VALUE ? Range.NONE : Range.of(k + 1, Long.MAX_VALUE, false);
      case GE -> Range.of(k, Long.MAX_VALUE, false);
    };
  }

  /** The range of column keys for {@code column op literal}, or null when the literal does not fit. */
  static Range range(CmpOp op, int kind, FieldVector column, ColumnValues literal) {
    switch (kind) {
      case L8, I4:
        return range(op, literal.getLong(0));
      case F8:
        return range(op, doubleKey(Double.doubleToRawLongBits(literal.getDouble(0))));
      case DEC: {
        BigDecimal k = literal.getDecimal(0);
        int scale = ((DecimalVector) column).getScale();
        try {
          long floor = k.setScale(scale, RoundingMode.FLOOR).unscaledValue().longValueExact();
          long ceiling = k.setScale(scale, RoundingMode.CEILING).unscaledValue().longValueExact();
          if (floor == ceiling) return range(op, floor);
          // k lies strictly between two values of the column's scale
          return switch (op) {
            case EQ -> Range.NONE;
            case NE -> Range.ALL;
            case LT, GE -> range(op, ceiling);
            case LE, GT -> range(op, floor);
          };
        } catch (ArithmeticException wide) {
          return null;
        }
      }
      default:
        return null;
    }
  }

  /** A long ordered as {@link Kernels#compareDouble} orders doubles, from a double's raw bits. */
  static long doubleKey(long raw) {
    long b = raw == Long.MIN_VALUE ? 0L : raw; // -0.0 is 0.0
    b = (b & Long.MAX_VALUE) > 0x7FF0000000000000L ? 0x7FF8000000000000L : b; // one NaN
    return b ^ ((b >> 63) >>> 1);
  }

  private static boolean literal(int kind, FieldVector x, Range r, int n, BitVector out) {
    long addr = x.getDataBuffer().memoryAddress();
    ArrowBuf xv = x.getValidityBuffer();
    ArrowBuf ov = out.getValidityBuffer();
    ArrowBuf od = out.getDataBuffer();
    long lo = r.lo();
    long limit = r.limit();
    long flip = r.negate() ? -1L : 0L;
    int words = (n + 63) >>> 6;
    for (int w = 0; w < words; w++) {
      int start = w << 6;
      int end = Math.min(64, n - start);
      long valid = word(xv, w, n);
      long bits;
      switch (kind) {
        case L8 -> bits = rangeL8(addr + ((long) start << 3), end, lo, limit);
        case I4 -> bits = rangeI4(addr + ((long) start << 2), end, lo, limit);
        case F8 -> bits = rangeF8(addr + ((long) start << 3), end, lo, limit);
        default -> {
          long p = addr + ((long) start << 4);
          if ((wideDec(p, end) & valid) != 0) {
            out.zeroVector();
            return false;
          }
          bits = rangeDec(p, end, lo, limit);
        }
      }
      put(ov, w, valid);
      put(od, w, (bits ^ flip) & valid);
    }
    return true;
  }

  private static long rangeL8(long p, int end, long lo, long limit) {
    long bits = 0;
    for (int k = 0; k < end; k++) {
      long v = MemoryUtil.getLong(p + ((long) k << 3));
      bits |= (((v - lo) ^ Long.MIN_VALUE) <= limit ? 1L : 0L) << k;
    }
    return bits;
  }

  private static long rangeI4(long p, int end, long lo, long limit) {
    long bits = 0;
    for (int k = 0; k < end; k++) {
      long v = MemoryUtil.getInt(p + ((long) k << 2));
      bits |= (((v - lo) ^ Long.MIN_VALUE) <= limit ? 1L : 0L) << k;
    }
    return bits;
  }

  private static long rangeDec(long p, int end, long lo, long limit) {
    long bits = 0;
    for (int k = 0; k < end; k++) {
      long v = MemoryUtil.getLong(p + ((long) k << 4));
      bits |= (((v - lo) ^ Long.MIN_VALUE) <= limit ? 1L : 0L) << k;
    }
    return bits;
  }

  /** The rows whose 16-byte decimal does not fit its low 8 bytes. */
  static long wideDec(long p, int end) {
    long bits = 0;
    for (int k = 0; k < end; k++) {
      long at = p + ((long) k << 4);
      long v = MemoryUtil.getLong(at);
      bits |= (MemoryUtil.getLong(at + 8) != (v >> 63) ? 1L : 0L) << k;
    }
    return bits;
  }

  private static long rangeF8(long p, int end, long lo, long limit) {
    long bits = 0;
    for (int k = 0; k < end; k++) {
      long v = doubleKey(MemoryUtil.getLong(p + ((long) k << 3)));
      bits |= (((v - lo) ^ Long.MIN_VALUE) <= limit ? 1L : 0L) << k;
    }
    return bits;
  }

  /** Two columns of one kind (DECIMALs at one scale): {@code less & lt | equal & eq}, complemented for NE, GE, GT. */
  private static boolean columns(CmpOp op, int kind, FieldVector x, FieldVector y, int n, BitVector out) {
    long lt = switch (op) { case LT, LE, GE, GT -> 1L; default -> 0L; };
    long eq = switch (op) { case EQ, NE, LE, GT -> 1L; default -> 0L; };
    long flip = switch (op) { case NE, GE, GT -> -1L; default -> 0L; };
    long xa = x.getDataBuffer().memoryAddress();
    long ya = y.getDataBuffer().memoryAddress();
    ArrowBuf xv = x.getValidityBuffer();
    ArrowBuf yv = y.getValidityBuffer();
    ArrowBuf ov = out.getValidityBuffer();
    ArrowBuf od = out.getDataBuffer();
    int shift = kind == DEC ? 4 : kind == I4 ? 2 : 3;
    int words = (n + 63) >>> 6;
    for (int w = 0; w < words; w++) {
      int start = w << 6;
      int end = Math.min(64, n - start);
      long valid = word(xv, w, n) & word(yv, w, n);
      long p = xa + ((long) start << shift);
      long q = ya + ((long) start << shift);
      if (kind == DEC && ((wideDec(p, end) | wideDec(q, end)) & valid) != 0) {
        out.zeroVector();
        return false;
      }
      long bits = 0;
      for (int k = 0; k < end; k++) {
        long a;
        long b;
        switch (kind) {
          case I4 -> {
            a = MemoryUtil.getInt(p + ((long) k << 2));
            b = MemoryUtil.getInt(q + ((long) k << 2));
          }
          case F8 -> {
            a = doubleKey(MemoryUtil.getLong(p + ((long) k << 3)));
            b = doubleKey(MemoryUtil.getLong(q + ((long) k << 3)));
          }
          case DEC -> {
            a = MemoryUtil.getLong(p + ((long) k << 4));
            b = MemoryUtil.getLong(q + ((long) k << 4));
          }
          default -> {
            a = MemoryUtil.getLong(p + ((long) k << 3));
            b = MemoryUtil.getLong(q + ((long) k << 3));
          }
        }
        bits |= (((a < b ? 1L : 0L) & lt) | ((a == b ? 1L : 0L) & eq)) << k;
      }
      put(ov, w, valid);
      put(od, w, (bits ^ flip) & valid);
    }
    return true;
  }

  /** Bits {@code [64w, min(64w + 64, n))} of a bitmap (rows past n read as 0). */
  static long word(ArrowBuf buf, int w, int n) {
    int rem = n - (w << 6);
    long mask = rem >= 64 ? -1L : (1L << rem) - 1;
    long at = (long) w << 3;
    if (at + 8 <= buf.capacity()) return MemoryUtil.getLong(buf.memoryAddress() + at) & mask;
    long v = 0;
    int bytes = (Math.min(rem, 64) + 7) >>> 3;
    for (int i = 0; i < bytes; i++) v |= (buf.getByte(at + i) & 0xFFL) << (i << 3);
    return v & mask;
  }

  /** Writes bits {@code [64w, 64w + 64)} of a bitmap whose bits past the batch may be written as 0. */
  static void put(ArrowBuf buf, int w, long bits) {
    long at = (long) w << 3;
    if (at + 8 <= buf.capacity()) {
      MemoryUtil.putLong(buf.memoryAddress() + at, bits);
      return;
    }
    for (long i = at; i < buf.capacity() && i < at + 8; i++) buf.setByte(i, (byte) (bits >>> ((i - at) << 3)));
  }
}
