package dev.quiver.scan.read;

import java.nio.ByteBuffer;

/**
 * Parquet's RLE / bit-packed hybrid encoding (definition levels and dictionary ids), decoded run by run:
 * a varint header, then either a repeated value ({@code header & 1 == 0}: {@code header >>> 1} copies of a
 * little-endian value of ceil(bitWidth / 8) bytes) or {@code header >>> 1} groups of eight bit-packed
 * values, least significant bit first.
 */
final class HybridDecoder {
  private final ByteBuffer in;
  private final int bitWidth;
  private final int end;
  /** Values left in the current run; for a bit-packed run they are in {@link #packed}. */
  private int left;
  private boolean rle;
  private int value;
  private int[] packed = new int[0];
  private int packedAt;

  HybridDecoder(ByteBuffer in, int bitWidth, int end) {
    this.in = in;
    this.bitWidth = bitWidth;
    this.end = end;
  }

  /** The length of the current run when it is a run of one value (0 otherwise), after filling it. */
  int repeatedRunLength() {
    fill();
    return rle ? left : 0;
  }

  /** The value of the current repeated run. */
  int runValue() {
    return value;
  }

  /** Consumes {@code n} values of the current repeated run. */
  void skipRun(int n) {
    left -= n;
  }

  int next() {
    fill();
    left--;
    return rle ? value : packed[packedAt++];
  }

  /** Reads {@code n} values into {@code out[from..from+n)}. */
  void read(int[] out, int from, int n) {
    int k = 0;
    while (k < n) {
      fill();
      int take = Math.min(left, n - k);
      if (rle) {
        java.util.Arrays.fill(out, from + k, from + k + take, value);
      } else {
        System.arraycopy(packed, packedAt, out, from + k, take);
        packedAt += take;
      }
      left -= take;
      k += take;
    }
  }

  /** Skips {@code n} values. */
  void skip(int n) {
    int k = 0;
    while (k < n) {
      fill();
      int take = Math.min(left, n - k);
      if (!rle) packedAt += take;
      left -= take;
      k += take;
    }
  }

  private void fill() {
    if (left > 0) return;
    if (in.position() >= end) throw new IllegalStateException("RLE/bit-packed data ends before its values");
    int header = readVarint();
    if ((header & 1) == 0) {
      rle = true;
      left = header >>> 1;
      int v = 0;
      int bytes = (bitWidth + 7) / 8;
      for (int i = 0; i < bytes; i++) v |= (in.get() & 0xFF) << (8 * i);
      value = v;
    } else {
      rle = false;
      int groups = header >>> 1;
      int count = groups * 8;
      if (packed.length < count) packed = new int[count];
      unpack(count);
      packedAt = 0;
      left = count;
    }
    if (left <= 0) throw new IllegalStateException("empty RLE/bit-packed run");
  }

  private void unpack(int count) {
    if (bitWidth == 0) {
      java.util.Arrays.fill(packed, 0, count, 0);
      return;
    }
    int k = 0;
    if (in.hasArray()) k = unpackGroups(count);
    if (k == count) return;
    // what is left (near the end of the array, or a buffer without one): byte by byte
    int bytes = (count - k) * bitWidth / 8;
    long buffer = 0;
    int bits = 0;
    int mask = bitWidth == 32 ? -1 : (1 << bitWidth) - 1;
    for (int i = 0; i < bytes; i++) {
      buffer |= (long) (in.get() & 0xFF) << bits;
      bits += 8;
      while (bits >= bitWidth && k < count) {
        packed[k++] = (int) (buffer & mask);
        buffer >>>= bitWidth;
        bits -= bitWidth;
      }
    }
  }

  /**
   * Unpacks whole groups of eight values with 8-byte little-endian reads from the buffer's array (a group of width
   * {@code w} is {@code w} bytes; up to 8 bits wide, one read a group, else one a value), while such a read stays
   * inside the array; returns the values unpacked (a multiple of 8), the buffer moved past their bytes.
   */
  private int unpackGroups(int count) {
    byte[] a = in.array();
    int w = bitWidth;
    int start = in.arrayOffset() + in.position();
    // the last group's last read starts at most w - 1 bytes into it; never past the buffer's limit (a short page
    // is left to the byte-by-byte path and its error)
    int groups = Math.min(Math.min(count / 8, in.remaining() / w), Math.max(0, (a.length - 8 - start) / w));
    long mask = w == 32 ? 0xFFFFFFFFL : (1L << w) - 1;
    int[] out = packed;
    if (w <= 8) {
      for (int gi = 0; gi < groups; gi++) {
        long word = (long) dev.quiver.common.ArrowBulk.LONGS.get(a, start + gi * w);
        int o = gi * 8;
        for (int j = 0; j < 8; j++) out[o + j] = (int) ((word >>> (j * w)) & mask);
      }
    } else {
      for (int gi = 0; gi < groups; gi++) {
        int base = start + gi * w;
        int o = gi * 8;
        for (int j = 0; j < 8; j++) {
          int bit = j * w;
          long word = (long) dev.quiver.common.ArrowBulk.LONGS.get(a, base + (bit >>> 3));
          out[o + j] = (int) ((word >>> (bit & 7)) & mask);
        }
      }
    }
    in.position(in.position() + groups * w);
    return groups * 8;
  }

  private int readVarint() {
    int result = 0;
    int shift = 0;
    while (true) {
      int b = in.get() & 0xFF;
      result |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) return result;
      shift += 7;
      if (shift > 28) throw new IllegalStateException("varint too long");
    }
  }
}
