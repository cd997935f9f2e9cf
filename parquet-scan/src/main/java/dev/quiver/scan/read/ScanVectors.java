package dev.quiver.scan.read;

import dev.quiver.common.ArrowBulk;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The scan's batch vectors: allocated for a decoder to fill, and compacted to the rows a row predicate kept
 * (late materialization). Arrow's {@code allocateNew} zero-fills a vector's data, which a decoder or a
 * compaction then overwrites slot by slot; the vectors made here for them leave the data of fixed-width
 * vectors as allocated and zero only the validity bits (whoever fills them writes every slot, NULL slots
 * as zeros, so the batches hold exactly what {@code allocateNew} plus the same writes would).
 */
final class ScanVectors {
  private ScanVectors() {}

  /** A vector for {@code n} rows, zero-filled as Arrow allocates it. */
  static FieldVector allocate(Field field, BufferAllocator allocator, int n) {
    FieldVector v = field.createVector(allocator);
    v.setInitialCapacity(Math.max(n, 1));
    v.allocateNew();
    return v;
  }

  /**
   * A vector for {@code n} rows whose every slot the caller writes (values, and zeros for NULLs): for
   * fixed-width types only the validity bits are zeroed; other types as {@link #allocate}.
   */
  static FieldVector allocateToOverwrite(Field field, BufferAllocator allocator, int n) {
    FieldVector v = field.createVector(allocator);
    if (!(v instanceof BaseFixedWidthVector f) || v instanceof BitVector || n < 2) {
      v.setInitialCapacity(Math.max(n, 1));
      v.allocateNew();
      return v;
    }
    try (ArrowBuf validity = allocator.buffer((n + 7) >>> 3);
        ArrowBuf data = allocator.buffer((long) n * f.getTypeWidth())) {
      validity.setZero(0, validity.capacity());
      // a null count strictly between 0 and n: the vector keeps these buffers (0 or n would make new ones)
      f.loadFieldBuffers(new ArrowFieldNode(n, 1), List.of(validity, data));
    } catch (RuntimeException | Error e) {
      v.close();
      throw e;
    }
    return v;
  }

  /** Marks slots {@code [from, from + len)} NULL, their data zero (as a zero-filled vector holds it). */
  static void setNulls(FieldVector v, int from, int len) {
    if (v instanceof BaseFixedWidthVector f && !(v instanceof BitVector)) {
      ArrowBuf validity = f.getValidityBuffer();
      for (int j = from; j < from + len; j++) BitVectorHelper.unsetBit(validity, j);
      f.getDataBuffer().setZero((long) from * f.getTypeWidth(), (long) len * f.getTypeWidth());
    } else {
      for (int j = from; j < from + len; j++) v.setNull(j);
    }
  }

  /** A new vector with the kept rows of {@code v} ({@code count} of them); {@code v} is closed. */
  static FieldVector compact(FieldVector v, boolean[] keep, int count, BufferAllocator allocator) {
    try (v) {
      if (v instanceof BaseFixedWidthVector f && !(v instanceof BitVector)) {
        // fixed width: every kept value copied once (NULL ones are zero in v), then the validity bits
        FieldVector out = allocateToOverwrite(v.getField(), allocator, count);
        BaseFixedWidthVector o = (BaseFixedWidthVector) out;
        int w = f.getTypeWidth();
        ArrowBuf from = f.getDataBuffer();
        ArrowBuf to = o.getDataBuffer();
        int k = 0;
        if (w == 8 || w == 16 || w == 4) {
          for (int i = 0; i < keep.length; i++) {
            if (!keep[i]) continue;
            switch (w) {
              case 4 -> to.setInt((long) k * 4, from.getInt((long) i * 4));
              case 8 -> to.setLong((long) k * 8, from.getLong((long) i * 8));
              default -> {
                to.setLong((long) k * 16, from.getLong((long) i * 16));
                to.setLong((long) k * 16 + 8, from.getLong((long) i * 16 + 8));
              }
            }
            k++;
          }
        } else {
          for (int i = 0; i < keep.length; i++) if (keep[i]) to.setBytes((long) k++ * w, from, (long) i * w, w);
        }
        ArrowBuf validity = o.getValidityBuffer();
        if (f.getNullCount() == 0) {
          ArrowBulk.setValid(validity, 0, count);
        } else {
          k = 0;
          for (int i = 0; i < keep.length; i++) {
            if (!keep[i]) continue;
            if (!f.isNull(i)) BitVectorHelper.setBit(validity, k);
            k++;
          }
        }
        out.setValueCount(count);
        return out;
      }
      FieldVector out = allocate(v.getField(), allocator, count);
      int k = 0;
      for (int i = 0; i < keep.length; i++) if (keep[i]) out.copyFromSafe(i, k++, v);
      out.setValueCount(count);
      return out;
    }
  }
}
