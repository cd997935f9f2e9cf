package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The running state of one aggregate for one group. NULL inputs are ignored (count(*) counts rows).
 * Integer sums whose exact total does not fit their type are errors, never wrapped (judged on the total, not on a
 * running total, so the order of the rows does not matter); decimal sums are exact.
 */
abstract class Accumulator {
  /** Adds row {@code i} of {@code v} ({@code v} is null for count(*)). */
  abstract void add(ColumnValues v, int i);

  /** The aggregate's value in physical form, or null. */
  abstract Object result();

  /** Adds rows {@code [0, n)} of {@code v} (an ungrouped aggregate takes whole batches). */
  void addAll(ColumnValues v, int n) {
    for (int i = 0; i < n; i++) add(v, i);
  }

  /** A rough heap size, for memory accounting. */
  long size() {
    return 48;
  }

  /** Makes one accumulator per group; {@code memory} is charged for what a DISTINCT aggregate remembers. */
  @FunctionalInterface
  interface Factory {
    Accumulator create(MemoryReservation memory);
  }

  /** The factory of {@code call}'s accumulators. */
  static Factory factory(AggregateCall call) {
    return new CallFactory(call);
  }

  /** The factory of {@code call}'s accumulators; AggregateExec reads the call to keep typed per-group state. */
  record CallFactory(AggregateCall call) implements Factory {
    @Override public Accumulator create(MemoryReservation memory) {
      return Accumulator.create(call, memory);
    }
  }

  /** A new accumulator; {@code memory} is charged for what a DISTINCT aggregate remembers. */
  static Accumulator create(AggregateCall call, MemoryReservation memory) {
    Accumulator a = base(call, memory);
    return call.distinct() ? new Distinct(a, call, memory) : a;
  }

  private static Accumulator base(AggregateCall call, MemoryReservation memory) {
    if (call.arg() == null) return new CountStar();
    Kernels.Family family = Kernels.family(call.arg().type());
    return switch (call.func()) {
      case COUNT -> new Count();
      case SUM -> family == Kernels.Family.LONG ? new LongSum(call) : family == Kernels.Family.DOUBLE ? new DoubleSum()
          : new DecimalSum(call, false);
      case AVG -> family == Kernels.Family.DOUBLE ? new DoubleAvg() : new DecimalSum(call, true);
      case MIN, MAX -> new MinMax(family, call.func() == AggFunc.MIN);
      case BOOL_AND, BOOL_OR -> new BoolAgg(call.func() == AggFunc.BOOL_AND);
      case STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP -> new Variance(call.func(), family);
      case STRING_AGG -> call.orderBy().isEmpty() ? new StringAgg(call.separator()) : new OrderedStringAgg(call);
      case MEDIAN, PERCENTILE_CONT, PERCENTILE_DISC -> new Percentile(call, memory);
      case APPROX_COUNT_DISTINCT -> new HyperLogLog.Count(family, memory);
      case ARG_MIN, ARG_MAX -> new ArgMinMax(Kernels.family(call.arg2().type()), call.func() == AggFunc.ARG_MIN);
      case CORR, COVAR_POP, COVAR_SAMP, REGR_SLOPE, REGR_INTERCEPT, REGR_R2, REGR_COUNT, REGR_AVGX, REGR_AVGY, REGR_SXX,
          REGR_SYY, REGR_SXY -> new Covariance(call.func());
    };
  }

