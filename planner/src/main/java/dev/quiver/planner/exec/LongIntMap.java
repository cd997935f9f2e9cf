package dev.quiver.planner.exec;

import java.util.Arrays;

/**
 * An open-addressing hash map from long to non-negative int, without boxing: the hash table of
 * aggregations and joins on one integer-like key (BIGINT, INTEGER, DATE, TIMESTAMP …).
 */
final class LongIntMap {
  private long[] keys;
  private int[] values;
  private int size;
  private int mask;

  LongIntMap() {
    keys = new long[16];
    values = new int[16];
    Arrays.fill(values, -1);
    mask = 15;
  }

  private static int hash(long k) {
    long h = k * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** The value of {@code k}, or -1. */
  int get(long k) {
    int i = hash(k) & mask;
    while (true) {
      int v = values[i];
      if (v < 0) return -1;
      if (keys[i] == k) return v;
      i = (i + 1) & mask;
    }
  }

  /** Sets {@code k} to {@code value} (non-negative). */
  void put(long k, int value) {
    if (2 * (size + 1) > keys.length) grow();
    int i = hash(k) & mask;
    while (values[i] >= 0 && keys[i] != k) i = (i + 1) & mask;
    if (values[i] < 0) size++;
    keys[i] = k;
    values[i] = value;
  }

  int size() {
    return size;
  }

  /** Bytes held, for memory accounting. */
  long bytes() {
    return 12L * keys.length;
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new int[oldKeys.length * 2];
    Arrays.fill(values, -1);
    mask = keys.length - 1;
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) if (oldValues[i] >= 0) put(oldKeys[i], oldValues[i]);
  }
}
