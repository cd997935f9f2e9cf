package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Arrays;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The state of one aggregate for every group of a grouped aggregation, in primitive arrays indexed by group id,
 * updated a batch at a time from the rows' group ids and the argument's values in one tight loop. Results are
 * those of {@link Accumulator} (same NULL handling, overflow errors, exact decimal sums); aggregates without a
 * typed form here keep one {@link Accumulator} per group ({@link PerGroup}).
 */
abstract class GroupedAccumulator {
  /** Makes room for groups {@code [0, count)}. */
  abstract void grow(int count);

  /** Starts a batch of {@code n} rows whose argument is {@code v} (null for count(*)). */
  abstract void batch(ColumnValues v, int n);

  /** Folds rows {@code [lo, hi)} of the current batch into groups {@code ids[i]}. */
  abstract void update(int[] ids, int lo, int hi);

  /** Group {@code g}'s value in physical form, or null. */
  abstract Object result(int g);

  /**
   * The bytes a group's state takes in this accumulator's arrays (an estimate for those that keep objects, which
   * charge their objects' sizes themselves).
   */
  int bytesPerGroup() {
    return 48;
  }

  /**
   * The memory to charge per new group of aggregates {@code gs}: twice their states (the arrays grow by doubling)
   * and the group's key ids.
   */
  static long chargePerGroup(GroupedAccumulator[] gs) {
    long b = 16;
    for (GroupedAccumulator g : gs) b += g == null ? 16 : 2L * g.bytesPerGroup();
    return b;
  }

  /**
   * The values of groups {@code [first, first + count)} into slots {@code [0, count)} of {@code v} (allocated for
   * them); typed where a subclass can, else {@link #result} through {@link dev.quiver.planner.kernel.Vectors#set}.
   */
  void write(org.apache.arrow.vector.FieldVector v, int first, int count) {
    for (int r = 0; r < count; r++) dev.quiver.planner.kernel.Vectors.set(v, r, result(first + r));
  }

  /** The typed form of {@code factory}'s aggregate, or one accumulator per group when there is none. */
  static GroupedAccumulator of(Accumulator.Factory factory, MemoryReservation memory) {
    if (factory instanceof Accumulator.CallFactory cf && cf.call().distinct() && GroupedDistinct.handles(cf.call())) {
      return new GroupedDistinct(cf.call(), memory);
    }
    if (factory instanceof Accumulator.CallFactory cf && !cf.call().distinct()) {
      AggregateCall call = cf.call();
      if (call.arg() == null) return new CountStar();
      Kernels.Family family = Kernels.family(call.arg().type());
      switch (call.func()) {
        case COUNT: return new Count();
        case SUM:
          if (family == Kernels.Family.LONG) return new LongSum(call);
          if (family == Kernels.Family.DOUBLE) return new DoubleSum(false);
          if (family == Kernels.Family.DECIMAL) return new DecimalSum(call, false);
          break;
        case AVG:
          if (family == Kernels.Family.DOUBLE) return new DoubleSum(true);
          if (family == Kernels.Family.DECIMAL || family == Kernels.Family.LONG) return new DecimalSum(call, true);
          break;
        case MIN:
        case MAX:
          if (GroupedMinMax.handles(family)) return new GroupedMinMax(call.func() == AggFunc.MIN, family);
          break;
        case STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP:
          if (family == Kernels.Family.DOUBLE || family == Kernels.Family.LONG) return new GroupedVariance(call.func(), family);
          break;
        case MEDIAN, PERCENTILE_CONT, PERCENTILE_DISC:
          if (family == Kernels.Family.DOUBLE || family == Kernels.Family.LONG) return new Percentiles(factory, memory, family);
          break;
        case CORR, COVAR_POP, COVAR_SAMP, REGR_SLOPE, REGR_INTERCEPT, REGR_R2, REGR_COUNT, REGR_AVGX, REGR_AVGY, REGR_SXX,
            REGR_SYY, REGR_SXY:
          return new GroupedCovariance(call.func());
        default:
          break;
      }
    }
    return new PerGroup(factory, memory);
  }

