package dev.quiver.planner.kernel;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/** A compiled expression: evaluates over a whole batch at once. The caller closes the result. */
@FunctionalInterface
public interface PhysicalExpr {
  ColumnValues eval(VectorSchemaRoot batch, BufferAllocator allocator);
}
