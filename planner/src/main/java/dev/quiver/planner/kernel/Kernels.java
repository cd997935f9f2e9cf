package dev.quiver.planner.kernel;

import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
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
 * This class holds the comparison kernels (comparison, IN, IS DISTINCT FROM) and the type families they
 * compare by; {@link ArithmeticKernels} computes, {@link LogicKernels} combines booleans and evaluates CASE,
 * {@link LikeKernels} matches patterns, and {@link Functions#call} evaluates a function call.
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

  static BitVector newBool(BufferAllocator alloc, int n) {
    return (BitVector) Vectors.create("", SqlTypes.BOOLEAN, alloc, n);
  }

  static ColumnValues done(FieldVector v, int n) {
    v.setValueCount(n);
    return new VectorValues(v, true);
  }

  public static ColumnValues compare(VectorSchemaRoot batch, BufferAllocator alloc, CmpOp op, Family f,
      PhysicalExpr left, PhysicalExpr right) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      BitVector out = newBool(alloc, n);
      try {
        if (CompareKernels.compare(op, f, a, b, n, out)) return done(out, n);
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

  /**
   * The constant items of a string IN list, as a {@link BytesHashSet} of their bytes, read from the items' values on
   * the first batch.
   */
  static final class BytesItems {
    /** The non-NULL items' bytes, and whether an item is NULL. */
    record Read(BytesHashSet set, boolean anyNull) {}

    private final List<PhysicalExpr> items;
    private volatile Read read;

    BytesItems(List<PhysicalExpr> items) {
      this.items = items;
    }

    Read read(VectorSchemaRoot batch, BufferAllocator alloc) {
      Read r = read;
      if (r != null) return r;
      synchronized (this) {
        if (read == null) {
          List<byte[]> k = new ArrayList<>();
          boolean anyNull = false;
          for (PhysicalExpr item : items) {
            try (ColumnValues v = item.eval(batch, alloc)) {
              if (v.isNull(0)) anyNull = true;
              else k.add(v.getBytes(0));
            }
          }
          read = new Read(new BytesHashSet(k.toArray(new byte[0][])), anyNull);
        }
        return read;
      }
    }
  }

  /**
   * {@code value [NOT] IN (constant strings)}, three-valued as {@link #in(VectorSchemaRoot, BufferAllocator, Family,
   * PhysicalExpr, List, boolean)}: over a variable-width vector each row's bytes are hashed in place and probed in
   * the items' {@link BytesHashSet}; other inputs take the general path.
   */
  static ColumnValues inBytes(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr value, BytesItems set,
      boolean negated) {
    int n = batch.getRowCount();
    try (ColumnValues v = value.eval(batch, alloc)) {
      if (!(v.vector() instanceof org.apache.arrow.vector.BaseVariableWidthVector vw) || n == 0) {
        return in(batch, alloc, Family.BYTES, value, set.items, negated);
      }
      BytesItems.Read read = set.read(batch, alloc);
      BytesHashSet items = read.set();
      boolean anyNull = read.anyNull();
      long offsets = vw.getOffsetBuffer().memoryAddress();
      long data = vw.getDataBuffer().memoryAddress();
      BitVector out = newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        if (v.isNull(i)) continue;
        int start = org.apache.arrow.memory.util.MemoryUtil.getInt(offsets + 4L * i);
        int len = org.apache.arrow.memory.util.MemoryUtil.getInt(offsets + 4L * (i + 1)) - start;
        if (items.containsAt(data + start, len)) out.set(i, negated ? 0 : 1);
        else if (!anyNull) out.set(i, negated ? 1 : 0);
      }
      return done(out, n);
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

  /** Whether a type is a DECIMAL whose unscaled values always fit a long. */
  public static boolean smallDecimal(ArrowType t) {
    return t instanceof ArrowType.Decimal d && d.getPrecision() <= 18;
  }

  static final long[] POW10 = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L,
      1_000_000_000L, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L,
      100_000_000_000_000L, 1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L,
      1_000_000_000_000_000_000L};

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
}
