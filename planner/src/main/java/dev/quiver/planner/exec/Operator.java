package dev.quiver.planner.exec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A physical operator: pulls batches from its children and returns its own. Each returned batch belongs
 * to the caller, who closes it. Operators count their output rows and the time spent in {@link #next()}
 * (including children), for EXPLAIN ANALYZE.
 */
public abstract class Operator implements AutoCloseable {
  private long outputRows;
  private long elapsedNanos;
  /**
   * Checked before every batch (set by {@link PhysicalPlanner}): not only scans, since a join or an
   * aggregate can work for hours on the few batches its scans produced (a cross product).
   */
  dev.quiver.planner.Cancellation cancellation = dev.quiver.planner.Cancellation.NONE;

  public abstract Schema schema();

  public abstract List<Operator> children();

  /** The operator's EXPLAIN line without metrics. */
  public abstract String describe();

  /** Produces the next batch or null at the end. */
  protected abstract VectorSchemaRoot produce();

  public final VectorSchemaRoot next() {
    cancellation.check();
    long start = System.nanoTime();
    try {
      VectorSchemaRoot batch = produce();
      if (batch != null) outputRows += batch.getRowCount();
      return batch;
    } finally {
      elapsedNanos += System.nanoTime() - start;
    }
  }

  /** The rows this operator produced (an operator fused into a scan's tasks counts them there). */
  protected long outputRows() {
    return outputRows;
  }

  /** Operator-specific metrics shown before output_rows and elapsed_ms. */
  public Map<String, Long> metrics() {
    return new LinkedHashMap<>();
  }

  public final Map<String, Object> allMetrics() {
    Map<String, Object> m = new LinkedHashMap<>(metrics());
    m.put("output_rows", outputRows());
    m.put("elapsed_ms", String.format(java.util.Locale.ROOT, "%.3f", elapsedNanos / 1e6));
    return m;
  }

  @Override
  public void close() {
    for (Operator c : children()) c.close();
  }
}
