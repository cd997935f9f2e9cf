package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** The input of a scalar subquery: at most one row, or the query fails. */
public final class EnforceSingleRowExec extends Operator {
  private final Operator input;
  private final Schema schema;
  private boolean done;

  EnforceSingleRowExec(Operator input, Schema schema) {
    this.input = input;
    this.schema = schema;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() { return "EnforceSingleRowExec"; }

  @Override
  protected VectorSchemaRoot produce() {
    if (done) return null;
    done = true;
    VectorSchemaRoot row = null;
    VectorSchemaRoot b;
    while ((b = input.next()) != null) {
      if (b.getRowCount() == 0) {
        b.close();
        continue;
      }
      if (row != null || b.getRowCount() > 1) {
        b.close();
        if (row != null) row.close();
        throw new QuiverException(ErrorCode.DATA_ERROR, "a scalar subquery returned more than one row");
      }
      row = b;
    }
    if (row == null) return null;
    return Rows.root(schema.getFields(), new ArrayList<>(row.getFieldVectors()), 1);
  }
}
