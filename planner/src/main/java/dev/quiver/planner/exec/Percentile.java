package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.Quantile;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * median, percentile_cont and percentile_disc (also spelled quantile_cont, quantile_disc, approx_quantile …): exact.
 * Every non-NULL value is kept (numbers in a primitive array, charged to the query's memory) and, when the result is
 * asked for, the one or two values it reads put in place as a sort would ({@link Select}; other types sorted); NULL
 * over no values. With n values sorted in the call's order (ascending, or descending
 * for {@code WITHIN GROUP (ORDER BY x DESC)}; NaN above every number):
 * <ul>
 * <li>percentile_cont(f) (median: f = 0.5), over DOUBLE: with RN = (n - 1) * f, lo and hi the values at floor(RN)
 * and ceil(RN), {@code lo + (hi - lo) * (RN - floor(RN))} (lo when they are one position) — PostgreSQL's and
 * DuckDB's definition and arithmetic;</li>
 * <li>percentile_disc(f): the first value whose cumulative distribution reaches f, the value at position
 * {@code max(1, ceil(n * f)) - 1}, computed exactly when f was written as an exact number (as DuckDB does; a DOUBLE
 * fraction uses DuckDB's double arithmetic, {@code n - floor(n - n * f)}), of the argument's type.</li>
 * </ul>
 */
final class Percentile extends Accumulator {
  private final boolean continuous;
  private final Quantile quantile;
  private final Kernels.Family family;
  private final MemoryReservation memory;
  /** LONG and ULONG values (ULONG with the sign bit flipped, so that signed order is theirs), DOUBLE values, others. */
  private long[] longs;
  private double[] doubles;
  private List<Object> objects;
  private int n;
  private boolean sorted = true;
  private long charged;

  Percentile(AggregateCall call, MemoryReservation memory) {
    this.continuous = call.func() != AggFunc.PERCENTILE_DISC;
    this.quantile = call.quantile() != null ? call.quantile() : new Quantile(new BigDecimal("0.5"), false);
    this.family = Kernels.family(call.arg().type());
    this.memory = memory;
    switch (family) {
      case LONG, ULONG -> longs = new long[8];
      case DOUBLE -> doubles = new double[8];
      default -> objects = new ArrayList<>();
    }
  }

  @Override
  void add(ColumnValues v, int i) {
    if (v.isNull(i)) return;
    switch (family) {
      case LONG -> addLong(v.getLong(i));
      case ULONG -> addLong(v.getLong(i) ^ Long.MIN_VALUE); // kept with the sign bit flipped: signed order is theirs
      case DOUBLE -> addDouble(v.getDouble(i));
      default -> {
        sorted = n == 0;
        Object x = v.getObject(i);
        objects.add(x);
        charge(40 + (x instanceof String s ? 2L * s.length() : x instanceof byte[] b ? b.length : 16));
        n++;
      }
    }
  }

  /** Adds a non-NULL DOUBLE value (for a caller that read the batch's values at once, too). */
  void addDouble(double x) {
    sorted = n == 0;
    if (n == doubles.length) doubles = Arrays.copyOf(doubles, grow(doubles.length));
    doubles[n++] = x;
  }

  /** Adds a non-NULL value of the LONG family (a ULONG with its sign bit flipped). */
  void addLong(long x) {
    sorted = n == 0;
    if (n == longs.length) longs = Arrays.copyOf(longs, grow(longs.length));
    longs[n++] = x;
  }

  /** The new capacity of a full array of {@code length} eight-byte values, the growth charged. */
  private int grow(int length) {
    int capacity = length + Math.max(8, length >> 1);
    charge(8L * (capacity - length));
    return capacity;
  }

  private void charge(long bytes) {
    memory.add(bytes);
    charged += bytes;
  }

  @Override
  long size() {
    return 64 + charged;
  }

  @Override
  Object result() {
    if (n == 0) return null;
    if (!sorted && (longs != null || doubles != null)) {
      selectPositions();
    } else if (!sorted) {
      if (family == Kernels.Family.BYTES && objects.get(0) instanceof String) objects.sort((a, b) -> utf8Order((String) a, (String) b));
      else objects.sort((a, b) -> Kernels.compareObjects(family, a, b));
      sorted = true;
    }
    if (continuous) {
      double rn = (n - 1) * quantile.fraction().doubleValue();
      long lo = (long) Math.floor(rn);
      long hi = (long) Math.ceil(rn);
      double low = number((int) lo);
      if (lo == hi) return low;
      return low + (number((int) hi) - low) * (rn - lo);
    }
    return value(index(n, quantile.fraction()));
  }

  /**
   * Puts into place the one or two values the answer reads, as a sort would (NaN last, as NaN sorts above every
   * number in SQL): {@link Select}, linear on average, instead of sorting all n values.
   */
  private void selectPositions() {
    int p;
    boolean both;
    if (continuous) {
      double rn = (n - 1) * quantile.fraction().doubleValue();
      int lo = (int) Math.floor(rn);
      both = lo != (int) Math.ceil(rn);
      p = quantile.descending() ? n - 1 - lo - (both ? 1 : 0) : lo; // the lower of the two ascending positions
    } else {
      int at = index(n, quantile.fraction());
      p = quantile.descending() ? n - 1 - at : at;
      both = false;
    }
    if (longs != null) {
      Select.select(longs, n, p, both);
      return;
    }
    int m = Select.nanLast(doubles, n); // NaN from position m on
    if (p < m) Select.select(doubles, m, p, both && p + 1 < m);
  }

  /**
   * Strings in the order of their UTF-8 bytes (SQL's order here, as {@code Kernels.compareObjects} has it) without
   * encoding them: code point order. UTF-16 order differs only where a surrogate (half of a code point above
   * U+FFFF) meets a character from U+E000 to U+FFFF, which is below it in code point order.
   */
  static int utf8Order(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        boolean sx = Character.isSurrogate(x);
        boolean sy = Character.isSurrogate(y);
        return sx == sy ? Character.compare(x, y) : sx ? 1 : -1;
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  /** The position (0-based, in the call's order) of percentile_disc(f) among {@code n} values. */
  static int index(int n, Number f) {
    long floored;
    if (f instanceof BigDecimal exact) {
      floored = BigDecimal.valueOf(n).subtract(exact.multiply(BigDecimal.valueOf(n))).setScale(0, RoundingMode.FLOOR)
          .longValueExact();
    } else {
      floored = (long) Math.floor(n - (double) n * f.doubleValue());
    }
    return (int) (Math.max(1, n - floored) - 1);
  }

  /** The value at position {@code p} in the call's order, as a DOUBLE (percentile_cont reads DOUBLE only). */
  private double number(int p) {
    return doubles[quantile.descending() ? n - 1 - p : p];
  }

  /** The value at position {@code p} in the call's order, in physical form. */
  private Object value(int p) {
    int at = quantile.descending() ? n - 1 - p : p;
    if (longs != null) return family == Kernels.Family.ULONG ? longs[at] ^ Long.MIN_VALUE : longs[at];
    if (doubles != null) return doubles[at];
    return objects.get(at);
  }
}
