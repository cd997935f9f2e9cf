package dev.quiver.planner.exec;

import java.util.Arrays;

/**
 * The group table of several key columns while their dense ids fit side by side in 63 bits: each row's ids packed
 * into one long, looked up in one {@link LongIntMap} — one probe a row whatever the number of columns, and no table
 * per intermediate level ({@link GroupTable}'s fallback; H2O's six-key query held five tables of ten million entries
 * there). Each column starts with {@value #MIN_BITS} bits and widens to exactly what its distinct count needs (H2O's
 * six keys need 62 bits); on widening the table is rebuilt from the groups' keys (a column widens once per doubling
 * of its distinct values, mostly early, while there are few groups).
 */
final class PackedKeys {
  private static final int MIN_BITS = 4;
  private final int[] bits;
  private final int[] shifts;
  private LongIntMap table = new LongIntMap();
  private long[] keys = new long[0];

  /** Whether {@code columns} key columns start packed. */
  static boolean fits(int columns) {
    return columns > 1 && columns * MIN_BITS <= 63;
  }

  /** Sizes the table, still empty, for {@code groups} groups. */
  void expect(int groups) {
    table = new LongIntMap(groups);
  }

  PackedKeys(int columns) {
    bits = new int[columns];
    shifts = new int[columns];
    Arrays.fill(bits, MIN_BITS);
    for (int c = 1; c < columns; c++) shifts[c] = shifts[c - 1] + MIN_BITS;
  }

  /**
   * Widens the columns whose distinct counts ({@code distinct[c]}) outgrew their bits and rebuilds the table from the
   * keys of groups {@code [0, groups)} ({@code groupKeys[c][g]}); false when the widths no longer fit in 63 bits.
   */
  boolean fit(int[] distinct, int[][] groupKeys, int groups) {
    boolean widened = false;
    for (int c = 0; c < bits.length; c++) {
      if (bits[c] < 31 && distinct[c] > (1 << bits[c])) {
        bits[c] = Math.min(31, 64 - Long.numberOfLeadingZeros(distinct[c] - 1L));
        widened = true;
      }
    }
    if (!widened) return true;
    int total = 0;
    for (int c = 0; c < bits.length; c++) {
      shifts[c] = total;
      total += bits[c];
    }
    if (total > 63) return false;
    LongIntMap rebuilt = new LongIntMap(groups);
    for (int g = 0; g < groups; g++) {
      long key = 0;
      for (int c = 0; c < bits.length; c++) key |= (long) groupKeys[c][g] << shifts[c];
      rebuilt.put(key, g);
    }
    table = rebuilt;
    return true;
  }

  /** The packed keys of rows {@code [lo, hi)} from each column's ids ({@code ids[c][i]}), in slots {@code [lo, hi)}. */
  long[] pack(int[][] ids, int lo, int hi) {
    if (keys.length < hi) keys = new long[Math.max(hi, 1024)];
    long[] out = keys;
    int[] first = ids[0];
    for (int i = lo; i < hi; i++) out[i] = first[i];
    for (int c = 1; c < ids.length; c++) {
      int[] cur = ids[c];
      int shift = shifts[c];
      for (int i = lo; i < hi; i++) out[i] |= (long) cur[i] << shift;
    }
    return out;
  }

  /** Packed key → group. */
  LongIntMap table() {
    return table;
  }

  long bytes() {
    return table.bytes() + 8L * keys.length;
  }
}
