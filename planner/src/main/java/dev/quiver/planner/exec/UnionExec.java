package dev.quiver.planner.exec;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** UNION ALL: the batches of each input in turn, relabelled with the union's column names. */
public final class UnionExec extends Operator {
  private final List<Operator> inputs;
  private final Schema schema;
  private int current;

  /** The batches of {@code inputs}, relabelled with {@code schema}'s fields. */
  UnionExec(List<Operator> inputs, Schema schema) {
    this.inputs = List.copyOf(inputs);
    this.schema = schema;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return inputs; }
  @Override public String describe() { return "UnionExec"; }

  @Override
  protected VectorSchemaRoot produce() {
    while (current < inputs.size()) {
      VectorSchemaRoot b = inputs.get(current).next();
      if (b == null) {
        current++;
        continue;
      }
      int n = b.getRowCount();
      List<FieldVector> vectors = new ArrayList<>(b.getFieldVectors());
      // the root only wraps the vectors; Rows.root takes them over
      return Rows.root(schema.getFields(), vectors, n);
    }
    return null;
  }
}
