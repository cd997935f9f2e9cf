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
        if (fast && decimalFast(op, a, scaleA, b, scaleB, (ArrowType.Decimal) type, n, out)) return Kernels.done(out, n);
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

  /**
   * Decimal +, -, * over whole arrays of unscaled longs, written straight into the result's buffers;
   * a row whose result does not fit takes the exact BigDecimal path. False when an input does not fit.
   */
  private static boolean decimalFast(ArithOp op, ColumnValues a, int scaleA, ColumnValues b, int scaleB,
      ArrowType.Decimal type, int n, FieldVector out) {
    if (op != ArithOp.ADD && op != ArithOp.SUBTRACT && op != ArithOp.MULTIPLY) return false;
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
