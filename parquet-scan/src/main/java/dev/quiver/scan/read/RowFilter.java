package dev.quiver.scan.read;

import dev.quiver.common.ArrowBulk;
import dev.quiver.scan.predicate.ScanPredicate;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;

/**
 * The pushed predicate evaluated row by row on the decoded predicate columns, for late materialization:
 * the scan decodes the other columns only for the rows it keeps. Only conjuncts that can be evaluated
 * exactly, with SQL's three-valued logic and Quiver's value order (NaN equal to itself and above every
 * number, -0.0 = 0.0, strings byte-wise), are used; a row is dropped only when one of them is FALSE or
 * NULL — so it could never pass the WHERE clause, which still runs above the scan.
 */
final class RowFilter {
  private final List<ScanPredicate> conjuncts;
  private final Set<String> columns;

  private RowFilter(List<ScanPredicate> conjuncts, Set<String> columns) {
    this.conjuncts = conjuncts;
    this.columns = columns;
  }

  /** A filter from the evaluable conjuncts of {@code p} over {@code readable} columns, or null if none. */
  static RowFilter of(ScanPredicate p, Set<String> readable) {
    List<ScanPredicate> parts = p instanceof ScanPredicate.And a ? a.children() : List.of(p);
    List<ScanPredicate> usable = new ArrayList<>();
    Set<String> cols = new LinkedHashSet<>();
    for (ScanPredicate c : parts) {
      Set<String> used = new LinkedHashSet<>();
      if (evaluable(c, used) && !used.isEmpty() && readable.containsAll(used)) {
        usable.add(c);
        cols.addAll(used);
      }
    }
    return usable.isEmpty() ? null : new RowFilter(usable, cols);
  }

  Set<String> columns() {
    return columns;
  }

  /** Marks in {@code keep} the rows for which every conjunct is TRUE; returns how many. */
  int select(Map<String, FieldVector> vectors, int n, boolean[] keep) {
    Arrays.fill(keep, 0, n, true);
    for (ScanPredicate c : conjuncts) {
      if (c instanceof ScanPredicate.Compare cmp && compareBatch(cmp, vectors.get(cmp.column()), n, keep)) continue;
      for (int i = 0; i < n; i++) {
        if (keep[i] && !Boolean.TRUE.equals(eval(c, vectors, i))) keep[i] = false;
      }
    }
    int count = 0;
    for (int i = 0; i < n; i++) if (keep[i]) count++;
    return count;
  }

  /**
   * A comparison of a signed integer, date, timestamp or decimal column with a literal over the whole
   * batch: the values copied out of the Arrow buffer at once and compared as longs (decimals at the
   * column's scale), NULL rows dropped. False (nothing done) when the pair is not one of those, or a
   * decimal does not fit a long — the row-by-row evaluation then applies.
   */
  private static boolean compareBatch(ScanPredicate.Compare c, FieldVector v, int n, boolean[] keep) {
    long k;
    long[] x;
    if (c.value() instanceof Long l && v != null) {
      x = ArrowBulk.longs(v, n);
      k = l;
    } else if (c.value() instanceof BigDecimal d && v instanceof DecimalVector dv && d.scale() <= dv.getScale()) {
      try {
        k = d.setScale(dv.getScale()).unscaledValue().longValueExact();
      } catch (ArithmeticException wide) {
        return false;
      }
      x = ArrowBulk.unscaled(dv, n);
    } else {
      return false;
    }
    if (x == null) return false;
    boolean nulls = v.getNullCount() > 0;
    for (int i = 0; i < n; i++) {
      if (!keep[i]) continue;
      keep[i] = (!nulls || !v.isNull(i)) && holds(c.op(), Long.compare(x[i], k));
    }
    return true;
  }

  private static boolean holds(ScanPredicate.Op op, int cmp) {
    return switch (op) {
      case EQ -> cmp == 0; case NE -> cmp != 0; case LT -> cmp < 0; case LE -> cmp <= 0; case GT -> cmp > 0; case GE -> cmp >= 0;
    };
  }

  private static boolean evaluable(ScanPredicate p, Set<String> used) {
    if (p instanceof ScanPredicate.Compare c) {
      used.add(c.column());
      return c.value() != null && supportedValue(c.value());
    }
    if (p instanceof ScanPredicate.In in) {
      used.add(in.column());
      return in.values().stream().allMatch(v -> v != null && supportedValue(v));
    }
    if (p instanceof ScanPredicate.IsNull n) {
      used.add(n.column());
      return true;
    }
    if (p instanceof ScanPredicate.StartsWith s) {
      used.add(s.column());
      return true;
    }
    if (p instanceof ScanPredicate.Not n) return evaluable(n.child(), used);
    if (p instanceof ScanPredicate.And a) return a.children().stream().allMatch(c -> evaluable(c, used));
    if (p instanceof ScanPredicate.Or o) return o.children().stream().allMatch(c -> evaluable(c, used));
    return p instanceof ScanPredicate.Const;
  }

