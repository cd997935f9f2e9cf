package dev.quiver.planner.kernel;

import dev.quiver.planner.expr.Expr.ArithOp;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import dev.quiver.planner.kernel.Kernels.Family;
/** The arithmetic kernels: CAST, unary minus and the binary operators, with exact overflow and division checks. */
final class ArithmeticKernels {
  private ArithmeticKernels() {}

  public static ColumnValues cast(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in, ArrowType from,
      ArrowType to, boolean safe, EvalContext ctx) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      FieldVector out = Vectors.create("", to, alloc, n);
      try {
        // integer to integer or to double: no object per row; a value out of range takes the general path (its error)
        boolean integers = from instanceof ArrowType.Int fi && (fi.getIsSigned() || fi.getBitWidth() < 64);
        if (integers && to instanceof ArrowType.Int ti && (ti.getIsSigned() || ti.getBitWidth() < 64)) {
          for (int i = 0; i < n; i++) {
            if (a.isNull(i)) continue;
            long v = a.getLong(i);
            if (Casts.fits(v, ti)) Vectors.setLong(out, i, v);
            else Vectors.set(out, i, castOne(v, from, to, safe, ctx));
          }
          return Kernels.done(out, n);
        }
        if (integers && to instanceof ArrowType.FloatingPoint fp
            && fp.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE) {
          org.apache.arrow.vector.Float8Vector d = (org.apache.arrow.vector.Float8Vector) out;
          if (a.vector() != null && !BatchValues.anyNull(a)
              && dev.quiver.common.ArrowBulk.longsToDoubles(a.vector(), d, n)) {
            return Kernels.done(out, n); // buffer to buffer: no array, no checked set a row
          } else if (a.vector() != null && !BatchValues.anyNull(a)) {
            long[] xs = BatchValues.longs(a, n); // the column's integers at once, then a loop without a box a row
            for (int i = 0; i < n; i++) d.set(i, (double) xs[i]);
          } else {
            for (int i = 0; i < n; i++) if (!a.isNull(i)) d.set(i, (double) a.getLong(i));
          }
          return Kernels.done(out, n);
        }
        for (int i = 0; i < n; i++) {
          Object v = a.getObject(i);
          if (v == null) continue;
          Object r;
          try {
            r = Casts.cast(v, from, to, ctx.zone());
          } catch (QuiverException e) {
            if (!safe || e.code() != ErrorCode.DATA_ERROR) throw e;
            r = null;
          }
          Vectors.set(out, i, r);
        }
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return Kernels.done(out, n);
    }
  }

  /** One value cast the general way: null where a safe cast (TRY_CAST) fails on the data. */
  private static Object castOne(Object v, ArrowType from, ArrowType to, boolean safe, EvalContext ctx) {
    try {
      return Casts.cast(v, from, to, ctx.zone());
    } catch (QuiverException e) {
      if (!safe || e.code() != ErrorCode.DATA_ERROR) throw e;
      return null;
    }
  }

  public static ColumnValues negate(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in, ArrowType type) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      FieldVector out = Vectors.create("", type, alloc, n);
      try {
        for (int i = 0; i < n; i++) {
          if (a.isNull(i)) continue;
          switch (Kernels.family(type)) {
            case LONG -> Vectors.setLong(out, i, checkRange(Math.negateExact(a.getLong(i)), type));
            case DOUBLE -> Vectors.set(out, i, -a.getDouble(i));
            case DECIMAL -> Vectors.set(out, i, a.getDecimal(i).negate());
            default -> throw QuiverException.internal("negate " + type);
          }
        }
      } catch (ArithmeticException e) {
        out.close();
        throw overflow(type);
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return Kernels.done(out, n);
    }
  }

  public static ColumnValues arithmetic(VectorSchemaRoot batch, BufferAllocator alloc, ArithOp op, PhysicalExpr left,
      PhysicalExpr right, ArrowType type) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      FieldVector out = Vectors.create("", type, alloc, n);
      try {
        Family f = Kernels.family(type);
        boolean fast = f == Family.DECIMAL && a.type() instanceof ArrowType.Decimal && b.type() instanceof ArrowType.Decimal;
        int scaleA = a.type() instanceof ArrowType.Decimal d ? d.getScale() : 0;
        int scaleB = b.type() instanceof ArrowType.Decimal d ? d.getScale() : 0;
        if (fast && decimalFast(op, a, scaleA, b, scaleB, (ArrowType.Decimal) type, n, out, alloc)) return Kernels.done(out, n);
        for (int i = 0; i < n; i++) {
          if (a.isNull(i) || b.isNull(i)) continue;
          switch (f) {
            case LONG -> Vectors.setLong(out, i, checkRange(longOp(op, a.getLong(i), b.getLong(i)), type));
            case DOUBLE -> Vectors.set(out, i, doubleOp(op, a.getDouble(i), b.getDouble(i), type));
            case DECIMAL -> {
              if (fast) {
                try {
                  ((org.apache.arrow.vector.DecimalVector) out).set(i, decimalLongOp(op, a.getUnscaledLong(i), scaleA,
                      b.getUnscaledLong(i), scaleB, (ArrowType.Decimal) type));
                  continue;
                } catch (ArithmeticException overflowOfTheFastPath) {
                  // fall back to exact BigDecimal arithmetic for this row
                }
              }
              Vectors.set(out, i, decimalOp(op, decimalOf(a, i), decimalOf(b, i), (ArrowType.Decimal) type));
            }
            default -> throw QuiverException.internal("arithmetic on " + type);
          }
        }
      } catch (ArithmeticException e) {
        out.close();
        throw overflow(type);
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return Kernels.done(out, n);
    }
  }

  /** Off in tests, to compare the in-place decimal path against the row-by-row one. */
  static volatile boolean inPlace = org.apache.arrow.memory.util.MemoryUtil.LITTLE_ENDIAN;

  /**
   * Decimal +, -, * on unscaled longs read in place from the inputs' 16-byte slots (a literal: one long),
   * written straight into the result's buffers, 64 rows (one validity word) at a time. Overflow is checked
   * without exceptions (Math.multiplyHigh for products and rescaling, sign tests for sums, the result
   * type's precision); a row whose input or result does not fit a long takes the exact BigDecimal path.
   * False when the inputs are not both DECIMALs of a kind read here.
   */
  private static boolean decimalFast(ArithOp op, ColumnValues a, int scaleA, ColumnValues b, int scaleB,
      ArrowType.Decimal type, int n, FieldVector out, BufferAllocator alloc) {
    if (op != ArithOp.ADD && op != ArithOp.SUBTRACT && op != ArithOp.MULTIPLY) return false;
    int s = type.getScale();
    long fa = 1;
    long fb = 1;
    if (op == ArithOp.MULTIPLY) {
      if (s != scaleA + scaleB) return false;
    } else {
      if (s < scaleA || s < scaleB || s - scaleA >= Kernels.POW10.length || s - scaleB >= Kernels.POW10.length) return false;
      fa = Kernels.POW10[s - scaleA];
      fb = Kernels.POW10[s - scaleB];
    }
    if (inPlace) {
      Boolean done = decimalInPlace(op, a, fa, b, fb, type, n, out, alloc);
      if (done != null) return done;
    }
    long[] x = BatchValues.unscaled(a, n);
    long[] y = x == null ? null : BatchValues.unscaled(b, n);
    if (y == null) return false;
    boolean nulls = BatchValues.anyNull(a) || BatchValues.anyNull(b);
    org.apache.arrow.memory.ArrowBuf validity = out.getValidityBuffer();
    // results staged in a Java array and copied at once; rows whose result leaves a long are redone exactly
    byte[] staged = new byte[n * 16];
    int[] exact = null;
    int exactCount = 0;
    for (int i = 0; i < n; i++) {
      if (nulls && (a.isNull(i) || b.isNull(i))) continue;
      long r;
      try {
        r = decimalLongOp(op, x[i], scaleA, y[i], scaleB, type);
      } catch (ArithmeticException overflowOfTheFastPath) {
        if (exact == null) exact = new int[n];
        exact[exactCount++] = i;
        continue;
      }
      dev.quiver.common.ArrowBulk.LONGS.set(staged, i << 4, r);
      dev.quiver.common.ArrowBulk.LONGS.set(staged, (i << 4) + 8, r >> 63);
      if (nulls) org.apache.arrow.vector.BitVectorHelper.setBit(validity, i);
    }
    out.getDataBuffer().setBytes(0, staged, 0, staged.length);
    if (!nulls) BatchValues.setAllValid(validity, n);
    for (int k = 0; k < exactCount; k++) {
      int i = exact[k];
      Vectors.set(out, i, decimalOp(op, decimalOf(a, i), decimalOf(b, i), type));
    }
    return true;
  }

  /** {@link #decimalFast} in place; null when an input is neither a DecimalVector nor a literal. */
  private static Boolean decimalInPlace(ArithOp op, ColumnValues a, long fa, ColumnValues b, long fb,
      ArrowType.Decimal type, int n, FieldVector out, BufferAllocator alloc) {
    FieldVector va = a.vector();
    FieldVector vb = b.vector();
    if (va != null && !(va instanceof org.apache.arrow.vector.DecimalVector)) return null;
    if (vb != null && !(vb instanceof org.apache.arrow.vector.DecimalVector)) return null;
    if (!(out instanceof org.apache.arrow.vector.DecimalVector)) return null;
    long bytes = (long) n * 16;
    if (va != null && (va.getDataBuffer().capacity() < bytes || va.getValueCount() < n)) return null;
    if (vb != null && (vb.getDataBuffer().capacity() < bytes || vb.getValueCount() < n)) return null;
    if (out.getDataBuffer().capacity() < bytes) return null;
    long ka = 0;
    long kb = 0;
    try {
      if (va == null) {
        if (a.isNull(0)) return true; // NULL for every row: out is all NULL already
        ka = a.getUnscaledLong(0);
      }
      if (vb == null) {
        if (b.isNull(0)) return true;
        kb = b.getUnscaledLong(0);
      }
    } catch (ArithmeticException wide) {
      return null;
    }
    int[] exact = null;
    int exactCount = 0;
    // a literal is read from one 16-byte slot for every row: one loop for every shape
    try (org.apache.arrow.memory.ArrowBuf literals = alloc.buffer(32)) {
      literals.setLong(0, ka);
      literals.setLong(8, ka >> 63);
      literals.setLong(16, kb);
      literals.setLong(24, kb >> 63);
      long pa = va == null ? literals.memoryAddress() : va.getDataBuffer().memoryAddress();
      long pb = vb == null ? literals.memoryAddress() + 16 : vb.getDataBuffer().memoryAddress();
      // the slot of row i is at (i << 4) & mask: mask 0 for a literal
      long maskA = va == null ? 0L : -1L;
      long maskB = vb == null ? 0L : -1L;
      long po = out.getDataBuffer().memoryAddress();
      long bound = type.getPrecision() <= 18 ? Kernels.POW10[type.getPrecision()] : Long.MAX_VALUE;
      org.apache.arrow.memory.ArrowBuf ov = out.getValidityBuffer();
      boolean subtract = op == ArithOp.SUBTRACT;
      int words = (n + 63) >>> 6;
      for (int w = 0; w < words; w++) {
        int start = w << 6;
        int end = Math.min(64, n - start);
        long valid = (va == null ? -1L : CompareKernels.word(va.getValidityBuffer(), w, n))
            & (vb == null ? -1L : CompareKernels.word(vb.getValidityBuffer(), w, n));
        if (end < 64) valid &= (1L << end) - 1;
        long bad = switch (op) {
          case MULTIPLY -> multiplyWord(pa, maskA, pb, maskB, po, start, end, bound);
          default -> addWord(pa, maskA, fa, pb, maskB, fb, subtract, po, start, end, bound);
        };
        CompareKernels.put(ov, w, valid);
        bad &= valid;
        while (bad != 0) {
          if (exact == null) exact = new int[n];
          exact[exactCount++] = start + Long.numberOfTrailingZeros(bad);
          bad &= bad - 1;
        }
      }
    }
    for (int k = 0; k < exactCount; k++) {
      int i = exact[k];
      Vectors.set(out, i, decimalOp(op, decimalOf(a, i), decimalOf(b, i), type));
    }
    return true;
  }

  /**
   * Products of rows {@code [start, start + end)} written as 128-bit values; the rows whose inputs or
   * product do not fit a long, or whose product reaches {@code bound}, as bits (they are redone exactly).
   */
  private static long multiplyWord(long pa, long maskA, long pb, long maskB, long po, int start, int end, long bound) {
    long bad = 0;
    for (int k = 0; k < end; k++) {
      long i = (long) (start + k) << 4;
      long at = pa + (i & maskA);
      long bt = pb + (i & maskB);
      long x = org.apache.arrow.memory.util.MemoryUtil.getLong(at);
      long y = org.apache.arrow.memory.util.MemoryUtil.getLong(bt);
      long xh = org.apache.arrow.memory.util.MemoryUtil.getLong(at + 8);
      long yh = org.apache.arrow.memory.util.MemoryUtil.getLong(bt + 8);
      long r = x * y;
      boolean ok = xh == (x >> 63) & yh == (y >> 63) & Math.multiplyHigh(x, y) == (r >> 63) & r < bound & r > -bound;
      bad |= (ok ? 0L : 1L) << k;
      org.apache.arrow.memory.util.MemoryUtil.putLong(po + i, r);
      org.apache.arrow.memory.util.MemoryUtil.putLong(po + i + 8, r >> 63);
    }
    return bad;
  }

  /** Sums (differences) of rows at the result's scale, as {@link #multiplyWord}; {@code fa}, {@code fb} rescale. */
  private static long addWord(long pa, long maskA, long fa, long pb, long maskB, long fb, boolean subtract, long po,
      int start, int end, long bound) {
    long bad = 0;
    for (int k = 0; k < end; k++) {
      long i = (long) (start + k) << 4;
      long at = pa + (i & maskA);
      long bt = pb + (i & maskB);
      long x = org.apache.arrow.memory.util.MemoryUtil.getLong(at);
      long y = org.apache.arrow.memory.util.MemoryUtil.getLong(bt);
      long xh = org.apache.arrow.memory.util.MemoryUtil.getLong(at + 8);
      long yh = org.apache.arrow.memory.util.MemoryUtil.getLong(bt + 8);
      long sx = x * fa;
      long sy = y * fb;
      boolean ok = xh == (x >> 63) & yh == (y >> 63)
          & Math.multiplyHigh(x, fa) == (sx >> 63) & Math.multiplyHigh(y, fb) == (sy >> 63);
      if (subtract) {
        ok &= sy != Long.MIN_VALUE;
        sy = -sy;
      }
      long r = sx + sy;
      ok &= ((sx ^ r) & (sy ^ r)) >= 0 & r < bound & r > -bound;
      bad |= (ok ? 0L : 1L) << k;
      org.apache.arrow.memory.util.MemoryUtil.putLong(po + i, r);
      org.apache.arrow.memory.util.MemoryUtil.putLong(po + i + 8, r >> 63);
    }
    return bad;
  }

  /**
   * Decimal +, -, * on unscaled longs; throws ArithmeticException whenever the exact path does not apply
   * (overflow, division, a scale it does not produce), so the caller falls back to BigDecimal.
   */
  static long decimalLongOp(ArithOp op, long a, int sa, long b, int sb, ArrowType.Decimal type) {
    int s = type.getScale();
    long r = switch (op) {
      case ADD, SUBTRACT -> {
        if (s < sa || s < sb || s - sa >= Kernels.POW10.length || s - sb >= Kernels.POW10.length) throw new ArithmeticException();
        long x = Math.multiplyExact(a, Kernels.POW10[s - sa]);
        long y = Math.multiplyExact(b, Kernels.POW10[s - sb]);
        yield op == ArithOp.ADD ? Math.addExact(x, y) : Math.subtractExact(x, y);
      }
      case MULTIPLY -> {
        if (s != sa + sb) throw new ArithmeticException();
        yield Math.multiplyExact(a, b);
      }
      default -> throw new ArithmeticException();
    };
    if (type.getPrecision() <= 18 && Math.abs(r) >= Kernels.POW10[type.getPrecision()]) throw new ArithmeticException();
    return r;
  }

  private static BigDecimal decimalOf(ColumnValues v, int i) {
    return Casts.exact(v.getObject(i), v.type());
  }

  private static QuiverException overflow(ArrowType type) {
    return new QuiverException(ErrorCode.DATA_ERROR, SqlTypes.sqlName(type) + " out of range (overflow)");
  }

  private static QuiverException divisionByZero() {
    return new QuiverException(ErrorCode.DATA_ERROR, "division by zero");
  }

  private static long checkRange(long v, ArrowType type) {
    if (type instanceof ArrowType.Int i && !Casts.fits(v, i)) throw new ArithmeticException();
    return v;
  }

  private static long longOp(ArithOp op, long a, long b) {
    return switch (op) {
      case ADD -> Math.addExact(a, b);
      case SUBTRACT -> Math.subtractExact(a, b);
      case MULTIPLY -> Math.multiplyExact(a, b);
      case DIVIDE -> {
        if (b == 0) throw divisionByZero();
        if (a == Long.MIN_VALUE && b == -1) throw new ArithmeticException();
        yield a / b;
      }
      case MODULO -> {
        if (b == 0) throw divisionByZero();
        yield b == -1 ? 0 : a % b;
      }
    };
  }

  private static double doubleOp(ArithOp op, double a, double b, ArrowType type) {
    double r = switch (op) {
      case ADD -> a + b;
      case SUBTRACT -> a - b;
      case MULTIPLY -> a * b;
      case DIVIDE -> {
        if (b == 0) throw divisionByZero();
        yield a / b;
      }
      case MODULO -> {
        if (b == 0) throw divisionByZero();
        yield a % b;
      }
    };
    return type.equals(SqlTypes.REAL) ? (double) (float) r : r;
  }

  private static BigDecimal decimalOp(ArithOp op, BigDecimal a, BigDecimal b, ArrowType.Decimal type) {
    BigDecimal r = switch (op) {
      case ADD -> a.add(b);
      case SUBTRACT -> a.subtract(b);
      case MULTIPLY -> a.multiply(b);
      case DIVIDE -> {
        if (b.signum() == 0) throw divisionByZero();
        yield a.divide(b, new MathContext(SqlTypes.MAX_DECIMAL_PRECISION + 2, RoundingMode.HALF_UP));
      }
      case MODULO -> {
        if (b.signum() == 0) throw divisionByZero();
        yield a.remainder(b);
      }
    };
    r = r.setScale(type.getScale(), RoundingMode.HALF_UP);
    if (r.precision() - r.scale() > type.getPrecision() - type.getScale() && r.signum() != 0) {
      throw new ArithmeticException();
    }
    return r;
  }
}
