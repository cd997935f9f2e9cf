package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.PhysicalExpr;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Emits each input batch once per projection (one per grouping set), each computed as {@link ProjectExec} would:
 * the input batch is kept until its last projection is out, then closed.
 */
public final class ExpandExec extends Operator {
  private final Operator input;
  private final Schema schema;
  private final List<List<PhysicalExpr>> projections;
  private final String description;
  private final BufferAllocator allocator;
  private VectorSchemaRoot current;
  private int next;

  ExpandExec(Operator input, Schema schema, List<List<PhysicalExpr>> projections, String description,
      BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.projections = projections.stream().map(List::copyOf).toList();
    this.description = description;
    this.allocator = allocator;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }

  @Override
  public String describe() {
    return description;
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (current == null) {
      current = input.next();
      if (current == null) return null;
      next = 0;
    }
    VectorSchemaRoot out = ProjectExec.compute(current, projections.get(next++), schema, allocator);
    if (next == projections.size()) {
      current.close();
      current = null;
    }
    return out;
  }

  @Override
  public void close() {
    if (current != null) {
      current.close();
      current = null;
    }
    super.close();
  }
}
