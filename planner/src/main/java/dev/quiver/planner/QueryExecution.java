package dev.quiver.planner;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** A running query: batches in order, each owned by the caller. Close it to release its operators. */
public interface QueryExecution extends AutoCloseable {
  Schema schema();

  /** The next batch, or null at the end. */
  VectorSchemaRoot next();

  @Override
  void close();
}
