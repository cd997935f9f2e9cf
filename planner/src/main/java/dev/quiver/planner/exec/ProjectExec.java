package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.planner.plan.LogicalPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Computes the output columns; the result vectors carry exactly the plan's output fields. */
public final class ProjectExec extends Operator {
  private final Operator input;
  private final LogicalPlan.Project plan;
  private final List<PhysicalExpr> exprs = new ArrayList<>();
  private final Schema schema;
  private final BufferAllocator allocator;

  ProjectExec(Operator input, LogicalPlan.Project plan, BufferAllocator allocator, dev.quiver.planner.kernel.EvalContext ctx) {
    this.input = input;
    this.plan = plan;
    this.schema = plan.schema();
    this.allocator = allocator;
    for (LogicalPlan.NamedExpr n : plan.exprs()) exprs.add(ExprCompiler.compile(n.expr(), input.schema(), ctx));
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }

  @Override
  public String describe() {
    return "ProjectionExec: " + plan.exprs().stream().map(n -> n.expr() + " AS " + n.name()).collect(Collectors.joining(", "));
  }

  @Override
  protected VectorSchemaRoot produce() {
    try (VectorSchemaRoot batch = input.next()) {
      if (batch == null) return null;
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
      } catch (RuntimeException e) {
        out.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(schema.getFields(), out, n);
    }
  }
}
