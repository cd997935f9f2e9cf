package dev.quiver.scan.prune;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.predicate.ScanPredicate.Op;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.DataFile;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.filter2.predicate.Operators;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Translates a {@link ScanPredicate} into parquet-java's {@link FilterPredicate} for one file, for
 * "might match" pruning. Negation is pushed down first, so every part that cannot be translated can be
 * treated as TRUE (it might match anything). Partition columns are evaluated on the file's partition
 * values and become TRUE or FALSE.
 *
 * <p>Hazards kept out: INT96 columns, NaN literals, literals that do not convert exactly into the
 * file's physical type (decimal scale, timestamp unit, float width), and {@code <>}, {@code >},
 * {@code >=} on FLOAT/DOUBLE columns of writers other than parquet-mr, which may leave NaN out of
 * min/max while NaN is the largest value in Quiver.
 */
public final class ParquetFilterConverter {
  /** IN lists up to this size are expanded into ORs of equalities, so statistics test every value. */
  static final int IN_EXPANSION_LIMIT = 20;

  /** The outcome for one file: nothing matches, anything might match, or a parquet predicate. */
  public sealed interface Result {}
  public record Always() implements Result {}
  public record Never() implements Result {}
  /**
   * A parquet predicate, the columns it reads, and those it tests for equality (= or IN): only those can
   * profit from dictionaries and bloom filters, whose pages cost I/O.
   */
  public record Pred(FilterPredicate predicate, Set<String> columns, Set<String> equalityColumns) implements Result {
    public Pred {
      columns = Set.copyOf(columns);
      equalityColumns = Set.copyOf(equalityColumns);
    }

    Pred(FilterPredicate predicate, Set<String> columns) {
      this(predicate, columns, Set.of());
    }
  }

  private static final Always TRUE = new Always();
  private static final Never FALSE = new Never();

  private final MessageType schema;
  private final DataFile file;
  private final Set<String> partitionColumns;
  private final boolean nanSafeFloatStats;
  private final Set<String> used = new HashSet<>();
  private final Set<String> equality = new HashSet<>();

  private ParquetFilterConverter(MessageType schema, DataFile file, Set<String> partitionColumns, String createdBy) {
    this.schema = schema;
    this.file = file;
    this.partitionColumns = partitionColumns;
    this.nanSafeFloatStats = createdBy != null && createdBy.startsWith("parquet-mr");
  }

  public static Result convert(ScanPredicate p, MessageType fileSchema, DataFile file, Set<String> partitionColumns,
      String createdBy) {
    ParquetFilterConverter c = new ParquetFilterConverter(fileSchema, file, partitionColumns, createdBy);
    Result r = c.conv(p, false);
    return r instanceof Pred pr ? new Pred(pr.predicate(), c.used, c.equality) : r;
  }

  private Result conv(ScanPredicate p, boolean negated) {
    if (p instanceof ScanPredicate.Const c) return c.value() != negated ? TRUE : FALSE;
    if (p instanceof ScanPredicate.Not n) return conv(n.child(), !negated);
    if (p instanceof ScanPredicate.And a) return negated ? or(a.children(), true) : and(a.children(), false);
    if (p instanceof ScanPredicate.Or o) return negated ? and(o.children(), true) : or(o.children(), false);
    if (p instanceof ScanPredicate.IsNull n) {
      boolean isNull = n.negated() == negated;
      if (partitionColumns.contains(n.column())) return (partitionValue(n.column()) == null) == isNull ? TRUE : FALSE;
      PrimitiveType col = column(n.column());
      if (col == null || col.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96) return TRUE;
      Operators.Column<?> c = parquetColumn(col);
      return pred(col, isNull ? eqRaw(c, null) : notEqRaw(c, null));
    }
    if (p instanceof ScanPredicate.Compare c) return compare(c.column(), negated ? c.op().negate() : c.op(), c.value(), c.type());
    if (p instanceof ScanPredicate.In in) {
      List<ScanPredicate> parts = new ArrayList<>();
      for (Object v : in.values()) parts.add(new ScanPredicate.Compare(in.column(), Op.EQ, v, in.type()));
      if (parts.size() <= IN_EXPANSION_LIMIT || partitionColumns.contains(in.column())) {
        return negated ? and(parts, true) : or(parts, false);
      }
      return inSet(in, negated);
    }
    if (p instanceof ScanPredicate.StartsWith sw) return startsWith(sw, negated);
    return TRUE; // anything new: might match
  }

