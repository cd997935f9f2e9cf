package dev.quiver.planner.exec;

import java.util.Arrays;

/**
 * An open-addressing hash map from long to non-negative int, without boxing: the hash table of
 * aggregations and joins on one integer-like key (BIGINT, INTEGER, DATE, TIMESTAMP …). Each slot keeps its key
 * and value side by side in one {@code long[]} (linear probing), so a lookup touches one cache line, not one in a
 * key array and another in a value array (measured: the lookups were a fifth of TPC-H q07's time).
 */
final class LongIntMap {
  private static final long EMPTY = -1;
  /** {@code slots[2i]}: the key; {@code slots[2i + 1]}: its value, or {@link #EMPTY}. */
  private long[] slots;
  private int size;
  private int mask;

  LongIntMap() {
    this(8);
  }

  /** A map sized for {@code expected} keys without growing. */
  LongIntMap(int expected) {
    int capacity = Integer.highestOneBit(Math.max(8, expected) * 2 - 1) << 1;
    slots = new long[2 * capacity];
    for (int i = 1; i < slots.length; i += 2) slots[i] = EMPTY;
    mask = capacity - 1;
  }

  private static int hash(long k) {
    long h = k * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** The value of {@code k}, or -1. */
  int get(long k) {
    long[] s = slots;
    int i = hash(k) & mask;
    while (true) {
      long v = s[2 * i + 1];
      if (v == EMPTY) return -1;
      if (s[2 * i] == k) return (int) v;
      i = (i + 1) & mask;
    }
  }

  /** Sets {@code k} to {@code value} (non-negative). */
  void put(long k, int value) {
    replace(k, value);
  }

  /**
   * The value {@code k} had (then it is set to {@code value}), or -1 when it had none (then it gets {@code value}).
   */
  int replace(long k, int value) {
    if (2 * (size + 1) > mask + 1) grow();
    long[] s = slots;
    int i = hash(k) & mask;
    while (s[2 * i + 1] != EMPTY && s[2 * i] != k) i = (i + 1) & mask;
    long old = s[2 * i + 1];
    if (old == EMPTY) size++;
    s[2 * i] = k;
    s[2 * i + 1] = value;
    return (int) old;
  }

  /** The keys, in no particular order. */
  long[] keys() {
    long[] out = new long[size];
    int n = 0;
    for (int i = 0; i < slots.length; i += 2) if (slots[i + 1] != EMPTY) out[n++] = slots[i];
    return out;
  }

  int size() {
    return size;
  }

  /** Bytes held, for memory accounting. */
  long bytes() {
    return 8L * slots.length;
  }

  private void grow() {
    long[] old = slots;
    int capacity = (mask + 1) * 2;
    slots = new long[2 * capacity];
    for (int i = 1; i < slots.length; i += 2) slots[i] = EMPTY;
    mask = capacity - 1;
    size = 0;
    for (int i = 0; i < old.length; i += 2) if (old[i + 1] != EMPTY) replace(old[i], (int) old[i + 1]);
  }
}