  private static boolean supportedValue(Object v) {
    return v instanceof Long || v instanceof Double || v instanceof BigDecimal || v instanceof String || v instanceof Boolean;
  }

  /** Three-valued: TRUE, FALSE or null (unknown). */
  private static Boolean eval(ScanPredicate p, Map<String, FieldVector> vectors, int i) {
    if (p instanceof ScanPredicate.Compare c) {
      Integer cmp = compare(vectors.get(c.column()), i, c.value());
      return cmp == null ? null : holds(c.op(), cmp);
    }
    if (p instanceof ScanPredicate.In in) {
      FieldVector v = vectors.get(in.column());
      if (v.isNull(i)) return in.values().isEmpty() ? Boolean.FALSE : null;
      for (Object x : in.values()) {
        Integer cmp = compare(v, i, x);
        if (cmp != null && cmp == 0) return true;
      }
      return false;
    }
    if (p instanceof ScanPredicate.IsNull n) return vectors.get(n.column()).isNull(i) != n.negated();
    if (p instanceof ScanPredicate.StartsWith s) {
      FieldVector v = vectors.get(s.column());
      if (v.isNull(i)) return null;
      byte[] value = ((VarCharVector) v).get(i);
      byte[] prefix = s.prefix().getBytes(StandardCharsets.UTF_8);
      return value.length >= prefix.length && Arrays.equals(value, 0, prefix.length, prefix, 0, prefix.length);
    }
    if (p instanceof ScanPredicate.Not n) {
      Boolean b = eval(n.child(), vectors, i);
      return b == null ? null : !b;
    }
    if (p instanceof ScanPredicate.And a) {
      boolean unknown = false;
      for (ScanPredicate c : a.children()) {
        Boolean b = eval(c, vectors, i);
        if (b == null) unknown = true;
        else if (!b) return false;
      }
      return unknown ? null : Boolean.TRUE;
    }
    if (p instanceof ScanPredicate.Or o) {
      boolean unknown = false;
      for (ScanPredicate c : o.children()) {
        Boolean b = eval(c, vectors, i);
        if (b == null) unknown = true;
        else if (b) return true;
      }
      return unknown ? null : Boolean.FALSE;
    }
    return ((ScanPredicate.Const) p).value();
  }

  /**
   * The order of row {@code i} of {@code v} against {@code value}: null when the row is NULL. Throws
   * {@link Unsupported} for a vector/value pair it cannot compare (the scan then reads without it).
   */
  private static Integer compare(FieldVector v, int i, Object value) {
    if (v.isNull(i)) return null;
    if (v instanceof Float8Vector f && value instanceof Double d) return compareDouble(f.get(i), d);
    if (v instanceof Float4Vector f && value instanceof Double d) return compareDouble(f.get(i), d);
    if (v instanceof DecimalVector dv && value instanceof BigDecimal d) return dv.getObject(i).compareTo(d);
    if (v instanceof VarCharVector s && value instanceof String str) {
      return Arrays.compareUnsigned(s.get(i), str.getBytes(StandardCharsets.UTF_8));
    }
    if (v instanceof BitVector b && value instanceof Boolean x) return Boolean.compare(b.get(i) == 1, x);
    if (value instanceof Long l) {
      if (v instanceof UInt8Vector u) return Long.compareUnsigned(u.get(i), l);
      if (v instanceof DateDayVector dd) return Long.compare(dd.get(i), l);
      if (v instanceof TimeStampVector ts) return Long.compare(ts.get(i), l);
      if (v instanceof BaseIntVector bi) return Long.compare(unsignedAware(v, bi.getValueAsLong(i)), l);
    }
    throw new Unsupported();
  }

  private static long unsignedAware(FieldVector v, long raw) {
    if (v instanceof org.apache.arrow.vector.UInt1Vector) return raw & 0xFFL;
    if (v instanceof org.apache.arrow.vector.UInt2Vector) return raw & 0xFFFFL;
    if (v instanceof org.apache.arrow.vector.UInt4Vector) return raw & 0xFFFFFFFFL;
    return raw;
  }

  private static int compareDouble(double a, double b) {
    return a == b ? 0 : Double.compare(a, b);
  }

  /** A column/value pair the filter cannot compare: the scan reads the batch without filtering. */
  static final class Unsupported extends RuntimeException {
    Unsupported() {
      super(null, null, false, false);
    }
  }
}
