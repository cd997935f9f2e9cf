package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.apache.parquet.column.values.deltastrings.DeltaByteArrayWriter;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;

/** Damaged pages in the delta encodings: an exception the scan reports as a corrupt file, never an Error or a hang. */
class ValueEncodingsTest {
  private static ByteBuffer page(ValuesWriter w) throws Exception {
    return w.getBytes().toByteBuffer().slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  @Test
  void deltaBinaryPackedRoundTripsExtremes() throws Exception {
    long[] values = {0, Long.MIN_VALUE, Long.MAX_VALUE, -1, 1, Long.MIN_VALUE, 42, 42, 42};
    var w = new DeltaBinaryPackingValuesWriterForLong(64, 1 << 16, HeapByteBufferAllocator.getInstance());
    for (long v : values) w.writeLong(v);
    ByteBuffer out = ValueEncodings.deltaBinaryPacked(page(w), values.length, 8);
    for (long v : values) assertThat(out.getLong()).isEqualTo(v);
  }

  @Test
  void aHeaderClaimingMoreValuesThanThePageFails() {
    // block 128, 4 miniblocks, 2^31-1 values
    ByteBuffer b = ByteBuffer.wrap(new byte[] {(byte) 0x80, 0x01, 0x04, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0x00});
    assertThatThrownBy(() -> ValueEncodings.deltaBinaryPacked(b, 1_000, 8)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("values in a page of 1000");
    ByteBuffer c = ByteBuffer.wrap(new byte[] {(byte) 0x80, 0x01, 0x04, (byte) 0xE8, 0x07, 0x00});
    assertThatThrownBy(() -> ValueEncodings.deltaBinaryPacked(c, Integer.MAX_VALUE, 8)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1000 values in");
  }

  @Test
  void damagedPagesFailWithExceptions() throws Exception {
    Random r = new Random(20261130);
    var longs = new DeltaBinaryPackingValuesWriterForLong(1 << 10, 1 << 16, HeapByteBufferAllocator.getInstance());
    var strings = new DeltaByteArrayWriter(1 << 10, 1 << 16, HeapByteBufferAllocator.getInstance());
    for (int i = 0; i < 1_000; i++) {
      longs.writeLong(r.nextLong() >> r.nextInt(64));
      strings.writeBytes(Binary.fromString("value-" + (i / 3) + "-" + r.nextInt(1000)));
    }
    byte[] longPage = page(longs).array().clone();
    ByteBuffer sp = page(strings);
    byte[] stringPage = new byte[sp.remaining()];
    sp.get(stringPage);
    int failures = 0;
    for (int trial = 0; trial < 3_000; trial++) {
      byte[] damaged = (trial % 2 == 0 ? longPage : stringPage).clone();
      int cut = trial % 5 == 0 ? r.nextInt(damaged.length) : damaged.length;
      for (int k = 0; k < 1 + r.nextInt(4); k++) damaged[r.nextInt(cut == 0 ? 1 : cut)] = (byte) r.nextInt(256);
      ByteBuffer in = ByteBuffer.wrap(damaged, 0, cut).slice().order(ByteOrder.LITTLE_ENDIAN);
      try {
        switch (trial % 4) {
          case 0 -> ValueEncodings.deltaBinaryPacked(in, 1_000, 8);
          case 1 -> ValueEncodings.deltaByteArray(in, 1_000, 0);
          case 2 -> ValueEncodings.deltaBinaryPacked(in, 1_000, 4);
          default -> ValueEncodings.deltaLengthByteArray(in, 1_000);
        }
      } catch (RuntimeException expected) {
        failures++;
      }
    }
    assertThat(failures).isGreaterThan(100); // most damage is detected; what is not decodes to other values
  }
}
