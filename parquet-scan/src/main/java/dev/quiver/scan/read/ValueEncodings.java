package dev.quiver.scan.read;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Parquet's non-PLAIN value encodings, each decoded for a whole page in one pass into the PLAIN layout
 * (little-endian fixed-width values, or 4-byte length + bytes for byte arrays), which {@link ChunkDecoder}
 * then copies in bulk like any PLAIN page. Every count and length read from the page is checked against
 * the page before it sizes anything, so a corrupt page fails with {@link IllegalStateException}.
 */
final class ValueEncodings {
  private ValueEncodings() {}

  /** Largest DELTA_BINARY_PACKED block accepted (writers use 128; the format allows any multiple of 128). */
  private static final int MAX_BLOCK = 1 << 16;

  /**
   * DELTA_BINARY_PACKED: header (block size, miniblocks per block, value count, zigzag first value), then
   * blocks of (zigzag min delta, one bit width per miniblock, bit-packed miniblocks). Values are written
   * as {@code width}-byte little-endian integers (4 or 8); arithmetic wraps as the writers' does.
   * {@code in} is left just after the last miniblock that holds values.
   */
  static ByteBuffer deltaBinaryPacked(ByteBuffer in, int maxValues, int width) {
    int count = deltaCount(in, maxValues);
    ByteBuffer out = ByteBuffer.allocate(count * width).order(ByteOrder.LITTLE_ENDIAN);
    long[] values = deltaDecode(in, count);
    if (width == 4) {
      for (int i = 0; i < count; i++) out.putInt((int) values[i]);
    } else {
      for (int i = 0; i < count; i++) out.putLong(values[i]);
    }
    out.flip();
    return out;
  }

  /** Reads the header fields up to the value count, leaving {@code in} at the first value. */
  private static int deltaCount(ByteBuffer in, int maxValues) {
    in.mark();
    int block = varint(in);
    int minis = varint(in);
    int count = varint(in);
    in.reset();
    if (block <= 0 || block > MAX_BLOCK || block % 128 != 0) throw corrupt("block size " + block);
    if (minis <= 0 || block % minis != 0 || (block / minis) % 8 != 0) throw corrupt(minis + " miniblocks per block");
    if (count < 0 || count > maxValues) throw corrupt(count + " values in a page of " + maxValues);
    // a block takes at least two bytes even at bit width 0
    if (count > 1 && count > (long) in.remaining() * block) throw corrupt(count + " values in " + in.remaining() + " bytes");
    return count;
  }

  private static long[] deltaDecode(ByteBuffer in, int count) {
    int block = varint(in);
    int minis = varint(in);
    varint(in); // count, checked by deltaCount
    long[] out = new long[count];
    long value = zigzag(varlong(in));
    if (count == 0) return out;
    out[0] = value;
    int perMini = block / minis;
    int[] widths = new int[minis];
    int n = 1;
    while (n < count) {
      long minDelta = zigzag(varlong(in));
      for (int m = 0; m < minis; m++) {
        widths[m] = in.get() & 0xFF;
        if (widths[m] > 64) throw corrupt("miniblock bit width " + widths[m]);
      }
      for (int m = 0; m < minis && n < count; m++) {
        int w = widths[m];
        int take = Math.min(perMini, count - n);
        int start = in.position();
        long bytes = (long) perMini * w / 8;
        unpack(in, start, w, out, n, take);
        for (int j = n; j < n + take; j++) {
          value += minDelta + out[j];
          out[j] = value;
        }
        n += take;
        // a writer pads the last miniblock to its full size; tolerate a page that ends inside the padding
        in.position((int) Math.min(in.limit(), start + bytes));
      }
    }
    return out;
  }

  /** {@code n} values of {@code w} bits, least significant bit first, from byte {@code at}. */
  private static void unpack(ByteBuffer in, int at, int w, long[] out, int from, int n) {
    if (w == 0) {
      java.util.Arrays.fill(out, from, from + n, 0L);
      return;
    }
    long needed = ((long) n * w + 7) / 8;
    if (at + needed > in.limit()) throw corrupt("miniblock past the end of the page");
    long mask = w == 64 ? -1L : (1L << w) - 1;
    if (w <= 56) {
      long buffer = 0;
      int bits = 0;
      int p = at;
      for (int k = 0; k < n; k++) {
        while (bits < w) {
          buffer |= (long) (in.get(p++) & 0xFF) << bits;
          bits += 8;
        }
        out[from + k] = buffer & mask;
        buffer >>>= w;
        bits -= w;
      }
      return;
    }
    for (int k = 0; k < n; k++) {
      long bit = (long) k * w;
      int p = at + (int) (bit >>> 3);
      int shift = (int) (bit & 7);
      long lo = 0;
      for (int b = 0; b < 8; b++) lo |= (long) (byteAt(in, p + b) & 0xFF) << (8 * b);
      long v = lo >>> shift;
      if (shift > 0) v |= (long) (byteAt(in, p + 8) & 0xFF) << (64 - shift);
      out[from + k] = v & mask;
    }
  }

