package dev.quiver.planner.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An operator that runs inside its scan's row-group tasks ({@link ScanPipeline}): in the plan tree so that EXPLAIN
 * shows it where it belongs, with the rows it produced there; its batches only pass through here. When a join
 * below it kept the stages above itself out of the tasks ({@link ScanPipeline#runHere}), it runs its step here, on
 * the batches coming up, as the operator it stands for would.
 */
final class FusedExec extends Operator {
  private final Operator input;
  private final Schema schema;
  private final String description;
  private final LongAdder rows;
  private final ScanPipeline pipeline;
  private final int index;
  /** Null until the first batch came up; then whether this step runs here, not in the tasks. */
  private Boolean here;
  private ScanPipeline.Step step;
  private final List<VectorSchemaRoot> queue = new ArrayList<>();
  private boolean done;

  /** The step {@code index} of {@code pipeline} (see {@link ScanPipeline#step}), counting its rows in {@code rows}. */
  FusedExec(Operator input, Schema schema, String description, LongAdder rows, ScanPipeline pipeline, int index) {
    this.input = input;
    this.schema = schema;
    this.description = description;
    this.rows = rows;
    this.pipeline = pipeline;
    this.index = index;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }

  @Override
  public String describe() {
    return description.stripTrailing() + (Boolean.TRUE.equals(here) ? "" : " [in scan tasks]");
  }

  @Override
  protected VectorSchemaRoot produce() {
    while (true) {
      if (!queue.isEmpty()) return queue.remove(0);
      if (done) return null;
      VectorSchemaRoot b = input.next();
      if (here == null) {
        here = !pipeline.runsInTasks(index); // the scan has made its tasks by now
        if (here) step = pipeline.step(index);
      }
      if (!here) return b;
      if (b == null) {
        done = true;
        step.finish(queue);
        continue;
      }
      step.accept(b, queue);
    }
  }

  /** For a partial aggregation: the rows its tasks passed through unaggregated (null: not one). */
  LongAdder passedRows;

  @Override
  public java.util.Map<String, Long> metrics() {
    java.util.Map<String, Long> m = super.metrics();
    if (passedRows != null && passedRows.sum() > 0) m.put("passed_through_rows", passedRows.sum());
    return m;
  }

  @Override
  protected long outputRows() {
    return rows.sum();
  }

  @Override
  public void close() {
    super.close();
    queue.forEach(VectorSchemaRoot::close);
    queue.clear();
    if (step != null) step.close();
  }
}