  /** string_agg: the non-NULL values joined with the separator, in the order they come. */
  private static final class StringAgg extends Accumulator {
    final String separator;
    StringBuilder text;
    StringAgg(String separator) { this.separator = separator; }
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      if (text == null) text = new StringBuilder();
      else text.append(separator);
      text.append((String) v.getObject(i));
    }
    @Override long size() { return 48 + (text == null ? 0 : 2L * text.length()); }
    Object result() { return text == null ? null : text.toString(); }
  }

  /**
   * string_agg(x, sep ORDER BY ...): the values with their sort keys ({@link TupleValues}: the value, then the keys),
   * sorted (stably: ties keep the input's order) when the result is asked for.
   */
  private static final class OrderedStringAgg extends Accumulator {
    final AggregateCall call;
    final java.util.List<Object[]> rows = new java.util.ArrayList<>();
    long bytes;
    OrderedStringAgg(AggregateCall call) { this.call = call; }
    void add(ColumnValues v, int i) {
      TupleValues t = (TupleValues) v;
      if (t.parts()[0].isNull(i)) return;
      Object[] row = new Object[t.parts().length];
      for (int k = 0; k < row.length; k++) row[k] = t.parts()[k].isNull(i) ? null : t.parts()[k].getObject(i);
      bytes += 48 + 2L * ((String) row[0]).length() + 16L * row.length;
      rows.add(row);
    }
    @Override long size() { return 48 + bytes; }
    Object result() {
      if (rows.isEmpty()) return null;
      java.util.List<Object[]> sorted = new java.util.ArrayList<>(rows);
      java.util.List<dev.quiver.planner.plan.LogicalPlan.SortKey> keys = call.orderBy();
      sorted.sort((a, b) -> {
        for (int k = 0; k < keys.size(); k++) {
          Object x = a[k + 1];
          Object y = b[k + 1];
          var key = keys.get(k);
          int c;
          if (x == null || y == null) {
            if (x == y) continue;
            c = (x == null) == key.nullsFirst() ? -1 : 1;
          } else {
            c = Kernels.compareObjects(Kernels.family(key.expr().type()), x, y);
            if (!key.ascending()) c = -c;
          }
          if (c != 0) return c;
        }
        return 0;
      });
      StringBuilder text = new StringBuilder();
      for (Object[] r : sorted) {
        if (text.length() > 0 || r != sorted.get(0)) text.append(call.separator());
        text.append((String) r[0]);
      }
      return text.toString();
    }
  }

  private static final class CountStar extends Accumulator {
    long n;
    void add(ColumnValues v, int i) { n++; }
    @Override void addAll(ColumnValues v, int rows) { n += rows; }
    Object result() { return n; }
  }

  private static final class Count extends Accumulator {
    long n;
    void add(ColumnValues v, int i) { if (!v.isNull(i)) n++; }
    Object result() { return n; }
  }

  /**
   * sum of integers: a long while it fits, what overflowed it kept exactly beside it; the exact total must fit BIGINT
   * (checked in {@link #result()}), so the answer does not depend on the order of the rows (a running total that
   * leaves BIGINT and comes back is no error).
   */
  private static final class LongSum extends Accumulator {
    final AggregateCall call;
    long sum;
    java.math.BigInteger spilled;
    boolean any;
    LongSum(AggregateCall call) { this.call = call; }
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      addValue(v.getLong(i));
    }
    @Override void addAll(ColumnValues v, int n) {
      if (Kernels.family(v.type()) != Kernels.Family.LONG) {
        super.addAll(v, n);
        return;
      }
      long[] x = BatchValues.longs(v, n);
      boolean nulls = BatchValues.anyNull(v);
      for (int i = 0; i < n; i++) if (!nulls || !v.isNull(i)) addValue(x[i]);
    }
    private void addValue(long x) {
      any = true;
      long s = sum + x;
      if (((sum ^ s) & (x ^ s)) < 0) {
        spilled = (spilled == null ? java.math.BigInteger.ZERO : spilled).add(java.math.BigInteger.valueOf(sum));
        sum = x;
      } else {
        sum = s;
      }
    }
    Object result() {
      if (!any) return null;
      if (spilled == null) return sum;
      try {
        return spilled.add(java.math.BigInteger.valueOf(sum)).longValueExact();
      } catch (ArithmeticException e) {
        throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + dev.quiver.planner.expr.Exprs.toUserString(call.arg())
            + ") overflows " + SqlTypes.sqlName(call.type()));
      }
    }
  }

  /** sum of doubles, compensated ({@link CompensatedSum}): its answer does not depend on the order of the rows. */
  private static final class DoubleSum extends Accumulator {
    final double[] sum = new double[2];
    boolean any;
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      any = true;
      CompensatedSum.add(sum, 0, v.getDouble(i));
    }
    Object result() { return any ? CompensatedSum.value(sum[0], sum[1]) : null; }
  }

  /** avg of doubles: a compensated sum ({@link CompensatedSum}) divided by the count. */
  private static final class DoubleAvg extends Accumulator {
    final double[] sum = new double[2];
    long n;
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      n++;
      CompensatedSum.add(sum, 0, v.getDouble(i));
    }
    Object result() { return n == 0 ? null : CompensatedSum.value(sum[0], sum[1]) / n; }
  }

  /**
   * Exact sum (or average) of integers and decimals: unscaled longs while they fit, spilling into a
   * BigDecimal on overflow.
   */
  private static final class DecimalSum extends Accumulator {
    final AggregateCall call;
    final boolean avg;
    final int scale;
    final boolean unscaledOk;
    long unscaled;
    BigDecimal big = BigDecimal.ZERO;
    long n;
    DecimalSum(AggregateCall call, boolean avg) {
      this.call = call;
      this.avg = avg;
      ArrowType t = call.arg().type();
      this.scale = t instanceof ArrowType.Decimal d ? d.getScale() : 0;
      this.unscaledOk = t instanceof ArrowType.Decimal || Kernels.family(t) == Kernels.Family.LONG;
    }
    @Override void addAll(ColumnValues v, int rows) {
      long[] x = !unscaledOk ? null : v.type() instanceof ArrowType.Decimal ? BatchValues.unscaled(v, rows)
          : Kernels.family(v.type()) == Kernels.Family.LONG ? BatchValues.longs(v, rows) : null;
      if (x == null) {
        super.addAll(v, rows);
        return;
      }
      boolean nulls = BatchValues.anyNull(v);
      for (int i = 0; i < rows; i++) {
        if (nulls && v.isNull(i)) continue;
        n++;
        addUnscaled(x[i]);
      }
    }
    /** Adds an unscaled value, spilling the running long into the BigDecimal when it would overflow. */
    private void addUnscaled(long x) {
      long s = unscaled + x;
      if (((unscaled ^ s) & (x ^ s)) < 0) {
        big = big.add(BigDecimal.valueOf(unscaled, scale));
        unscaled = x;
      } else {
        unscaled = s;
      }
    }
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      n++;
      long x;
      if (unscaledOk) {
        try {
          x = v.type() instanceof ArrowType.Decimal ? v.getUnscaledLong(i) : v.getLong(i);
        } catch (ArithmeticException wide) {
          big = big.add(v.getDecimal(i));
          return;
        }
      } else {
        big = big.add(Casts.exact(v.getObject(i), v.type()));
        return;
      }
      addUnscaled(x);
    }
    Object result() {
      if (n == 0) return null;
      BigDecimal total = big.add(BigDecimal.valueOf(unscaled, scale));
      if (avg) return total.divide(BigDecimal.valueOf(n), MathContext.DECIMAL128).doubleValue();
      ArrowType t = call.type();
      if (t instanceof ArrowType.Decimal d) {
        BigDecimal s = total.setScale(d.getScale());
        if (s.precision() > SqlTypes.MAX_DECIMAL_PRECISION) {
          throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + dev.quiver.planner.expr.Exprs.toUserString(call.arg()) + ") overflows " + SqlTypes.sqlName(t));
        }
        return s;
      }
      return total;
    }
  }

  private static final class MinMax extends Accumulator {
    final Kernels.Family family;
    final boolean min;
    Object best;
    MinMax(Kernels.Family family, boolean min) {
      this.family = family;
      this.min = min;
    }
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      Object x = v.getObject(i);
      if (best == null) {
        best = x;
      } else {
        int c = Kernels.compareObjects(family, x, best);
        if (min ? c < 0 : c > 0) best = x;
      }
    }
    Object result() { return best; }
  }

  private static final class BoolAgg extends Accumulator {
    final boolean and;
    Boolean value;
    BoolAgg(boolean and) { this.and = and; }
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      boolean b = v.getBool(i);
      value = value == null ? b : and ? value && b : value || b;
    }
    Object result() { return value; }
  }

  /** Welford's online variance. */
  private static final class Variance extends Accumulator {
    final AggFunc func;
    final Kernels.Family family;
    long n;
    double mean;
    double m2;
    Variance(AggFunc func, Kernels.Family family) {
      this.func = func;
      this.family = family;
    }
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      double x = switch (family) {
        case DOUBLE -> v.getDouble(i);
        case LONG -> v.getLong(i);
        default -> Casts.exact(v.getObject(i), v.type()).doubleValue();
      };
      n++;
      double d = x - mean;
      mean += d / n;
      m2 += d * (x - mean);
    }
    Object result() {
      boolean sample = func == AggFunc.STDDEV_SAMP || func == AggFunc.VAR_SAMP;
      if (n == 0 || (sample && n == 1)) return null;
      double var = m2 / (sample ? n - 1 : n);
      return func == AggFunc.STDDEV_SAMP || func == AggFunc.STDDEV_POP ? Math.sqrt(var) : var;
    }
  }

  /** Feeds each distinct non-NULL value to the wrapped accumulator once. */
  private static final class Distinct extends Accumulator {
    final Accumulator inner;
    final Set<Object> seen = new HashSet<>();
    final MemoryReservation memory;
    final AggregateCall call;
    /** Whole batches ({@link #addAll}, an ungrouped aggregation): the values seen, typed, a batch at a time. */
    GroupedDistinct.DistinctRows rows;
    int[] routed = new int[0];
    Distinct(Accumulator inner, AggregateCall call, MemoryReservation memory) {
      this.inner = inner;
      this.call = call;
      this.memory = memory;
    }
    @Override void addAll(ColumnValues v, int n) {
      if (!GroupedDistinct.handles(call) || !seen.isEmpty()) {
        super.addAll(v, n);
        return;
      }
      if (rows == null) rows = new GroupedDistinct.DistinctRows(call.arg().type(), memory);
      rows.batch(v, n);
      if (routed.length < n) routed = new int[n];
      rows.route(null, 0, n, routed);
      for (int i = 0; i < n; i++) if (routed[i] != 0 && !v.isNull(i)) inner.add(v, i);
    }
    void add(ColumnValues v, int i) {
      if (rows != null) throw new IllegalStateException("a DISTINCT accumulator fed whole batches, then one row");
      if (v.isNull(i)) return;
      Object k = Keys.of(v, i);
      if (seen.add(k)) {
        memory.add(Keys.sizeOf(k) + 32);
        inner.add(v, i);
      }
    }
    Object result() { return inner.result(); }
  }
}
