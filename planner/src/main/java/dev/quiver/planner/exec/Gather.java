package dev.quiver.planner.exec;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Builds a column from rows picked out of several vectors of the same type — the output side of joins, sorts and
 * windows, which address their retained rows as (batch, row) references ({@link Rows}). Fixed-width values (integers,
 * dates, timestamps, decimals, fixed-size binary) move as one 1/2/4/8-byte load and store a value, or one copy for
 * other widths, reading the source buffers' memory directly; strings and binaries are measured first, then copied
 * into one data buffer of the right size; validity is assembled a byte (8 rows) at a time. Any other vector (booleans,
 * nested types) falls back to Arrow's {@code copyFromSafe}. A reference below 0 is a NULL row.
 * <p>Measured on TPC-H SF 1 q07 (1.8 M joined rows through five joins): Arrow's per-value {@code copyFromSafe} (a
 * bounds-checked, reference-count-checked access per value and column) was the largest cost of the join operator.
 * <p>Safe because every row index read comes from a reference to a row of a retained batch (below its value count),
 * and every write is below {@code count} in a vector allocated for {@code count} values (and, for variable width, for
 * the measured byte total).
 */
final class Gather {
  private Gather() {}

  /**
   * A new vector of {@code field} holding, at {@code k}, column {@code column} of the row {@code refs[from + k]}
   * ({@link Rows#ref}) of {@code batches}, for {@code k < count}.
   */
  static FieldVector column(FieldVector[] sources, Field field, long[] refs, int from, int count, BufferAllocator allocator) {
    FieldVector dst = field.createVector(allocator);
    try {
      if (dst instanceof BaseFixedWidthVector f && !(dst instanceof BitVector)) {
        fixed(sources, f, refs, from, count);
      } else if (dst instanceof BaseVariableWidthVector v) {
        variable(sources, v, refs, from, count);
      } else {
        dst.setInitialCapacity(Math.max(count, 1));
        dst.allocateNew();
        for (int k = 0; k < count; k++) {
          long r = refs[from + k];
          if (r < 0) dst.setNull(k);
          else dst.copyFromSafe(Rows.row(r), k, sources[Rows.batch(r)]);
        }
      }
      dst.setValueCount(count);
      return dst;
    } catch (RuntimeException | Error e) {
      dst.close();
      throw e;
    }
  }

  private static boolean valid(long validityAddress, int row) {
    return ((MemoryUtil.getByte(validityAddress + (row >>> 3)) >>> (row & 7)) & 1) != 0;
  }

  /** One fixed-width value from address {@code src} to {@code to}: a single load and store for 1, 2, 4 or 8 bytes. */
  private static void copyValue(long src, long to, int width) {
    switch (width) {
      case 8 -> MemoryUtil.putLong(to, MemoryUtil.getLong(src));
      case 4 -> MemoryUtil.putInt(to, MemoryUtil.getInt(src));
      case 2 -> MemoryUtil.putShort(to, MemoryUtil.getShort(src));
      case 1 -> MemoryUtil.putByte(to, MemoryUtil.getByte(src));
      default -> MemoryUtil.copyMemory(src, to, width);
    }
  }

  private static void fixed(FieldVector[] sources, BaseFixedWidthVector dst, long[] refs, int from, int count) {
    dst.allocateNew(Math.max(count, 1)); // validity zeroed: every row starts NULL
    int width = dst.getTypeWidth();
    long[] data = new long[sources.length];
    long[] validity = new long[sources.length];
    for (int b = 0; b < sources.length; b++) {
      if (sources[b] == null) continue;
      data[b] = sources[b].getDataBuffer().memoryAddress();
      validity[b] = sources[b].getValidityBuffer().memoryAddress();
    }
    long out = dst.getDataBuffer().memoryAddress();
    long outValidity = dst.getValidityBuffer().memoryAddress();
    int bits = 0;
    for (int k = 0; k < count; k++) {
      long r = refs[from + k];
      long to = out + (long) k * width;
      int b = r < 0 ? 0 : Rows.batch(r);
      int row = r < 0 ? 0 : Rows.row(r);
      if (r >= 0 && valid(validity[b], row)) {
        bits |= 1 << (k & 7);
        copyValue(data[b] + (long) row * width, to, width);
      } else {
        // a NULL row: its slot is zeroed (reused memory must never carry another query's bytes to a client)
        MemoryUtil.setMemory(to, width, (byte) 0);
      }
      if ((k & 7) == 7) {
        MemoryUtil.putByte(outValidity + (k >>> 3), (byte) bits);
        bits = 0;
      }
    }
    if ((count & 7) != 0) MemoryUtil.putByte(outValidity + (count >>> 3), (byte) bits);
  }