  /**
   * {@code starts_with(c, p)} is exactly {@code c >= p AND c < next(p)} in unsigned byte order, where
   * next(p) is p with its last byte below 0xFF incremented and the rest dropped; its negation is the
   * complement range.
   */
  private Result startsWith(ScanPredicate.StartsWith sw, boolean negated) {
    ArrowType utf8 = ArrowType.Utf8.INSTANCE;
    byte[] p = sw.prefix().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int last = p.length - 1;
    while (last >= 0 && p[last] == (byte) 0xFF) last--;
    ScanPredicate lower = new ScanPredicate.Compare(sw.column(), Op.GE, sw.prefix(), utf8);
    if (last < 0) return conv(lower, negated);
    byte[] next = java.util.Arrays.copyOf(p, last + 1);
    next[last]++;
    ScanPredicate upper = new ScanPredicate.Compare(sw.column(), Op.LT, next, utf8); // raw bytes: may not be UTF-8
    return negated ? or(List.of(lower, upper), true) : and(List.of(lower, upper), false);
  }

  private Result and(List<ScanPredicate> children, boolean negateChildren) {
    List<FilterPredicate> preds = new ArrayList<>();
    for (ScanPredicate c : children) {
      Result r = conv(c, negateChildren);
      if (r instanceof Never) return FALSE;
      if (r instanceof Pred pr) preds.add(pr.predicate());
    }
    if (preds.isEmpty()) return TRUE;
    return new Pred(balanced(preds, true, 0, preds.size()), Set.of());
  }

  private Result or(List<ScanPredicate> children, boolean negateChildren) {
    List<FilterPredicate> preds = new ArrayList<>();
    for (ScanPredicate c : children) {
      Result r = conv(c, negateChildren);
      if (r instanceof Always) return TRUE;
      if (r instanceof Pred pr) preds.add(pr.predicate());
    }
    if (preds.isEmpty()) return FALSE;
    return new Pred(balanced(preds, false, 0, preds.size()), Set.of());
  }

  /** A balanced and/or tree: parquet-java's filters recurse, and IN lists expand to long chains. */
  private static FilterPredicate balanced(List<FilterPredicate> preds, boolean and, int from, int to) {
    if (to - from == 1) return preds.get(from);
    int mid = to - from == 2 ? from + 1 : (from + to + 1) / 2;
    FilterPredicate l = balanced(preds, and, from, mid);
    FilterPredicate r = balanced(preds, and, mid, to);
    return and ? FilterApi.and(l, r) : FilterApi.or(l, r);
  }

  private Result compare(String column, Op op, Object value, ArrowType type) {
    if (partitionColumns.contains(column)) return comparePartition(column, op, value);
    PrimitiveType col = column(column);
    if (col == null) return TRUE;
    if (isFloat(col) && !nanSafeFloatStats && (op == Op.NE || op == Op.GT || op == Op.GE)) return TRUE;
    Comparable<?> v = toParquet(value, type, col);
    if (v == null) return TRUE;
    Operators.Column<?> c = parquetColumn(col);
    if (c instanceof Operators.BooleanColumn && op != Op.EQ && op != Op.NE) return TRUE;
    if (op == Op.EQ) equality.add(col.getName());
    return pred(col, cmp(c, op, v));
  }

  private Result inSet(ScanPredicate.In in, boolean negated) {
    PrimitiveType col = column(in.column());
    if (col == null || (negated && isFloat(col) && !nanSafeFloatStats)) return TRUE;
    Set<Comparable<?>> values = new HashSet<>();
    for (Object v : in.values()) {
      Comparable<?> pv = toParquet(v, in.type(), col);
      if (pv == null) return TRUE;
      values.add(pv);
    }
    Operators.Column<?> c = parquetColumn(col);
    if (!negated) equality.add(col.getName());
    return pred(col, inRaw(c, values, negated));
  }

  private Pred pred(PrimitiveType col, FilterPredicate p) {
    used.add(col.getName());
    return new Pred(p, Set.of());
  }

  private static FilterPredicate eqRaw(Operators.Column<?> c, Comparable<?> v) {
    return cmp(c, Op.EQ, v);
  }

