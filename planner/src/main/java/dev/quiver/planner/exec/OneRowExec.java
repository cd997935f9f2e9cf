package dev.quiver.planner.exec;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** One row without columns, once: the input of a SELECT without FROM. */
public final class OneRowExec extends Operator {
  private final BufferAllocator allocator;
  private boolean done;

  OneRowExec(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  @Override public Schema schema() { return new Schema(List.of()); }
  @Override public List<Operator> children() { return List.of(); }
  @Override public String describe() { return "OneRowExec"; }

  @Override
  protected VectorSchemaRoot produce() {
    if (done) return null;
    done = true;
    VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
    root.setRowCount(1);
    return root;
  }
}
