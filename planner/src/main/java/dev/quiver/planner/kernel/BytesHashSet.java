package dev.quiver.planner.kernel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A set of byte strings probed with bytes that stay where they are (in an Arrow buffer): open addressing over
 * item indexes, each probe hashing the value's bytes in place eight at a time, then comparing hash, length and
 * bytes. Built once per constant IN list; a probe costs the value's length, whatever the number of items (a
 * linear probe of 100,000 strings took 50-61 s over 150,000 rows).
 */
final class BytesHashSet {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final long SEED = 0x9E3779B97F4A7C15L;

  private final byte[][] items;
  private final long[] hashes;
  /** Item index + 1 per slot; 0 is empty. */
  private final int[] slots;
  private final int mask;

  BytesHashSet(byte[][] items) {
    this.items = items;
    this.hashes = new long[items.length];
    int capacity = Integer.highestOneBit(Math.max(4, items.length * 2 - 1)) << 1;
    this.slots = new int[capacity];
    this.mask = capacity - 1;
    for (int i = 0; i < items.length; i++) {
      long h = hash(items[i]);
      hashes[i] = h;
      int s = (int) h & mask;
      while (slots[s] != 0) {
        if (Arrays.equals(items[slots[s] - 1], items[i])) break; // a repeated item: one slot is enough
        s = (s + 1) & mask;
      }
      if (slots[s] == 0) slots[s] = i + 1;
    }
  }

  int size() {
    return items.length;
  }

  /** Whether the {@code length} bytes at {@code address} are one of the items. */
  boolean containsAt(long address, int length) {
    long h = hashAt(address, length);
    for (int s = (int) h & mask; ; s = (s + 1) & mask) {
      int slot = slots[s];
      if (slot == 0) return false;
      byte[] item = items[slot - 1];
      if (hashes[slot - 1] == h && item.length == length && equalAt(address, item)) return true;
    }
  }

  boolean contains(byte[] value) {
    long h = hash(value);
    for (int s = (int) h & mask; ; s = (s + 1) & mask) {
      int slot = slots[s];
      if (slot == 0) return false;
      if (hashes[slot - 1] == h && Arrays.equals(items[slot - 1], value)) return true;
    }
  }

  private static boolean equalAt(long address, byte[] item) {
    int k = 0;
    for (; k + 8 <= item.length; k += 8) {
      if (MemoryUtil.getLong(address + k) != (long) LONGS.get(item, k)) return false;
    }
    for (; k < item.length; k++) {
      if (MemoryUtil.getByte(address + k) != item[k]) return false;
    }
    return true;
  }

  /** The hash of the {@code length} bytes at {@code address}; equal to {@link #hash(byte[])} of the same bytes. */
  static long hashAt(long address, int length) {
    long h = SEED ^ length;
    int k = 0;
    for (; k + 8 <= length; k += 8) h = step(h, MemoryUtil.getLong(address + k));
    long tail = 0;
    for (int j = 0; k < length; k++, j++) tail |= (MemoryUtil.getByte(address + k) & 0xFFL) << (8 * j);
    return finish(step(h, tail));
  }

  static long hash(byte[] b) {
    long h = SEED ^ b.length;
    int k = 0;
    for (; k + 8 <= b.length; k += 8) h = step(h, (long) LONGS.get(b, k));
    long tail = 0;
    for (int j = 0; k < b.length; k++, j++) tail |= (b[k] & 0xFFL) << (8 * j);
    return finish(step(h, tail));
  }

  private static long step(long h, long word) {
    return Long.rotateLeft(h ^ (word * 0xC2B2AE3D27D4EB4FL), 31) * SEED;
  }

  /** Mixes the high bits into the low ones, which pick the slot. */
  private static long finish(long h) {
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    return h;
  }
}