  private static FilterPredicate notEqRaw(Operators.Column<?> c, Comparable<?> v) {
    return cmp(c, Op.NE, v);
  }

  /** A typed comparison; {@code v} is of the column's Java type (or null for EQ / NE). */
  private static FilterPredicate cmp(Operators.Column<?> c, Op op, Comparable<?> v) {
    if (c instanceof Operators.BooleanColumn b) {
      return op == Op.EQ ? FilterApi.eq(b, (Boolean) v) : FilterApi.notEq(b, (Boolean) v);
    }
    if (c instanceof Operators.IntColumn x) return ordered(x, op, (Integer) v);
    if (c instanceof Operators.LongColumn x) return ordered(x, op, (Long) v);
    if (c instanceof Operators.FloatColumn x) return ordered(x, op, (Float) v);
    if (c instanceof Operators.DoubleColumn x) return ordered(x, op, (Double) v);
    return ordered((Operators.BinaryColumn) c, op, (Binary) v);
  }

  private static <T extends Comparable<T>, C extends Operators.Column<T> & Operators.SupportsLtGt>
      FilterPredicate ordered(C c, Op op, T v) {
    return switch (op) {
      case EQ -> FilterApi.eq(c, v);
      case NE -> FilterApi.notEq(c, v);
      case LT -> FilterApi.lt(c, v);
      case LE -> FilterApi.ltEq(c, v);
      case GT -> FilterApi.gt(c, v);
      case GE -> FilterApi.gtEq(c, v);
    };
  }

  @SuppressWarnings("unchecked")
  private static FilterPredicate inRaw(Operators.Column<?> c, Set<Comparable<?>> values, boolean negated) {
    if (c instanceof Operators.IntColumn x) return inT(x, (Set<Integer>) (Set<?>) values, negated);
    if (c instanceof Operators.LongColumn x) return inT(x, (Set<Long>) (Set<?>) values, negated);
    if (c instanceof Operators.FloatColumn x) return inT(x, (Set<Float>) (Set<?>) values, negated);
    if (c instanceof Operators.DoubleColumn x) return inT(x, (Set<Double>) (Set<?>) values, negated);
    if (c instanceof Operators.BooleanColumn x) return inT(x, (Set<Boolean>) (Set<?>) values, negated);
    return inT((Operators.BinaryColumn) c, (Set<Binary>) (Set<?>) values, negated);
  }

  private static <T extends Comparable<T>, C extends Operators.Column<T> & Operators.SupportsEqNotEq>
      FilterPredicate inT(C c, Set<T> values, boolean negated) {
    return negated ? FilterApi.notIn(c, values) : FilterApi.in(c, values);
  }

  private Object partitionValue(String column) {
    String v = file.partitionValues().get(column);
    return v == null || Catalog.HIVE_NULL.equals(v) ? null : v;
  }

  private Result comparePartition(String column, Op op, Object literal) {
    Object raw = partitionValue(column);
    if (raw == null || literal == null) return FALSE;
    int cmp;
    if (literal instanceof Long l) {
      cmp = Long.compare(Long.parseLong((String) raw), l);
    } else {
      cmp = ((String) raw).compareTo(literal.toString());
    }
    boolean ok = switch (op) {
      case EQ -> cmp == 0; case NE -> cmp != 0; case LT -> cmp < 0; case LE -> cmp <= 0; case GT -> cmp > 0; case GE -> cmp >= 0;
    };
    return ok ? TRUE : FALSE;
  }

  private PrimitiveType column(String name) {
    if (!schema.containsField(name)) return null;
    Type t = schema.getType(name);
    return t.isPrimitive() && !t.isRepetition(Type.Repetition.REPEATED) ? t.asPrimitiveType() : null;
  }

  private static boolean isFloat(PrimitiveType col) {
    return col.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FLOAT
        || col.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.DOUBLE
        || col.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation;
  }

  private static Operators.Column<?> parquetColumn(PrimitiveType col) {
    String path = col.getName();
    return switch (col.getPrimitiveTypeName()) {
      case BOOLEAN -> FilterApi.booleanColumn(path);
      case INT32 -> FilterApi.intColumn(path);
      case INT64 -> FilterApi.longColumn(path);
      case FLOAT -> FilterApi.floatColumn(path);
      case DOUBLE -> FilterApi.doubleColumn(path);
      default -> FilterApi.binaryColumn(path);
    };
  }