  /** Capacity for {@code count} groups, doubling. */
  static int capacity(int have, int count) {
    return Math.max(count, Math.max(16, 2 * have));
  }

  private static final class CountStar extends GroupedAccumulator {
    @Override int bytesPerGroup() { return 8; }
    long[] counts = new long[0];
    void grow(int count) { if (count > counts.length) counts = Arrays.copyOf(counts, capacity(counts.length, count)); }
    void batch(ColumnValues v, int n) {}
    void update(int[] ids, int lo, int hi) {
      long[] c = counts;
      for (int i = lo; i < hi; i++) c[ids[i]]++;
    }
    Object result(int g) { return counts[g]; }
    @Override void write(org.apache.arrow.vector.FieldVector v, int first, int count) {
      writeCounts(counts, v, first, count);
    }
  }

  /** Counts (never NULL) into a BIGINT vector, else through {@link #result}-like boxing. */
  static void writeCounts(long[] counts, org.apache.arrow.vector.FieldVector v, int first, int count) {
    if (v instanceof org.apache.arrow.vector.BigIntVector b) {
      for (int r = 0; r < count; r++) b.set(r, counts[first + r]);
    } else {
      for (int r = 0; r < count; r++) dev.quiver.planner.kernel.Vectors.set(v, r, counts[first + r]);
    }
  }

  private static final class Count extends GroupedAccumulator {
    @Override int bytesPerGroup() { return 8; }
    long[] counts = new long[0];
    ColumnValues v;
    boolean nulls;
    void grow(int count) { if (count > counts.length) counts = Arrays.copyOf(counts, capacity(counts.length, count)); }
    void batch(ColumnValues values, int n) {
      v = values;
      nulls = BatchValues.anyNull(values);
    }
    void update(int[] ids, int lo, int hi) {
      long[] c = counts;
      if (!nulls) {
        for (int i = lo; i < hi; i++) c[ids[i]]++;
      } else if (v.vector() != null) {
        for (int i = lo; i < hi; i++) if (!v.isNull(i)) c[ids[i]]++;
      }
    }
    Object result(int g) { return counts[g]; }
    @Override void write(org.apache.arrow.vector.FieldVector out, int first, int count) {
      writeCounts(counts, out, first, count);
    }
  }

