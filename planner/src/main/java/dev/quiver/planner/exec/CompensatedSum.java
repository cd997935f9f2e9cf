package dev.quiver.planner.exec;

/**
 * Sums of doubles kept as an unevaluated pair {@code hi + lo} (a "double-double"): every addition is split exactly
 * into its rounded result and its rounding error (Knuth's TwoSum, six additions and no branch), the error added to
 * {@code lo}. The pair carries about 106 bits, so the answer, {@code hi + lo} rounded once, is the exact sum of the
 * values correctly rounded to a double unless the errors still lost in {@code lo} (at most about
 * {@code n·2^-106·Σ|x|}) carry the exact sum across a rounding boundary, which takes heavy cancellation over very
 * many rows. That is what makes a double sum's answer independent of the order of the rows and of how they are split
 * between the scan's tasks (states of tasks are merged the same way), so it can be split like the exact sums.
 *
 * <p>Not covered: infinities and NaN (once {@code hi} is not finite it is the answer, as in a plain sum: NaN with
 * NaN or with both infinities), and an intermediate sum beyond ±Double.MAX_VALUE, which overflows to an infinity
 * whatever the exact total, as a plain sum does; which rows reach such an intermediate depends on their order.
 *
 * <p>States are kept two doubles per group side by side in one array ({@code [2g]} = hi, {@code [2g+1]} = lo), so a
 * group's update touches one cache line.
 */
final class CompensatedSum {
  private CompensatedSum() {}

  /** Adds {@code x} to the pair at {@code s[at]} (hi), {@code s[at + 1]} (lo). */
  static void add(double[] s, int at, double x) {
    double a = s[at];
    double sum = a + x;
    double bv = sum - a;
    s[at + 1] += (a - (sum - bv)) + (x - bv);
    s[at] = sum;
  }

  /** Adds the pair {@code (hi, lo)} (another state) to the pair at {@code s[at]}. */
  static void merge(double[] s, int at, double hi, double lo) {
    add(s, at, hi);
    s[at + 1] += lo;
  }

  /** The pair's value rounded once; an infinity or NaN when the sum reached one. */
  static double value(double hi, double lo) {
    return Double.isFinite(hi) ? hi + lo : hi;
  }
}
