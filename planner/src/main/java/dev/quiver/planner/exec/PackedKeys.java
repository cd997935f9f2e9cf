package dev.quiver.planner.exec;

import java.util.Arrays;

/**
 * The group table of several key columns while their dense ids fit side by side in 63 bits: each row's ids packed
 * into one long, looked up in one {@link LongIntMap} — one probe a row whatever the number of columns, and no table
 * per intermediate level ({@link GroupTable}'s fallback; H2O's six-key query held five tables of ten million entries
 * there). Each column starts with {@value #MIN_BITS} bits and widens to exactly what its distinct count needs (H2O's
 * six keys need 62 bits); on widening the table is rebuilt from the groups' keys (a column widens once per doubling
 * of its distinct values, mostly early, while there are few groups). While the packed key has at most
 * {@value #DIRECT_BITS} bits (two keys of up to 256 values each, say) it indexes an array instead ({@link #direct}):
 * no hashing, one read a row (H2O q2 and q9: 100 × 100 keys, where the hash table's probes were a sixth of q9).
 */
final class PackedKeys {
  private static final int MIN_BITS = 4;
  private final int[] bits;
  private final int[] shifts;
  private static final int DIRECT_BITS = 16;
  private LongIntMap table = new LongIntMap();
  /** Packed key → group + 1 (0: none yet) while the key has at most {@link #DIRECT_BITS} bits; else null. */
  private int[] direct;
  private long[] keys = new long[0];

  /** Whether {@code columns} key columns start packed. */
  static boolean fits(int columns) {
    return columns > 1 && columns * MIN_BITS <= 63;
  }

  /** Sizes the table, still empty, for {@code groups} groups. */
  void expect(int groups) {
    if (direct == null) table = new LongIntMap(groups);
  }

  PackedKeys(int columns) {
    bits = new int[columns];
    shifts = new int[columns];
    Arrays.fill(bits, MIN_BITS);
    for (int c = 1; c < columns; c++) shifts[c] = shifts[c - 1] + MIN_BITS;
    if (columns * MIN_BITS <= DIRECT_BITS) direct = new int[1 << (columns * MIN_BITS)];
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
    direct = total <= DIRECT_BITS ? new int[1 << total] : null;
    LongIntMap rebuilt = direct == null ? new LongIntMap(groups) : null;
    for (int g = 0; g < groups; g++) {
      long key = 0;
      for (int c = 0; c < bits.length; c++) key |= (long) groupKeys[c][g] << shifts[c];
      if (direct != null) direct[(int) key] = g + 1;
      else rebuilt.put(key, g);
    }
    if (rebuilt != null) table = rebuilt;
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

  /** Packed key → group, when {@link #direct} is null. */
  LongIntMap table() {
    return table;
  }

  /** Packed key → group + 1 (0: not seen), or null when the key is too wide for an array. */
  int[] direct() {
    return direct;
  }

  long bytes() {
    return (direct != null ? 4L * direct.length : table.bytes()) + 8L * keys.length;
  }
}