  /**
   * sum of integers: a long per group, and what overflowed it kept exactly beside it (rarely: only after an
   * overflow); only the exact total must fit, as in {@link Accumulator}'s, whatever the order of the rows.
   */
  static final class LongSum extends GroupedAccumulator {
    @Override int bytesPerGroup() { return 9; }
    final AggregateCall call;
    long[] sums = new long[0];
    boolean[] any = new boolean[0];
    java.math.BigInteger[] spilled;
    ColumnValues v;
    long[] x;
    /** The array of the batch before, filled again by the next (see {@link BatchValues#longs(ColumnValues, int, long[])}). */
    long[] scratch;
    boolean nulls;
    /**
     * Whether a NULL argument came yet. Until then {@link #any} is not kept (a store a row into another array): a
     * group exists because a row of it came, and every row had a value, so every group has one — except group 0
     * of an aggregation without GROUP BY, made before any row: {@link #updated} says whether one came.
     */
    boolean sawNull;
    boolean updated;
    int grown;
    /**
     * While no NULL came: the groups that existed at the last {@link #update} (each has a value: a group is made by
     * a row of it, and every row had one). A state {@link #merge}d keeps {@link #any} itself.
     */
    int rowGroups;
    LongSum(AggregateCall call) { this.call = call; }
    void grow(int count) {
      if (count > sums.length) {
        int cap = capacity(sums.length, count);
        sums = Arrays.copyOf(sums, cap);
        any = Arrays.copyOf(any, cap);
        if (spilled != null) spilled = Arrays.copyOf(spilled, cap);
      }
      grown = Math.max(grown, count);
    }
    void batch(ColumnValues values, int n) {
      v = values;
      nulls = BatchValues.anyNull(values);
      if (nulls && !sawNull) {
        sawNull = true; // from now on kept: every group so far has a value, if any row came
        if (updated) Arrays.fill(any, 0, grown, true);
      }
      x = nulls && values.vector() == null ? null : BatchValues.longs(values, n, scratch);
      if (x != null) scratch = x;
    }
    void update(int[] ids, int lo, int hi) {
      if (x == null) return; // a NULL scalar
      long[] s = sums;
      long[] xs = x;
      if (hi > lo) updated = true;
      if (!sawNull) {
        if (hi > lo) rowGroups = grown;
        for (int i = lo; i < hi; i++) add(s, ids[i], xs[i]);
        return;
      }
      boolean[] a = any;
      for (int i = lo; i < hi; i++) {
        if (nulls && v.isNull(i)) continue;
        int g = ids[i];
        add(s, g, xs[i]);
        a[g] = true;
      }
    }
    /** {@code b} added to group {@code g}'s running sum {@code s[g]}; what would overflow it goes to {@link #spilled}. */
    private void add(long[] s, int g, long b) {
      long before = s[g];
      long sum = before + b;
      if (((before ^ sum) & (b ^ sum)) < 0) {
        spill(g, before);
        sum = b;
      }
      s[g] = sum;
    }
    private void spill(int g, long value) {
      spill(g, java.math.BigInteger.valueOf(value));
    }
    private void spill(int g, java.math.BigInteger value) {
      if (spilled == null) spilled = new java.math.BigInteger[sums.length];
      spilled[g] = spilled[g] == null ? value : spilled[g].add(value);
    }
    /** Group {@code g}'s running sum (the part that fits a long; {@link #spilledOf} has the rest). */
    long sumOf(int g) {
      return sums[g];
    }
    /** What overflowed group {@code g}'s running sum (null: nothing). */
    java.math.BigInteger spilledOf(int g) {
      return spilled == null ? null : spilled[g];
    }
    /** Whether a value came for group {@code g}. */
    boolean anyOf(int g) {
      return sawNull ? any[g] : updated;
    }
    /**
     * Folds a partial state into group {@code g}: its running sum, what overflowed it (null: nothing) and whether it
     * had a value. Exact: the total is the same whatever the split and the order.
     */
    void merge(int g, long sum, java.math.BigInteger spilledPart, boolean anyValue) {
      if (anyValue) {
        updated = true;
        any[g] = true; // kept for merged groups even before a NULL: a state may come without a value
      } else if (!sawNull) {
        // a state without a value: from now on whether a group has one is read from any; the groups of rows so far
        // have one (not the groups of states not yet merged, made by the same batch as this one)
        sawNull = true;
        Arrays.fill(any, 0, rowGroups, true);
      }
      add(sums, g, sum);
      if (spilledPart != null) spill(g, spilledPart);
    }
    Object result(int g) {
      if (sawNull ? !any[g] : !updated) return null;
      if (spilled == null || spilled[g] == null) return sums[g];
      try {
        return spilled[g].add(java.math.BigInteger.valueOf(sums[g])).longValueExact();
      } catch (ArithmeticException e) {
        throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + Exprs.toUserString(call.arg()) + ") overflows BIGINT");
      }
    }
  }

  /**
   * sum or avg of DOUBLE: a compensated sum per group ({@link CompensatedSum}: hi and lo side by side) and a count,
   * the same additions as {@link Accumulator}'s; a partial aggregation's state is the pair and the count.
   */
  static final class DoubleSum extends GroupedAccumulator {
    @Override int bytesPerGroup() { return 24; }
    final boolean avg;
    double[] sums = new double[0];
    long[] counts = new long[0];
    ColumnValues v;
    boolean nulls;
    DoubleSum(boolean avg) { this.avg = avg; }
    void grow(int count) {
      if (count > counts.length) {
        int cap = capacity(counts.length, count);
        sums = Arrays.copyOf(sums, 2 * cap);
        counts = Arrays.copyOf(counts, cap);
      }
    }
    /** The batch's values, read at once (a bounds-checked {@code getDouble} a row was most of q4's aggregation). */
    double[] x;
    double[] scratch;
    void batch(ColumnValues values, int n) {
      v = values;
      nulls = BatchValues.anyNull(values);
      x = nulls && values.vector() == null ? null : BatchValues.doubles(values, n, scratch);
      if (x != null) scratch = x;
    }
    void update(int[] ids, int lo, int hi) {
      if (x == null) return; // a NULL scalar
      double[] s = sums;
      long[] c = counts;
      double[] xs = x;
      for (int i = lo; i < hi; i++) {
        if (nulls && v.isNull(i)) continue;
        int g = ids[i];
        CompensatedSum.add(s, 2 * g, xs[i]);
        c[g]++;
      }
    }
    /** Group {@code g}'s state, for a partial aggregation: the pair ({@link CompensatedSum}) and the count. */
    double hiOf(int g) { return sums[2 * g]; }
    double loOf(int g) { return sums[2 * g + 1]; }
    long countOf(int g) { return counts[g]; }

    /** Adds a partial state ({@link #hiOf}, {@link #loOf}, {@link #countOf}) to group {@code g}. */
    void merge(int g, double hi, double lo, long count) {
      if (count == 0) return;
      CompensatedSum.merge(sums, 2 * g, hi, lo);
      counts[g] += count;
    }
    Object result(int g) {
      if (counts[g] == 0) return null;
      double s = CompensatedSum.value(sums[2 * g], sums[2 * g + 1]);
      return avg ? s / counts[g] : s;
    }
  }

  /**
   * Exact sum (or average) of decimals (and the average of integers): unscaled longs per group while they fit,
   * spilling into a BigDecimal per group on overflow; values wider than a long go to the BigDecimal directly.
   */
  static final class DecimalSum extends GroupedAccumulator {
    @Override int bytesPerGroup() { return 24; }
    final AggregateCall call;
    final boolean avg;
    final int scale;
    long[] unscaled = new long[0];
    BigDecimal[] big = new BigDecimal[0];
    long[] counts = new long[0];
    ColumnValues v;
    long[] x;
    long[] scratch;
    boolean nulls;
    DecimalSum(AggregateCall call, boolean avg) {
      this.call = call;
      this.avg = avg;
      this.scale = call.arg().type() instanceof ArrowType.Decimal d ? d.getScale() : 0;
    }
    void grow(int count) {
      if (count > unscaled.length) {
        int cap = capacity(unscaled.length, count);
        unscaled = Arrays.copyOf(unscaled, cap);
        big = Arrays.copyOf(big, cap);
        counts = Arrays.copyOf(counts, cap);
      }
    }
    void batch(ColumnValues values, int n) {
      v = values;
      nulls = BatchValues.anyNull(values);
      if (nulls && values.vector() == null) {
        x = null;
      } else if (values.type() instanceof ArrowType.Decimal) {
        x = BatchValues.unscaled(values, n, scratch);
      } else if (Kernels.family(values.type()) == Kernels.Family.LONG) {
        x = BatchValues.longs(values, n, scratch);
      } else {
        x = null;
      }
      if (x != null) scratch = x;
    }
    void update(int[] ids, int lo, int hi) {
      if (x == null) {
        if (nulls && v.vector() == null) return; // a NULL scalar
        for (int i = lo; i < hi; i++) if (!v.isNull(i)) addRow(ids[i], i);
        return;
      }
      long[] u = unscaled;
      long[] c = counts;
      long[] xs = x;
      for (int i = lo; i < hi; i++) {
        if (nulls && v.isNull(i)) continue;
        int g = ids[i];
        c[g]++;
        long a = u[g];
        long b = xs[i];
        long s = a + b;
        if (((a ^ s) & (b ^ s)) < 0) {
          spill(g, a);
          u[g] = b;
        } else {
          u[g] = s;
        }
      }
    }
    /** Group {@code g}'s state, for a partial aggregation: the running unscaled sum, what spilled (or null), the count. */
    long unscaledOf(int g) { return unscaled[g]; }
    BigDecimal spilledOf(int g) { return big[g]; }
    long countOf(int g) { return counts[g]; }

    /** Adds a partial state ({@link #unscaledOf}, {@link #spilledOf}, {@link #countOf}) to group {@code g}. */
    void merge(int g, long u, BigDecimal spilled, long count) {
      counts[g] += count;
      if (spilled != null) big[g] = (big[g] == null ? BigDecimal.ZERO : big[g]).add(spilled);
      long a = unscaled[g];
      long s = a + u;
      if (((a ^ s) & (u ^ s)) < 0) {
        spill(g, a);
        unscaled[g] = u;
      } else {
        unscaled[g] = s;
      }
    }
    private void spill(int g, long a) {
      BigDecimal prior = big[g] == null ? BigDecimal.ZERO : big[g];
      big[g] = prior.add(BigDecimal.valueOf(a, scale));
    }
    /** One row without the batch's unscaled longs: as {@code Accumulator.DecimalSum.add}. */
    private void addRow(int g, int i) {
      counts[g]++;
      long b;
      try {
        b = v.type() instanceof ArrowType.Decimal ? v.getUnscaledLong(i) : v.getLong(i);
      } catch (ArithmeticException wide) {
        big[g] = (big[g] == null ? BigDecimal.ZERO : big[g]).add(v.getDecimal(i));
        return;
      }
      long a = unscaled[g];
      long s = a + b;
      if (((a ^ s) & (b ^ s)) < 0) {
        spill(g, a);
        unscaled[g] = b;
      } else {
        unscaled[g] = s;
      }
    }
    Object result(int g) {
      if (counts[g] == 0) return null;
      BigDecimal total = (big[g] == null ? BigDecimal.ZERO : big[g]).add(BigDecimal.valueOf(unscaled[g], scale));
      if (avg) return total.divide(BigDecimal.valueOf(counts[g]), MathContext.DECIMAL128).doubleValue();
      ArrowType t = call.type();
      if (t instanceof ArrowType.Decimal d) {
        BigDecimal s = total.setScale(d.getScale());
        if (s.precision() > SqlTypes.MAX_DECIMAL_PRECISION) {
          throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + Exprs.toUserString(call.arg()) + ") overflows " + SqlTypes.sqlName(t));
        }
        return s;
      }
      return total;
    }
  }

  /**
   * var_pop/var_samp/stddev_pop/stddev_samp of DOUBLE or of integers: Welford's count, mean and sum of squared
   * differences per group in arrays (mean and M2 side by side), the same arithmetic as {@link Accumulator}'s.
   */
  static final class GroupedVariance extends GroupedAccumulator {
    @Override int bytesPerGroup() { return 24; }
    final AggFunc func;
    final NumericArg arg;
    long[] counts = new long[0];
    double[] moments = new double[0];
    GroupedVariance(AggFunc func, Kernels.Family family) {
      this.func = func;
      this.arg = new NumericArg(family);
    }
    void grow(int count) {
      if (count > counts.length) {
        int cap = capacity(counts.length, count);
        counts = Arrays.copyOf(counts, cap);
        moments = Arrays.copyOf(moments, 2 * cap);
      }
    }
    void batch(ColumnValues values, int n) { arg.read(values, n); }
    void update(int[] ids, int lo, int hi) {
      if (arg.nullScalar()) return;
      long[] c = counts;
      double[] m = moments;
      for (int i = lo; i < hi; i++) {
        if (arg.isNull(i)) continue;
        int g = ids[i];
        double xi = arg.asDouble(i);
        long n = ++c[g];
        double mean = m[2 * g];
        double d = xi - mean;
        mean += d / n;
        m[2 * g] = mean;
        m[2 * g + 1] += d * (xi - mean);
      }
    }
    Object result(int g) {
      boolean sample = func == AggFunc.STDDEV_SAMP || func == AggFunc.VAR_SAMP;
      long n = counts[g];
      if (n == 0 || (sample && n == 1)) return null;
      double var = moments[2 * g + 1] / (sample ? n - 1 : n);
      return func == AggFunc.STDDEV_SAMP || func == AggFunc.STDDEV_POP ? Math.sqrt(var) : var;
    }
  }

  /**
   * median/percentile_cont/percentile_disc of DOUBLE or of signed integers: a {@link Percentile} per group as
   * {@link PerGroup} keeps, fed from the batch's values read at once (not a virtual call and a checked read a row).
   */
  private static final class Percentiles extends PerGroup {
    final NumericArg arg;
    Percentiles(Accumulator.Factory factory, MemoryReservation memory, Kernels.Family family) {
      super(factory, memory);
      this.arg = new NumericArg(family);
    }
    @Override void batch(ColumnValues values, int n) { arg.read(values, n); }
    @Override void update(int[] ids, int lo, int hi) {
      if (arg.nullScalar()) return;
      Accumulator[] a = accs;
      for (int i = lo; i < hi; i++) {
        if (arg.isNull(i)) continue;
        Percentile p = (Percentile) a[ids[i]];
        if (arg.longs) p.addLong(arg.lx[i]);
        else p.addDouble(arg.x[i]);
      }
    }
  }

  /**
   * The current batch's argument of the DOUBLE or the (signed) LONG family, its values read at once into the arrays
   * of the batch before: as longs or as doubles, and where its NULLs are.
   */
  static final class NumericArg {
    final boolean longs;
    ColumnValues v;
    boolean nulls;
    double[] x;
    long[] lx;
    NumericArg(Kernels.Family family) { this.longs = family == Kernels.Family.LONG; }
    void read(ColumnValues values, int n) {
      v = values;
      nulls = BatchValues.anyNull(values);
      if (nullScalar()) return; // the arrays kept for the next batch
      if (longs) lx = BatchValues.longs(values, n, lx);
      else x = BatchValues.doubles(values, n, x);
    }
    /** Whether the argument is a NULL constant: no row has a value. */
    boolean nullScalar() { return nulls && v.vector() == null; }
    boolean isNull(int i) { return nulls && v.isNull(i); }
    double asDouble(int i) { return longs ? lx[i] : x[i]; }
  }

  /** Group {@code g}'s approx_count_distinct accumulator of {@code perGroup} (made by {@link #of} for one). */
  static HyperLogLog.Count sketch(GroupedAccumulator perGroup, int g) {
    return (HyperLogLog.Count) ((PerGroup) perGroup).accs[g];
  }

  /** Any other aggregate (min/max, DISTINCT, variance …): one {@link Accumulator} per group, row by row. */
  private static class PerGroup extends GroupedAccumulator {
    @Override int bytesPerGroup() { return 24; }
    final Accumulator.Factory factory;
    final MemoryReservation memory;
    Accumulator[] accs = new Accumulator[0];
    int made;
    ColumnValues v;
    PerGroup(Accumulator.Factory factory, MemoryReservation memory) {
      this.factory = factory;
      this.memory = memory;
    }
    void grow(int count) {
      if (count > accs.length) accs = Arrays.copyOf(accs, capacity(accs.length, count));
      long size = 0;
      for (; made < count; made++) {
        accs[made] = factory.create(memory);
        size += accs[made].size();
      }
      memory.add(size);
    }
    void batch(ColumnValues values, int n) { v = values; }
    void update(int[] ids, int lo, int hi) {
      for (int i = lo; i < hi; i++) accs[ids[i]].add(v, i);
    }
    Object result(int g) { return accs[g].result(); }
  }
}
