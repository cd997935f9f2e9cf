package dev.quiver.planner.exec;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Produces no rows: what is left of a scan under a filter that can never be TRUE. */
public final class EmptyExec extends Operator {
  private final Schema schema;

  EmptyExec(Schema schema) {
    this.schema = schema;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(); }
  @Override public String describe() { return "EmptyExec"; }

  @Override
  protected VectorSchemaRoot produce() {
    return null;
  }
}
