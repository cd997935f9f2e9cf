package dev.quiver.planner.exec;

import dev.quiver.common.ArrowBulk;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Partitions rows by a hash of their group keys (a spilling aggregation's partitions, {@link AggregateSpill}): every
 * row of a group lands in the same partition, whichever batch it is in, because the hash depends only on the key's
 * value, taken as the group table compares it ({@link GroupTable}: -0.0 is 0.0, every NaN is one NaN, strings and
 * binaries by their bytes, NULL is one value). The partition is taken from the hash's high bits; the group tables
 * probe from their own hashes' low bits, so the keys of one partition still spread over the slots of its table.
 */
final class KeyPartitions {
  private static final long NULL_HASH = 0x5DEECE66DL;

  private KeyPartitions() {}

  /** Each row's partition in {@code [0, parts)} by the hash of the first {@code keyColumns} columns of {@code b}. */
  static int[] of(VectorSchemaRoot b, int keyColumns, int parts) {
    return of(b, keyColumns, parts, 0);
  }

  /**
   * As above, at {@code level}: the rows of one partition of level {@code l} spread over the partitions of level
   * {@code l + 1} (the hash is salted by the level and mixed again, so its partition bits are new ones).
   */
  static int[] of(VectorSchemaRoot b, int keyColumns, int parts, int level) {
    java.util.List<FieldVector> keys = new java.util.ArrayList<>();
    for (int c = 0; c < keyColumns; c++) keys.add(b.getVector(c));
    return of(keys, b.getRowCount(), parts, level);
  }

  /** As above, over the first {@code n} rows of the key columns {@code keys}. */
  static int[] of(java.util.List<FieldVector> keys, int n, int parts, int level) {
    long[] h = new long[n];
    long[] scratch = null;
    for (FieldVector v : keys) {
      boolean nulls = v.getNullCount() > 0;
      long[] longs = ArrowBulk.longs(v, n, scratch);
      if (longs != null) {
        scratch = longs;
        for (int i = 0; i < n; i++) h[i] = step(h[i], nulls && v.isNull(i) ? NULL_HASH : longs[i]);
      } else if (v instanceof Float8Vector || v instanceof Float4Vector) {
        for (int i = 0; i < n; i++) {
          if (nulls && v.isNull(i)) {
            h[i] = step(h[i], NULL_HASH);
            continue;
          }
          double d = v instanceof Float8Vector f8 ? f8.get(i) : ((Float4Vector) v).get(i);
          h[i] = step(h[i], d == 0.0 ? 0L : Double.doubleToLongBits(d)); // -0.0 is 0.0; one NaN
        }
      } else if (v instanceof BaseVariableWidthVector w) {
        long offsets = w.getOffsetBuffer().memoryAddress();
        long data = w.getDataBuffer().memoryAddress();
        int from = n == 0 ? 0 : MemoryUtil.getInt(offsets);
        for (int i = 0; i < n; i++) {
          int to = MemoryUtil.getInt(offsets + 4L * (i + 1));
          h[i] = step(h[i], nulls && v.isNull(i) ? NULL_HASH : bytes(data + from, to - from));
          from = to;
        }
      } else if (v instanceof BaseLargeVariableWidthVector w) {
        long offsets = w.getOffsetBuffer().memoryAddress();
        long data = w.getDataBuffer().memoryAddress();
        for (int i = 0; i < n; i++) {
          long from = MemoryUtil.getLong(offsets + 8L * i);
          long to = MemoryUtil.getLong(offsets + 8L * (i + 1));
          h[i] = step(h[i], nulls && v.isNull(i) ? NULL_HASH : bytes(data + from, (int) (to - from)));
        }
      } else {
        for (int i = 0; i < n; i++) {
          Object o = v.isNull(i) ? null : v.getObject(i);
          long x = o == null ? NULL_HASH : o instanceof byte[] a ? Arrays.hashCode(a) : Objects.hashCode(o);
          h[i] = step(h[i], x);
        }
      }
    }
    int[] part = new int[n];
    long salt = level * 0xD6E8FEB86659FD93L;
    for (int i = 0; i < n; i++) part[i] = (int) (((mix(h[i] ^ salt) >>> 32) * parts) >>> 32);
    return part;
  }

  private static long step(long h, long x) {
    return Long.rotateLeft(h ^ mix(x), 27) * 0x9E3779B97F4A7C15L;
  }

  /** Murmur3's 64-bit finalizer. */
  private static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    x *= 0xC4CEB9FE1A85EC53L;
    x ^= x >>> 33;
    return x;
  }

  /**
   * A hash of the {@code len} bytes at {@code address}, read 8 at a time straight from the buffer's memory (the
   * vector's own offsets bound them, as in {@link Gather}).
   */
  private static long bytes(long address, int len) {
    long h = len * 0xC2B2AE3D27D4EB4FL;
    int j = 0;
    for (; j + 8 <= len; j += 8) h = Long.rotateLeft(h ^ MemoryUtil.getLong(address + j) * 0x9E3779B97F4A7C15L, 29);
    long tail = 0;
    for (int k = len - 1; k >= j; k--) tail = tail << 8 | (MemoryUtil.getByte(address + k) & 0xFF);
    return h ^ tail * 0xFF51AFD7ED558CCDL;
  }
}
