package dev.quiver.planner.exec;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Rows addressed across retained batches: a reference packs the batch index (high 32 bits) and the row
 * (low 32 bits). Copying builds new vectors from such references; a reference of -1 writes a NULL row.
 */
final class Rows {
  private Rows() {}

  static long ref(int batch, int row) {
    return ((long) batch << 32) | (row & 0xFFFFFFFFL);
  }

  static int batch(long ref) {
    return (int) (ref >>> 32);
  }

  static int row(long ref) {
    return (int) ref;
  }

  /**
   * New vectors for {@code fields}, filled from columns {@code [firstColumn, firstColumn + fields.size())}
   * of the referenced rows {@code refs[from, from + count)}.
   */
  static List<FieldVector> copy(List<VectorSchemaRoot> batches, int firstColumn, List<Field> fields, long[] refs, int from,
      int count, BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>(fields.size());
    try {
      FieldVector[] sources = new FieldVector[batches.size()];
      for (int c = 0; c < fields.size(); c++) {
        for (int b = 0; b < sources.length; b++) {
          VectorSchemaRoot batch = batches.get(b); // null: a batch released (no reference points into it)
          sources[b] = batch == null ? null : batch.getVector(firstColumn + c);
        }
        out.add(Gather.column(sources, fields.get(c), refs, from, count, allocator));
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return out;
  }

  /** New all-NULL vectors for {@code fields}. */
  static List<FieldVector> nulls(List<Field> fields, int count, BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>(fields.size());
    try {
      for (Field f : fields) {
        FieldVector dst = f.createVector(allocator);
        out.add(dst);
        dst.setInitialCapacity(Math.max(count, 1));
        dst.allocateNew();
        for (int k = 0; k < count; k++) dst.setNull(k);
        dst.setValueCount(count);
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return out;
  }

  /** A batch of {@code vectors} under {@code fields} (which may rename them or mark them nullable). */
  static VectorSchemaRoot root(List<Field> fields, List<FieldVector> vectors, int count) {
    List<FieldVector> renamed = new ArrayList<>(vectors.size());
    for (int i = 0; i < vectors.size(); i++) {
      FieldVector v = vectors.get(i);
      if (v.getField().equals(fields.get(i))) {
        renamed.add(v);
      } else {
        FieldVector t = fields.get(i).createVector(v.getAllocator());
        v.makeTransferPair(t).transfer();
        t.setValueCount(count);
        v.close();
        renamed.add(t);
      }
    }
    VectorSchemaRoot root = new VectorSchemaRoot(fields, renamed, count);
    root.setRowCount(count);
    return root;
  }
}
