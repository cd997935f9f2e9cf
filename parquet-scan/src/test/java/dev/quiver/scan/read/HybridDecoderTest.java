package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

/**
 * The RLE / bit-packed hybrid decoder against parquet-java's encoder, for every bit width 0–32: random values with
 * repeated runs between them, read in uneven slices, from a heap buffer that ends exactly where the data ends (the
 * word-at-a-time path must stop before the array's end), from one inside a larger array, and from a direct buffer
 * (byte by byte).
 */
class HybridDecoderTest {
  @Test
  void decodesWhatParquetJavaEncodesAtEveryBitWidth() throws Exception {
    Random r = new Random(11);
    for (int w = 0; w <= 32; w++) {
      int n = 1 + r.nextInt(5000);
      int[] values = new int[n];
      long bound = 1L << w;
      for (int i = 0; i < n; i++) {
        if (i > 0 && r.nextInt(20) == 0) {
          int run = Math.min(n - i, 8 + r.nextInt(40));
          for (int j = 0; j < run; j++) values[i + j] = values[i - 1];
          i += run - 1;
        } else {
          values[i] = w == 0 ? 0 : (int) (r.nextLong() & (bound - 1));
        }
      }
      RunLengthBitPackingHybridEncoder encoder =
          new RunLengthBitPackingHybridEncoder(w, 64, 1 << 20, new HeapByteBufferAllocator());
      for (int v : values) encoder.writeInt(v);
      byte[] bytes = encoder.toBytes().toByteArray();
      byte[] padded = new byte[bytes.length + 37];
      System.arraycopy(bytes, 0, padded, 5, bytes.length);
      ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length);
      direct.put(bytes).flip();
      ByteBuffer[] inputs = {ByteBuffer.wrap(bytes), ByteBuffer.wrap(padded, 5, bytes.length).slice(), direct};
      for (ByteBuffer in : inputs) {
        HybridDecoder d = new HybridDecoder(in, w, in.limit());
        int[] out = new int[n];
        int at = 0;
        while (at < n) {
          int take = Math.min(n - at, 1 + r.nextInt(700));
          d.read(out, at, take);
          at += take;
        }
        assertThat(out).as("bit width %d, %s", w, in.isDirect() ? "direct" : "heap").isEqualTo(values);
      }
    }
  }
}