  private static void variable(FieldVector[] sources, BaseVariableWidthVector dst, long[] refs, int from, int count) {
    long[] data = new long[sources.length];
    long[] offsets = new long[sources.length];
    long[] validity = new long[sources.length];
    for (int b = 0; b < sources.length; b++) {
      if (sources[b] == null) continue;
      data[b] = sources[b].getDataBuffer().memoryAddress();
      offsets[b] = sources[b].getOffsetBuffer().memoryAddress();
      validity[b] = sources[b].getValidityBuffer().memoryAddress();
    }
    long total = 0;
    for (int k = 0; k < count; k++) {
      long r = refs[from + k];
      if (r < 0) continue;
      int b = Rows.batch(r);
      int row = Rows.row(r);
      if (!valid(validity[b], row)) continue;
      long at = offsets[b] + 4L * row;
      total += MemoryUtil.getInt(at + 4) - MemoryUtil.getInt(at);
    }
    dst.allocateNew(Math.max(total, 1), Math.max(count, 1));
    long out = dst.getDataBuffer().memoryAddress();
    long outOffsets = dst.getOffsetBuffer().memoryAddress();
    MemoryUtil.putInt(outOffsets, 0);
    long outValidity = dst.getValidityBuffer().memoryAddress();
    int end = 0;
    int bits = 0;
    for (int k = 0; k < count; k++) {
      long r = refs[from + k];
      if (r >= 0) {
        int b = Rows.batch(r);
        int row = Rows.row(r);
        if (valid(validity[b], row)) {
          bits |= 1 << (k & 7);
          long at = offsets[b] + 4L * row;
          int start = MemoryUtil.getInt(at);
          int len = MemoryUtil.getInt(at + 4) - start;
          if (len > 0) MemoryUtil.copyMemory(data[b] + start, out + end, len);
          end += len;
        }
      }
      MemoryUtil.putInt(outOffsets + 4L * (k + 1), end);
      if ((k & 7) == 7) {
        MemoryUtil.putByte(outValidity + (k >>> 3), (byte) bits);
        bits = 0;
      }
    }
    if ((count & 7) != 0) MemoryUtil.putByte(outValidity + (count >>> 3), (byte) bits);
    dst.setLastSet(count - 1);
  }

  /**
   * Deals the rows of {@code sources} (batches of {@code fields}) into {@code sizes.length} new batches, one a
   * bucket: row {@code i} of source {@code b} goes to bucket {@code bucketOf[r]}, {@code r} being its number in input
   * order, after the rows of that bucket before it. The sources are read once, in order, and each bucket's column
   * written in order: fixed-width values (not booleans) as direct loads and stores, other values by Arrow's
   * {@code copyFromSafe}.
   */
  static java.util.List<org.apache.arrow.vector.VectorSchemaRoot> deal(java.util.List<org.apache.arrow.vector.VectorSchemaRoot> sources,
      java.util.List<Field> fields, int[] bucketOf, int[] sizes, BufferAllocator allocator) {
    int buckets = sizes.length;
    FieldVector[][] out = new FieldVector[buckets][fields.size()];
    try {
      for (int c = 0; c < fields.size(); c++) {
        Field field = fields.get(c);
        long[] data = new long[buckets];
        long[] validity = new long[buckets];
        int width = 0;
        boolean direct = false;
        for (int k = 0; k < buckets; k++) {
          FieldVector dst = field.createVector(allocator);
          out[k][c] = dst;
          if (dst instanceof BaseFixedWidthVector f && !(dst instanceof BitVector)) {
            f.allocateNew(Math.max(sizes[k], 1)); // validity zeroed
            direct = true;
            width = f.getTypeWidth();
            data[k] = f.getDataBuffer().memoryAddress();
            validity[k] = f.getValidityBuffer().memoryAddress();
          } else {
            dst.setInitialCapacity(Math.max(sizes[k], 1));
            dst.allocateNew();
          }
        }
        int[] pos = new int[buckets];
        int r = 0;
        for (org.apache.arrow.vector.VectorSchemaRoot batch : sources) {
          FieldVector src = batch.getVector(c);
          int n = batch.getRowCount();
          if (direct) {
            long srcData = src.getDataBuffer().memoryAddress();
            long srcValidity = src.getValidityBuffer().memoryAddress();
            for (int i = 0; i < n; i++) {
              int k = bucketOf[r++];
              int p = pos[k]++;
              long to = data[k] + (long) p * width;
              if (valid(srcValidity, i)) {
                copyValue(srcData + (long) i * width, to, width);
                long v = validity[k] + (p >>> 3);
                MemoryUtil.putByte(v, (byte) (MemoryUtil.getByte(v) | (1 << (p & 7))));
              } else {
                MemoryUtil.setMemory(to, width, (byte) 0); // no other query's bytes in a NULL slot
              }
            }
          } else {
            for (int i = 0; i < n; i++) {
              int k = bucketOf[r++];
              out[k][c].copyFromSafe(i, pos[k]++, src);
            }
          }
        }
        for (int k = 0; k < buckets; k++) out[k][c].setValueCount(sizes[k]);
      }
      java.util.List<org.apache.arrow.vector.VectorSchemaRoot> roots = new java.util.ArrayList<>(buckets);
      for (int k = 0; k < buckets; k++) {
        roots.add(Rows.root(fields, java.util.Arrays.asList(out[k]), sizes[k]));
        out[k] = null;
      }
      return roots;
    } catch (RuntimeException | Error e) {
      for (FieldVector[] vs : out) if (vs != null) for (FieldVector v : vs) if (v != null) v.close();
      throw e;
    }
  }
}