  /** The literal in the file column's physical representation, or null when that is not exact. */
  static Comparable<?> toParquet(Object value, ArrowType type, PrimitiveType col) {
    if (value == null) return null;
    LogicalTypeAnnotation l = col.getLogicalTypeAnnotation();
    try {
      switch (col.getPrimitiveTypeName()) {
        case BOOLEAN:
          return value instanceof Boolean b ? b : null;
        case INT32: {
          if (l instanceof DecimalLogicalTypeAnnotation d) {
            BigInteger u = unscaled(value, d);
            return u == null ? null : u.intValueExact();
          }
          if (!(value instanceof Long v)) return null;
          if (l instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && !i.isSigned()) {
            return v >= 0 && v <= 0xFFFFFFFFL ? (int) (long) v : null;
          }
          return v == (int) (long) v ? (int) (long) v : null;
        }
        case INT64: {
          if (l instanceof DecimalLogicalTypeAnnotation d) {
            BigInteger u = unscaled(value, d);
            return u == null ? null : u.longValueExact();
          }
          if (!(value instanceof Long v)) return null;
          if (l instanceof TimestampLogicalTypeAnnotation ts && type instanceof ArrowType.Timestamp tt) {
            return convertUnit(v, tt.getUnit(), ts.getUnit());
          }
          return v;
        }
        case FLOAT: {
          if (!(value instanceof Double d) || d.isNaN()) return null;
          float f = (float) (double) d;
          return (double) f == d ? f : null;
        }
        case DOUBLE:
          return value instanceof Double d && !d.isNaN() ? d : null;
        case BINARY:
          if (l instanceof DecimalLogicalTypeAnnotation d) {
            BigInteger u = unscaled(value, d);
            return u == null ? null : Binary.fromConstantByteArray(u.toByteArray());
          }
          if (value instanceof String s) return Binary.fromString(s);
          if (value instanceof byte[] b) return Binary.fromConstantByteArray(b);
          return null;
        case FIXED_LEN_BYTE_ARRAY:
          if (l instanceof DecimalLogicalTypeAnnotation d) {
            BigInteger u = unscaled(value, d);
            return u == null ? null : Binary.fromConstantByteArray(signExtend(u.toByteArray(), col.getTypeLength()));
          }
          if (value instanceof byte[] b && b.length == col.getTypeLength()) return Binary.fromConstantByteArray(b);
          return null;
        default:
          return null; // INT96: no usable order
      }
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private static BigInteger unscaled(Object value, DecimalLogicalTypeAnnotation d) {
    if (!(value instanceof BigDecimal b)) return null;
    BigDecimal scaled = b.setScale(d.getScale(), java.math.RoundingMode.UNNECESSARY);
    if (scaled.precision() > d.getPrecision() && scaled.signum() != 0) return null;
    return scaled.unscaledValue();
  }

  private static byte[] signExtend(byte[] bytes, int length) {
    if (bytes.length > length) throw new ArithmeticException("too long");
    byte[] out = new byte[length];
    byte pad = (byte) (bytes.length > 0 && bytes[0] < 0 ? 0xFF : 0);
    int off = length - bytes.length;
    for (int i = 0; i < off; i++) out[i] = pad;
    System.arraycopy(bytes, 0, out, off, bytes.length);
    return out;
  }

  private static Long convertUnit(long v, org.apache.arrow.vector.types.TimeUnit from,
      LogicalTypeAnnotation.TimeUnit to) {
    long fromPerSecond = switch (from) {
      case SECOND -> 1L; case MILLISECOND -> 1_000L; case MICROSECOND -> 1_000_000L; case NANOSECOND -> 1_000_000_000L;
    };
    long toPerSecond = switch (to) {
      case MILLIS -> 1_000L; case MICROS -> 1_000_000L; case NANOS -> 1_000_000_000L;
    };
    if (fromPerSecond == toPerSecond) return v;
    if (toPerSecond > fromPerSecond) return Math.multiplyExact(v, toPerSecond / fromPerSecond);
    long div = fromPerSecond / toPerSecond;
    return v % div == 0 ? v / div : null;
  }
}
