package dev.quiver.planner.exec;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An operator that runs inside its scan's row-group tasks ({@link ScanPipeline}): in the plan tree so that EXPLAIN
 * shows it where it belongs, with the rows it produced there; its batches only pass through here.
 */
final class FusedExec extends Operator {
  private final Operator input;
  private final Schema schema;
  private final String description;
  private final LongAdder rows;

  FusedExec(Operator input, Schema schema, String description, LongAdder rows) {
    this.input = input;
    this.schema = schema;
    this.description = description;
    this.rows = rows;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() { return description.stripTrailing() + " [in scan tasks]"; }

  @Override
  protected VectorSchemaRoot produce() {
    return input.next();
  }

  @Override
  protected long outputRows() {
    return rows.sum();
  }
}
