package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.Vectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Test rows (physical values, null for NULL) as batches of random sizes, and an operator that hands them out. */
final class RowBatches {
  private RowBatches() {}

  /** {@code rows} of {@code schema} in batches of 1 to {@code maxBatch} rows (sizes drawn from {@code r}). */
  static List<VectorSchemaRoot> of(Schema schema, List<Object[]> rows, Random r, int maxBatch,
      BufferAllocator allocator) {
    List<VectorSchemaRoot> out = new ArrayList<>();
    int at = 0;
    while (at < rows.size()) {
      int n = Math.min(rows.size() - at, 1 + r.nextInt(maxBatch));
      VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
      b.allocateNew();
      for (int c = 0; c < schema.getFields().size(); c++) {
        for (int i = 0; i < n; i++) Vectors.set(b.getVector(c), i, rows.get(at + i)[c]);
        b.getVector(c).setValueCount(n);
      }
      b.setRowCount(n);
      out.add(b);
      at += n;
    }
    return out;
  }

  /** An operator that hands out {@code batches} in order; closing it closes those not handed out. */
  static final class Source extends Operator {
    private final Schema schema;
    private final List<VectorSchemaRoot> batches;
    private int next;

    Source(Schema schema, List<VectorSchemaRoot> batches) {
      this.schema = schema;
      this.batches = batches;
    }

    @Override public Schema schema() { return schema; }
    @Override public List<Operator> children() { return List.of(); }
    @Override public String describe() { return "Source"; }
    @Override protected VectorSchemaRoot produce() { return next < batches.size() ? batches.get(next++) : null; }
    @Override public void close() {
      while (next < batches.size()) batches.get(next++).close();
    }
  }
}
