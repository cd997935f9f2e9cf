package dev.quiver.planner.exec;

/** Sorting of primitive long keys that carry a value each, and searching the sorted keys. */
final class LongSort {
  private static final int BITS = 16;
  private static final int BUCKETS = 1 << BITS;

  private LongSort() {}

  /**
   * Sorts {@code keys} ascending (as signed longs), moving {@code values} with them; stable, so equal keys keep their
   * order. A least-significant-digit radix sort, 16 bits a pass, a pass skipped when every key has the same digit.
   */
  static void byKey(long[] keys, long[] values) {
    int n = keys.length;
    if (values.length != n) throw new IllegalArgumentException("one value a key");
    if (n < 64) {
      insertion(keys, values);
      return;
    }
    long[] k1 = keys;
    long[] v1 = values;
    long[] k2 = new long[n];
    long[] v2 = new long[n];
    int[] count = new int[BUCKETS];
    for (int shift = 0; shift < 64; shift += BITS) {
      java.util.Arrays.fill(count, 0);
      for (int i = 0; i < n; i++) count[digit(k1[i], shift)]++;
      if (count[digit(k1[0], shift)] == n) continue;
      int sum = 0;
      for (int d = 0; d < BUCKETS; d++) {
        int c = count[d];
        count[d] = sum;
        sum += c;
      }
      for (int i = 0; i < n; i++) {
        int at = count[digit(k1[i], shift)]++;
        k2[at] = k1[i];
        v2[at] = v1[i];
      }
      long[] t = k1;
      k1 = k2;
      k2 = t;
      t = v1;
      v1 = v2;
      v2 = t;
    }
    if (k1 != keys) {
      System.arraycopy(k1, 0, keys, 0, n);
      System.arraycopy(v1, 0, values, 0, n);
    }
  }

  /** The digit of {@code key} at {@code shift}, the sign bit flipped so that negative keys sort first. */
  private static int digit(long key, int shift) {
    return (int) (((key ^ Long.MIN_VALUE) >>> shift) & (BUCKETS - 1));
  }

  private static void insertion(long[] keys, long[] values) {
    for (int i = 1; i < keys.length; i++) {
      long k = keys[i];
      long v = values[i];
      int j = i - 1;
      while (j >= 0 && keys[j] > k) {
        keys[j + 1] = keys[j];
        values[j + 1] = values[j];
        j--;
      }
      keys[j + 1] = k;
      values[j + 1] = v;
    }
  }

  /**
   * Moves the rows of {@code perm[0, size)} whose key is NULL ({@code isNull[row]}) first or last, each part keeping
   * its order: after a stable sort of the keys, the NULLs' placement. {@code scratch} holds at least size values.
   */
  static void nullsApart(long[] perm, boolean[] isNull, boolean nullsFirst, long[] scratch, int size) {
    int at = 0;
    for (int pass = 0; pass < 2; pass++) {
      boolean wantNull = (pass == 0) == nullsFirst;
      for (int p = 0; p < size; p++) if (isNull[(int) perm[p]] == wantNull) scratch[at++] = perm[p];
    }
    System.arraycopy(scratch, 0, perm, 0, size);
  }

  /** The index of the first of the ascending {@code sorted} keys that is at least {@code value} (its length: none). */
  static int firstAtLeast(long[] sorted, long value) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
