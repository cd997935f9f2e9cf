package dev.quiver.planner.exec;

import java.util.Arrays;

/**
 * Selection (Hoare's quickselect, three-way partitions around a median of three, insertion sort for short ranges,
 * a full sort when the partitions keep going badly): puts into position k of a range the value that a sort of the
 * range would put there, everything before it no greater and everything after it no smaller, in linear time on
 * average. A percentile needs one or two order statistics, not the whole sort (DuckDB selects as well).
 *
 * <p>Doubles are ordered as {@link Arrays#sort(double[])} orders them — -0.0 before 0.0, NaN after every number —
 * so that the answer is the sort's to the bit: NaNs are moved to the end first ({@link #nanLast}), the rest compared
 * by {@link #key}.
 */
final class Select {
  private Select() {}

  /** Moves the NaNs of {@code a[0, n)} to its end; returns how many values are not NaN (the NaNs start there). */
  static int nanLast(double[] a, int n) {
    int m = n;
    for (int i = 0; i < m; ) {
      if (Double.isNaN(a[i])) {
        m--;
        double t = a[i];
        a[i] = a[m];
        a[m] = t;
      } else {
        i++;
      }
    }
    return m;
  }

  /** A long ordered as the double is by {@link Arrays#sort(double[])} (for numbers: -0.0 below 0.0). */
  static long key(double d) {
    long b = Double.doubleToRawLongBits(d);
    return b ^ ((b >> 63) & Long.MAX_VALUE);
  }

  /** Positions {@code k} and, when {@code both}, {@code k + 1} of {@code a[0, n)} (no NaN) as a sort puts them. */
  static void select(double[] a, int n, int k, boolean both) {
    int lo = 0;
    int hi = n;
    int budget = 2 * (32 - Integer.numberOfLeadingZeros(n)) + 8;
    while (hi - lo > 16) {
      if (budget-- == 0) break; // partitions going badly: sort what is left
      int mid = (lo + hi) >>> 1;
      long p = median(key(a[lo]), key(a[mid]), key(a[hi - 1]));
      int lt = lo;
      int i = lo;
      int gt = hi - 1;
      while (i <= gt) {
        long ki = key(a[i]);
        if (ki < p) {
          swap(a, lt++, i++);
        } else if (ki > p) {
          swap(a, i, gt--);
        } else {
          i++;
        }
      }
      // [lo, lt) below the pivot, [lt, gt] equal to it, (gt, hi) above
      if (k < lt) {
        if (both && k + 1 >= lt) {
          largestTo(a, lo, lt); // k is the last of the lower part; k + 1 is the pivot, in place
          return;
        }
        hi = lt;
      } else if (k > gt) {
        lo = gt + 1;
      } else {
        if (both && k + 1 > gt && k + 1 < n) smallestTo(a, k + 1, n);
        return;
      }
    }
    Arrays.sort(a, lo, hi);
    if (both && hi == k + 1 && k + 1 < n) smallestTo(a, k + 1, n);
  }

  /** The largest of {@code a[lo, hi)} to position {@code hi - 1}. */
  private static void largestTo(double[] a, int lo, int hi) {
    int best = lo;
    for (int i = lo + 1; i < hi; i++) if (key(a[i]) > key(a[best])) best = i;
    swap(a, best, hi - 1);
  }

  /** The smallest of {@code a[at, n)} to position {@code at}. */
  private static void smallestTo(double[] a, int at, int n) {
    int best = at;
    for (int i = at + 1; i < n; i++) if (key(a[i]) < key(a[best])) best = i;
    swap(a, best, at);
  }

  /** As {@link #select(double[], int, int, boolean)}, for longs in signed order. */
  static void select(long[] a, int n, int k, boolean both) {
    int lo = 0;
    int hi = n;
    int budget = 2 * (32 - Integer.numberOfLeadingZeros(n)) + 8;
    while (hi - lo > 16) {
      if (budget-- == 0) break; // partitions going badly: sort what is left
      int mid = (lo + hi) >>> 1;
      long p = median(a[lo], a[mid], a[hi - 1]);
      int lt = lo;
      int i = lo;
      int gt = hi - 1;
      while (i <= gt) {
        long ki = a[i];
        if (ki < p) {
          swap(a, lt++, i++);
        } else if (ki > p) {
          swap(a, i, gt--);
        } else {
          i++;
        }
      }
      if (k < lt) {
        if (both && k + 1 >= lt) {
          int best = lo;
          for (int j = lo + 1; j < lt; j++) if (a[j] > a[best]) best = j;
          swap(a, best, k);
          return;
        }
        hi = lt;
      } else if (k > gt) {
        lo = gt + 1;
      } else {
        if (both && k + 1 > gt && k + 1 < n) smallestTo(a, k + 1, n);
        return;
      }
    }
    Arrays.sort(a, lo, hi);
    if (both && hi == k + 1 && k + 1 < n) smallestTo(a, k + 1, n);
  }

  private static void smallestTo(long[] a, int at, int n) {
    int best = at;
    for (int i = at + 1; i < n; i++) if (a[i] < a[best]) best = i;
    swap(a, best, at);
  }

  private static long median(long x, long y, long z) {
    return Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
  }

  private static void swap(double[] a, int i, int j) {
    double t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  private static void swap(long[] a, int i, int j) {
    long t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
