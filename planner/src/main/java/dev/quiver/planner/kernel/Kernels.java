package dev.quiver.planner.kernel;

import dev.quiver.planner.expr.Expr.ArithOp;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The vectorized kernels: each evaluates its inputs for the whole batch, then loops over the rows
 * writing one result vector. Scalars (literals) are read through the same accessors as vectors.
 */
public final class Kernels {
  private Kernels() {}

  /** How values of a type are compared. */
  public enum Family { LONG, ULONG, DOUBLE, DECIMAL, BYTES, BOOL, NULL }

  public static Family family(ArrowType t) {
    if (SqlTypes.isNull(t)) return Family.NULL;
    if (t instanceof ArrowType.Int i && !i.getIsSigned() && i.getBitWidth() == 64) return Family.ULONG;
    if (SqlTypes.isLongBacked(t)) return Family.LONG;
    if (SqlTypes.isFloat(t)) return Family.DOUBLE;
    if (SqlTypes.isDecimal(t)) return Family.DECIMAL;
    if (SqlTypes.isBoolean(t)) return Family.BOOL;
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.Binary) return Family.BYTES;
    throw QuiverException.unsupported("type " + t);
  }

  /** NaN-aware double comparison: -0.0 equals 0.0, NaN equals NaN and is above every number. */
  public static int compareDouble(double a, double b) {
    if (a == b) return 0;
    return Double.compare(a, b);
  }

  public static int compareBytes(byte[] a, byte[] b) {
    return java.util.Arrays.compareUnsigned(a, b);
  }

  /** Compares two non-null values of one family. */
  static int compare(Family f, ColumnValues a, int i, ColumnValues b, int j) {
    return switch (f) {
      case LONG -> Long.compare(a.getLong(i), b.getLong(j));
      case ULONG -> Long.compareUnsigned(a.getLong(i), b.getLong(j));
      case DOUBLE -> compareDouble(a.getDouble(i), b.getDouble(j));
      case DECIMAL -> a.getDecimal(i).compareTo(b.getDecimal(j));
      case BYTES -> compareBytes(a.getBytes(i), b.getBytes(j));
      case BOOL -> Boolean.compare(a.getBool(i), b.getBool(j));
      case NULL -> 0;
    };
  }

  private static boolean test(CmpOp op, int c) {
    return switch (op) {
      case EQ -> c == 0; case NE -> c != 0; case LT -> c < 0; case LE -> c <= 0; case GT -> c > 0; case GE -> c >= 0;
    };
  }

  private static BitVector newBool(BufferAllocator alloc, int n) {
    return (BitVector) Vectors.create("", SqlTypes.BOOLEAN, alloc, n);
  }

  private static ColumnValues done(FieldVector v, int n) {
    v.setValueCount(n);
    return new VectorValues(v, true);
  }

  public static ColumnValues compare(VectorSchemaRoot batch, BufferAllocator alloc, CmpOp op, Family f,
      PhysicalExpr left, PhysicalExpr right) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      BitVector out = newBool(alloc, n);
      try {
        if (compareFast(op, f, a, b, n, out)) return done(out, n);
        if (f == Family.DECIMAL && smallDecimal(a.type()) && a.type().equals(b.type())) {
          for (int i = 0; i < n; i++) {
            if (!a.isNull(i) && !b.isNull(i)) out.set(i, test(op, Long.compare(a.getUnscaledLong(i), b.getUnscaledLong(i))) ? 1 : 0);
          }
        } else if (f == Family.LONG && b instanceof ScalarValues s && s.value() != null) {
          long k = (Long) s.value();
          for (int i = 0; i < n; i++) {
            if (!a.isNull(i)) out.set(i, test(op, Long.compare(a.getLong(i), k)) ? 1 : 0);
          }
        } else {
          for (int i = 0; i < n; i++) {
            if (!a.isNull(i) && !b.isNull(i)) out.set(i, test(op, compare(f, a, i, b, i)) ? 1 : 0);
          }
        }
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return done(out, n);
    }
  }

  /**
   * Comparison over whole primitive arrays (LONG family; DECIMALs whose unscaled values fit a long, at
   * a common scale), the result bits written a byte at a time. False when the fast path does not apply.
   */
  private static boolean compareFast(CmpOp op, Family f, ColumnValues a, ColumnValues b, int n, BitVector out) {
    long[] x;
    long[] y;
    if (f == Family.LONG) {
      x = BatchValues.longs(a, n);
      y = BatchValues.longs(b, n);
    } else if (f == Family.DECIMAL && a.type() instanceof ArrowType.Decimal da && b.type() instanceof ArrowType.Decimal db) {
      x = BatchValues.unscaled(a, n);
      y = x == null ? null : BatchValues.unscaled(b, n);
      if (y == null) return false;
      int s = Math.max(da.getScale(), db.getScale());
      if (s - da.getScale() >= POW10.length || s - db.getScale() >= POW10.length) return false;
      try {
        rescale(x, POW10[s - da.getScale()]);
        rescale(y, POW10[s - db.getScale()]);
      } catch (ArithmeticException overflow) {
        return false;
      }
    } else {
      return false;
    }
    org.apache.arrow.memory.ArrowBuf data = out.getDataBuffer();
    int bytes = (n + 7) >>> 3;
    for (int byteIndex = 0; byteIndex < bytes; byteIndex++) {
      int bits = 0;
      int base = byteIndex << 3;
      int end = Math.min(8, n - base);
      for (int j = 0; j < end; j++) {
        if (test(op, Long.compare(x[base + j], y[base + j]))) bits |= 1 << j;
      }
      data.setByte(byteIndex, bits);
    }
    org.apache.arrow.memory.ArrowBuf validity = out.getValidityBuffer();
    if (!BatchValues.anyNull(a) && !BatchValues.anyNull(b)) {
      BatchValues.setAllValid(validity, n);
    } else {
      for (int i = 0; i < n; i++) if (!a.isNull(i) && !b.isNull(i)) org.apache.arrow.vector.BitVectorHelper.setBit(validity, i);
    }
    return true;
  }

  private static void rescale(long[] values, long factor) {
    if (factor == 1) return;
    for (int i = 0; i < values.length; i++) values[i] = Math.multiplyExact(values[i], factor);
  }

  /** Three-valued AND / OR. */
  public static ColumnValues logical(VectorSchemaRoot batch, BufferAllocator alloc, boolean and,
      PhysicalExpr left, PhysicalExpr right) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      BitVector out = newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        boolean an = a.isNull(i);
        boolean bn = b.isNull(i);
        boolean av = !an && a.getBool(i);
        boolean bv = !bn && b.getBool(i);
        if (and) {
          if ((!an && !av) || (!bn && !bv)) out.set(i, 0);
          else if (!an && !bn) out.set(i, 1);
        } else {
          if (av || bv) out.set(i, 1);
          else if (!an && !bn) out.set(i, 0);
        }
      }
      return done(out, n);
    }
  }

  public static ColumnValues not(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      BitVector out = newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        if (!a.isNull(i)) out.set(i, a.getBool(i) ? 0 : 1);
      }
      return done(out, n);
    }
  }

  public static ColumnValues isNull(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in, boolean negated) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      BitVector out = newBool(alloc, n);
      for (int i = 0; i < n; i++) out.set(i, a.isNull(i) != negated ? 1 : 0);
      return done(out, n);
    }
  }

  /** {@code value [NOT] IN (items)}: TRUE on a match, else NULL if anything was NULL, else FALSE. */
  /** IN lists with at least this many constant items are probed in a hash set. */
  static final int IN_SET_ITEMS = 8;

  /**
   * The constant items of an IN list as a hash set of keys equal exactly when {@link #compare} says 0 (NaN
   * meets NaN, 0.0 meets -0.0, 1.50 meets 1.5), read from the items' values on the first batch.
   */
  static final class InSet {
    private final Family family;
    private final List<PhysicalExpr> items;
    private java.util.Set<Object> keys;
    private boolean anyNull;

    InSet(Family family, List<PhysicalExpr> items) {
      this.family = family;
      this.items = items;
    }

    synchronized java.util.Set<Object> keys(VectorSchemaRoot batch, BufferAllocator alloc) {
      if (keys == null) {
        java.util.Set<Object> k = new java.util.HashSet<>(items.size() * 2);
        for (PhysicalExpr item : items) {
          try (ColumnValues v = item.eval(batch, alloc)) {
            if (v.isNull(0)) anyNull = true;
            else k.add(key(family, v, 0));
          }
        }
        keys = k;
      }
      return keys;
    }

    static Object key(Family f, ColumnValues v, int i) {
      return switch (f) {
        case LONG, ULONG -> v.getLong(i);
        case DOUBLE -> {
          double d = v.getDouble(i);
          yield d == 0.0 ? 0.0 : d; // -0.0 is 0.0; every NaN boxes to the one Double.NaN key
        }
        case DECIMAL -> {
          java.math.BigDecimal b = v.getDecimal(i);
          yield b.signum() == 0 ? java.math.BigDecimal.ZERO : b.stripTrailingZeros();
        }
        case BYTES -> java.nio.ByteBuffer.wrap(v.getBytes(i));
        case BOOL -> v.getBool(i);
        case NULL -> throw new IllegalStateException("no key for NULL");
      };
    }
  }

  /** {@code value [NOT] IN set}: as {@link #in(VectorSchemaRoot, BufferAllocator, Family, PhysicalExpr, List, boolean)}. */
  static ColumnValues in(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr value, InSet set, boolean negated) {
    int n = batch.getRowCount();
    try (ColumnValues v = value.eval(batch, alloc)) {
      java.util.Set<Object> keys = n == 0 ? java.util.Set.of() : set.keys(batch, alloc);
      BitVector out = newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        if (v.isNull(i)) continue;
        if (keys.contains(InSet.key(set.family, v, i))) out.set(i, negated ? 0 : 1);
        else if (!set.anyNull) out.set(i, negated ? 1 : 0);
      }
      return done(out, n);
    }
  }

  public static ColumnValues in(VectorSchemaRoot batch, BufferAllocator alloc, Family f, PhysicalExpr value,
      List<PhysicalExpr> items, boolean negated) {
    int n = batch.getRowCount();
    List<ColumnValues> evaluated = new ArrayList<>(items.size());
    try (ColumnValues v = value.eval(batch, alloc)) {
      for (PhysicalExpr item : items) evaluated.add(item.eval(batch, alloc));
      BitVector out = newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        if (evaluated.isEmpty()) {
          out.set(i, negated ? 1 : 0); // x IN () is FALSE even for a NULL x
          continue;
        }
        if (v.isNull(i)) continue;
        boolean match = false;
        boolean sawNull = false;
        for (ColumnValues item : evaluated) {
          if (item.isNull(i)) {
            sawNull = true;
          } else if (compare(f, v, i, item, i) == 0) {
            match = true;
            break;
          }
        }
        if (match) out.set(i, negated ? 0 : 1);
        else if (!sawNull) out.set(i, negated ? 1 : 0);
      }
      return done(out, n);
    } finally {
      evaluated.forEach(ColumnValues::close);
    }
  }

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
      return done(out, n);
    }
  }

  public static ColumnValues negate(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in, ArrowType type) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      FieldVector out = Vectors.create("", type, alloc, n);
      try {
        for (int i = 0; i < n; i++) {
          if (a.isNull(i)) continue;
          switch (family(type)) {
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
      return done(out, n);
    }
  }

  public static ColumnValues arithmetic(VectorSchemaRoot batch, BufferAllocator alloc, ArithOp op, PhysicalExpr left,
      PhysicalExpr right, ArrowType type) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      FieldVector out = Vectors.create("", type, alloc, n);
      try {
        Family f = family(type);
        boolean fast = f == Family.DECIMAL && a.type() instanceof ArrowType.Decimal && b.type() instanceof ArrowType.Decimal;
        int scaleA = a.type() instanceof ArrowType.Decimal d ? d.getScale() : 0;
        int scaleB = b.type() instanceof ArrowType.Decimal d ? d.getScale() : 0;
        if (fast && decimalFast(op, a, scaleA, b, scaleB, (ArrowType.Decimal) type, n, out)) return done(out, n);
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
      return done(out, n);
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

  /** Whether a type is a DECIMAL whose unscaled values always fit a long. */
  public static boolean smallDecimal(ArrowType t) {
    return t instanceof ArrowType.Decimal d && d.getPrecision() <= 18;
  }

  private static final long[] POW10 = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L,
      1_000_000_000L, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L,
      100_000_000_000_000L, 1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L,
      1_000_000_000_000_000_000L};

  /**
   * Decimal +, -, * on unscaled longs; throws ArithmeticException whenever the exact path does not apply
   * (overflow, division, a scale it does not produce), so the caller falls back to BigDecimal.
   */
  static long decimalLongOp(ArithOp op, long a, int sa, long b, int sb, ArrowType.Decimal type) {
    int s = type.getScale();
    long r = switch (op) {
      case ADD, SUBTRACT -> {
        if (s < sa || s < sb || s - sa >= POW10.length || s - sb >= POW10.length) throw new ArithmeticException();
        long x = Math.multiplyExact(a, POW10[s - sa]);
        long y = Math.multiplyExact(b, POW10[s - sb]);
        yield op == ArithOp.ADD ? Math.addExact(x, y) : Math.subtractExact(x, y);
      }
      case MULTIPLY -> {
        if (s != sa + sb) throw new ArithmeticException();
        yield Math.multiplyExact(a, b);
      }
      default -> throw new ArithmeticException();
    };
    if (type.getPrecision() <= 18 && Math.abs(r) >= POW10[type.getPrecision()]) throw new ArithmeticException();
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

  /** Compares two non-null physical-form values of one family. */
  public static int compareObjects(Family f, Object a, Object b) {
    return switch (f) {
      case LONG -> Long.compare((Long) a, (Long) b);
      case ULONG -> Long.compareUnsigned((Long) a, (Long) b);
      case DOUBLE -> compareDouble((Double) a, (Double) b);
      case DECIMAL -> ((BigDecimal) a).compareTo((BigDecimal) b);
      case BYTES -> a instanceof String s
          ? compareBytes(s.getBytes(java.nio.charset.StandardCharsets.UTF_8),
              ((String) b).getBytes(java.nio.charset.StandardCharsets.UTF_8))
          : compareBytes((byte[]) a, (byte[]) b);
      case BOOL -> Boolean.compare((Boolean) a, (Boolean) b);
      case NULL -> 0;
    };
  }

  /** {@code IS [NOT] DISTINCT FROM}: NULL equals NULL, never NULL. */
  public static ColumnValues distinctFrom(VectorSchemaRoot batch, BufferAllocator alloc, Family f, PhysicalExpr left,
      PhysicalExpr right, boolean not) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      BitVector out = newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        boolean an = a.isNull(i);
        boolean bn = b.isNull(i);
        boolean same = an || bn ? an == bn : compare(f, a, i, b, i) == 0;
        out.set(i, same == not ? 1 : 0);
      }
      return done(out, n);
    }
  }

  /** The regular expression of a LIKE pattern: {@code %} any run, {@code _} one character, backslash escapes. */
  public static String likeToRegex(String pattern) {
    StringBuilder re = new StringBuilder("^");
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) quote(re, pattern.charAt(++i));
      else if (c == '%') re.append("(?s:.*)");
      else if (c == '_') re.append("(?s:.)");
      else quote(re, c);
    }
    return re.append('$').toString();
  }

  /** Appends {@code c} matching itself: a metacharacter escaped
   * (quoting every character as \\Q…\\E took five times the room, and long patterns were refused). */
  private static void quote(StringBuilder re, char c) {
    if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) re.append('\\');
    re.append(c);
  }

  public static ColumnValues like(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr input, PhysicalExpr pattern,
      boolean caseInsensitive, boolean negated) {
    int n = batch.getRowCount();
    try (ColumnValues a = input.eval(batch, alloc); ColumnValues p = pattern.eval(batch, alloc)) {
      BitVector out = newBool(alloc, n);
      String lastPattern = null;
      com.google.re2j.Pattern compiled = null;
      LikeMatcher simple = null;
      try {
        for (int i = 0; i < n; i++) {
          if (a.isNull(i) || p.isNull(i)) continue;
          String pat = (String) p.getObject(i);
          if (!pat.equals(lastPattern)) {
            simple = caseInsensitive ? null : LikeMatcher.of(pat);
            if (simple == null) {
              String re = likeToRegex(pat);
              compiled = Functions.compile(caseInsensitive ? "(?i)" + re : re); // may refuse the pattern
            }
            lastPattern = pat;
          }
          boolean m = simple != null ? simple.matches(a.getBytes(i)) : compiled.matcher((String) a.getObject(i)).matches();
          out.set(i, m != negated ? 1 : 0);
        }
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return done(out, n);
    }
  }

  public static ColumnValues call(VectorSchemaRoot batch, BufferAllocator alloc, Functions.Def def,
      List<PhysicalExpr> args, ArrowType[] types, ArrowType resultType, EvalContext ctx) {
    int n = batch.getRowCount();
    List<ColumnValues> values = new ArrayList<>(args.size());
    try {
      for (PhysicalExpr a : args) values.add(a.eval(batch, alloc));
      FieldVector out = Vectors.create("", resultType, alloc, n);
      try {
        Object[] row = new Object[args.size()];
        for (int i = 0; i < n; i++) {
          boolean anyNull = false;
          for (int a = 0; a < row.length; a++) {
            row[a] = values.get(a).getObject(i);
            anyNull |= row[a] == null;
          }
          if (anyNull && def.strict()) continue;
          Vectors.set(out, i, def.impl().apply(row, types, resultType, ctx));
        }
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return done(out, n);
    } finally {
      values.forEach(ColumnValues::close);
    }
  }

  /** CASE: the first WHEN whose condition is TRUE gives the row's result; its branch alone is evaluated for it. */
  public static ColumnValues caseWhen(VectorSchemaRoot batch, BufferAllocator alloc, List<PhysicalExpr> conditions,
      List<PhysicalExpr> results, PhysicalExpr otherwise, ArrowType type) {
    int n = batch.getRowCount();
    FieldVector out = Vectors.create("", type, alloc, n);
    boolean[] decided = new boolean[n];
    // branches decide rows out of order; variable-width vectors must be written in row order
    Object[] values = new Object[n];
    try {
      for (int w = 0; w <= conditions.size(); w++) {
        int[] rows = new int[n];
        int count = 0;
        if (w < conditions.size()) {
          try (ColumnValues c = conditions.get(w).eval(batch, alloc)) {
            for (int i = 0; i < n; i++) {
              if (!decided[i] && !c.isNull(i) && c.getBool(i)) rows[count++] = i;
            }
          }
        } else {
          for (int i = 0; i < n; i++) if (!decided[i]) rows[count++] = i;
        }
        if (count == 0) continue;
        // evaluate the branch only on the rows that take it, so errors of other branches never surface
        try (VectorSchemaRoot sub = count == n ? null : takeRows(batch, rows, count, alloc)) {
          VectorSchemaRoot src = sub == null ? batch : sub;
          try (ColumnValues r = (w < conditions.size() ? results.get(w) : otherwise).eval(src, alloc)) {
            for (int k = 0; k < count; k++) {
              values[rows[k]] = r.getObject(k);
              decided[rows[k]] = true;
            }
          }
        }
      }
      for (int i = 0; i < n; i++) Vectors.set(out, i, values[i]);
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
    return done(out, n);
  }

  private static VectorSchemaRoot takeRows(VectorSchemaRoot batch, int[] rows, int count, BufferAllocator alloc) {
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector src : batch.getFieldVectors()) {
      FieldVector dst = src.getField().createVector(alloc);
      vectors.add(dst);
      dst.setInitialCapacity(count);
      dst.allocateNew();
      for (int i = 0; i < count; i++) dst.copyFromSafe(rows[i], i, src);
      dst.setValueCount(count);
    }
    VectorSchemaRoot r = new VectorSchemaRoot(batch.getSchema().getFields(), vectors, count);
    r.setRowCount(count);
    return r;
  }
}
