package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Computes the output columns; the result vectors carry exactly the plan's output fields. */
public final class ProjectExec extends Operator {
  private final Operator input;
  private final List<PhysicalExpr> exprs;
  private final String description;
  private final Schema schema;
  private final BufferAllocator allocator;

  /** Column {@code i} of {@code schema} is {@code exprs[i]} over the input; {@code description} is the EXPLAIN text. */
  ProjectExec(Operator input, Schema schema, List<PhysicalExpr> exprs, String description, BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.exprs = List.copyOf(exprs);
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
    VectorSchemaRoot batch = input.next();
    return batch == null ? null : project(batch, exprs, schema, allocator);
  }

  /** Column {@code i} of {@code schema} computed as {@code exprs[i]} over {@code batch}, which is closed. */
  static VectorSchemaRoot project(VectorSchemaRoot input, List<PhysicalExpr> exprs, Schema schema,
      BufferAllocator allocator) {
    try (VectorSchemaRoot batch = input) {
      return compute(batch, exprs, schema, allocator);
    }
  }

  /** Column {@code i} of {@code schema} computed as {@code exprs[i]} over {@code batch}, which stays open. */
  static VectorSchemaRoot compute(VectorSchemaRoot batch, List<PhysicalExpr> exprs, Schema schema,
      BufferAllocator allocator) {
    {
      int n = batch.getRowCount();
      List<FieldVector> out = new ArrayList<>();
      try {
        for (int i = 0; i < exprs.size(); i++) {
          Field field = schema.getFields().get(i);
          FieldVector target = field.createVector(allocator);
          out.add(target);
          try (ColumnValues v = exprs.get(i).eval(batch, allocator)) {
            if (v.vector() != null) {
              // borrowed vectors are copied (they may be projected twice); owned ones are moved
              if (v.owned()) v.vector().makeTransferPair(target).transfer();
              else v.vector().makeTransferPair(target).splitAndTransfer(0, n);
            } else {
              target.setInitialCapacity(n);
              target.allocateNew();
              Object value = v.getObject(0);
              for (int r = 0; r < n; r++) Vectors.set(target, r, value);
            }
          }
          target.setValueCount(n);
        }
      } catch (RuntimeException | Error e) {
        out.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(schema.getFields(), out, n);
    }
  }
}
