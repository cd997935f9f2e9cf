package dev.quiver.planner.exec;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Skips {@code offset} rows, then returns at most {@code limit}; stops pulling once it has them. */
public final class LimitExec extends Operator {
  private final Operator input;
  private final long limit;
  private final long offset;
  private final BufferAllocator allocator;
  private long skipped;
  private long returned;

  LimitExec(Operator input, long limit, long offset, BufferAllocator allocator) {
    this.input = input;
    this.limit = limit;
    this.offset = offset;
    this.allocator = allocator;
  }

  @Override public Schema schema() { return input.schema(); }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() { return "LimitExec: limit=" + (limit == Long.MAX_VALUE ? "all" : limit) + " offset=" + offset; }

  @Override
  protected VectorSchemaRoot produce() {
    while (returned < limit) {
      VectorSchemaRoot batch = input.next();
      if (batch == null) return null;
      int n = batch.getRowCount();
      int from = (int) Math.min(n, Math.max(0, offset - skipped));
      skipped += from;
      int count = (int) Math.min(n - from, limit - returned);
      if (from == 0 && count == n) {
        returned += n;
        return batch;
      }
      try (batch) {
        if (count <= 0) continue;
        int[] rows = new int[count];
        for (int i = 0; i < count; i++) rows[i] = from + i;
        returned += count;
        return FilterExec.take(batch, rows, count, allocator);
      }
    }
    return null;
  }
}
