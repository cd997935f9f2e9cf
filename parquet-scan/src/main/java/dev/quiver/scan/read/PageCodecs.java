package dev.quiver.scan.read;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Page decompression for the scan: ZSTD and SNAPPY pages are decompressed in one call from the page's
 * bytes into an array of the page's declared size (parquet-java streams them through a decompressor
 * stream and copies the result again); every other codec goes to parquet-java's own factory. A page whose
 * data does not decompress to exactly its declared size fails as corrupt. Used unless
 * {@link ScanOptions#ownCodecs()} is off. On a {@link ScanWorker} ZSTD pages reuse the thread's context.
 */
final class PageCodecs implements CompressionCodecFactory {
  private final CodecFactory fallback;

  PageCodecs(CodecFactory fallback) {
    this.fallback = fallback;
  }

  /**
   * A decompressor for one column chunk: parquet-java asks the factory for one per chunk it reads
   * ({@code ParquetFileReader.Chunk}), and the chunk's pages are decompressed one after the other as its reader
   * moves on.
   */
  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return switch (codec) {
      case ZSTD, SNAPPY -> new OneShot(codec, fallback);
      default -> fallback.getDecompressor(codec);
    };
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return fallback.getCompressor(codec);
  }

  @Override
  public void release() {
    fallback.release();
  }

  /**
   * One-shot decompression; parquet-java's decompressor only for its direct-buffer variant, on demand.
   *
   * <p>The chunk's first page gets an array of its own, every later page the one reused array ({@link #reused},
   * grown when a page needs more, never zero-filled: the codec writes every byte of the page). That is safe because
   * of how the chunk's pages are read: the first page decompressed is the dictionary when there is one (both
   * {@link ChunkDecoder} and parquet-java's column readers read it first, and keep it for the whole chunk; the cached
   * dictionaries are copies), and a data page is read only once the page before it is used up — its values copied
   * into vectors, no reference to its bytes kept. A zeroed array a page cost 16% of decoding a page.
   */
  private static final class OneShot implements BytesInputDecompressor {
    private final CompressionCodecName codec;
    private final CodecFactory fallback;
    private boolean first = true;
    private byte[] reused = new byte[0];

    OneShot(CompressionCodecName codec, CodecFactory fallback) {
      this.codec = codec;
      this.fallback = fallback;
    }

    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      if (uncompressedSize < 0) throw new IOException("page declares " + uncompressedSize + " uncompressed bytes");
      ByteBuffer in = bytes.toByteBuffer();
      byte[] src;
      int offset;
      int length = in.remaining();
      if (in.hasArray()) {
        src = in.array();
        offset = in.arrayOffset() + in.position();
      } else {
        src = new byte[length];
        in.duplicate().get(src);
        offset = 0;
      }
      if (length == 0 && uncompressedSize == 0) return BytesInput.empty(); // e.g. an empty data page v2
      byte[] out;
      if (first) {
        first = false;
        out = new byte[uncompressedSize];
      } else {
        if (reused.length < uncompressedSize) reused = new byte[Math.max(uncompressedSize, reused.length + (reused.length >> 1))];
        out = reused;
      }
      long n;
      if (codec == CompressionCodecName.ZSTD) {
        if (Thread.currentThread() instanceof ScanWorker worker) { // its own context, reused page after page
          try {
            n = worker.zstd().decompressByteArray(out, 0, uncompressedSize, src, offset, length);
          } catch (ZstdException e) {
            throw new IOException("ZSTD page does not decompress: " + e.getMessage(), e);
          }
        } else {
          n = Zstd.decompressByteArray(out, 0, uncompressedSize, src, offset, length);
          if (Zstd.isError(n)) throw new IOException("ZSTD page does not decompress: " + Zstd.getErrorName(n));
        }
      } else {
        // snappy's decompressor checks its input (a damaged page fails with IOException), no separate pass
        int declared = Snappy.uncompressedLength(src, offset, length);
        if (declared != uncompressedSize) {
          throw new IOException("SNAPPY page holds " + declared + " bytes, its header says " + uncompressedSize);
        }
        n = Snappy.uncompress(src, offset, length, out, 0);
      }
      if (n != uncompressedSize) {
        throw new IOException(codec + " page decompresses to " + n + " bytes, its header says " + uncompressedSize);
      }
      return BytesInput.from(out, 0, uncompressedSize);
    }

    @Override
    public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize) throws IOException {
      fallback.getDecompressor(codec).decompress(input, compressedSize, output, uncompressedSize);
    }

    @Override
    public void release() {
      // the factory releases the decompressors it made
    }
  }
}