  private static byte byteAt(ByteBuffer in, int p) {
    return p < in.limit() ? in.get(p) : 0;
  }

  /** DELTA_LENGTH_BYTE_ARRAY: DELTA_BINARY_PACKED lengths, then the bytes back to back; PLAIN layout out. */
  static ByteBuffer deltaLengthByteArray(ByteBuffer in, int maxValues) {
    int count = deltaCount(in, maxValues);
    long[] lengths = deltaDecode(in, count);
    long total = 0;
    for (long len : lengths) {
      if (len < 0 || len > in.remaining()) throw corrupt("byte array length " + len);
      total += len;
    }
    if (total > in.remaining()) throw corrupt("byte arrays longer than the page");
    ByteBuffer out = ByteBuffer.allocate((int) (total + 4L * count)).order(ByteOrder.LITTLE_ENDIAN);
    for (long len : lengths) {
      out.putInt((int) len);
      out.put(out.position(), in, in.position(), (int) len);
      out.position(out.position() + (int) len);
      in.position(in.position() + (int) len);
    }
    out.flip();
    return out;
  }

  /**
   * DELTA_BYTE_ARRAY (incremental encoding): DELTA_BINARY_PACKED prefix lengths, then the suffixes as
   * DELTA_LENGTH_BYTE_ARRAY; value i is the first prefix[i] bytes of value i-1 followed by suffix i.
   * Out: PLAIN byte arrays, or, with {@code fixedWidth > 0}, values of that width back to back.
   */
  static ByteBuffer deltaByteArray(ByteBuffer in, int maxValues, int fixedWidth) {
    int count = deltaCount(in, maxValues);
    long[] prefixes = deltaDecode(in, count);
    ByteBuffer suffixes = deltaLengthByteArray(in, maxValues);
    int suffixCount = countOf(suffixes);
    if (suffixCount != count) throw corrupt(count + " prefixes but " + suffixCount + " suffixes");
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(suffixes.remaining() * 2 + 16);
    byte[] previous = new byte[0];
    byte[] lenBytes = new byte[4];
    for (int i = 0; i < count; i++) {
      long prefix = prefixes[i];
      if (prefix < 0 || prefix > previous.length) throw corrupt("prefix length " + prefix + " of value " + i);
      int suffixLen = suffixes.getInt();
      byte[] value = new byte[(int) prefix + suffixLen];
      System.arraycopy(previous, 0, value, 0, (int) prefix);
      suffixes.get(value, (int) prefix, suffixLen);
      if (fixedWidth > 0) {
        if (value.length != fixedWidth) throw corrupt("value of " + value.length + " bytes in a column of " + fixedWidth);
      } else {
        ByteBuffer.wrap(lenBytes).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value.length);
        out.write(lenBytes, 0, 4);
      }
      out.write(value, 0, value.length);
      previous = value;
    }
    return ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static int countOf(ByteBuffer plainBinary) {
    int n = 0;
    for (int p = plainBinary.position(); p < plainBinary.limit(); n++) p += 4 + plainBinary.getInt(p);
    return n;
  }

  /**
   * BYTE_STREAM_SPLIT: byte k of every value stored together, stream after stream; the number of values
   * is the page's byte count over the width (NULLs are not stored).
   */
  static ByteBuffer byteStreamSplit(ByteBuffer in, int width) {
    int bytes = in.remaining();
    if (bytes % width != 0) throw corrupt(bytes + " bytes of BYTE_STREAM_SPLIT data for width " + width);
    int n = bytes / width;
    byte[] src = new byte[bytes];
    in.get(src);
    byte[] out = new byte[bytes];
    for (int k = 0; k < width; k++) {
      int s = k * n;
      for (int i = 0; i < n; i++) out[i * width + k] = src[s + i];
    }
    return ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
  }

  static int varint(ByteBuffer in) {
    long v = varlong(in);
    if (v > Integer.MAX_VALUE) throw corrupt("varint " + v);
    return (int) v;
  }

  private static long varlong(ByteBuffer in) {
    long result = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      int b = in.get() & 0xFF;
      result |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) return result;
    }
    throw corrupt("varint too long");
  }

  private static long zigzag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }

  private static IllegalStateException corrupt(String what) {
    return new IllegalStateException("corrupt page: " + what);
  }
}
