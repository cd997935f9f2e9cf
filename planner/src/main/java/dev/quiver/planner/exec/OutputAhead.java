package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * An operator's output batches built a few ahead on a pool (the scan's) while the consumer takes the current one:
 * for output whose batches are independent and costly to build, such as a sort's rows gathered in sorted order (a
 * random read per row and column). Batch {@code i} holds rows {@code [i·batchRows, …)}; they are handed out in
 * order. The consumer builds a batch itself when no worker has begun it, so it never waits for a free worker.
 * Closing waits for the batches being built and releases those not handed out.
 */
final class OutputAhead implements AutoCloseable {
  /** Builds the batch of {@code count} rows from row {@code from}. */
  interface Builder {
    VectorSchemaRoot build(int from, int count);
  }

  private final Builder builder;
  private final int rows;
  private final int batchRows;
  private final ExecutorService executor;
  private final int ahead;
  private final ArrayDeque<FutureTask<VectorSchemaRoot>> pending = new ArrayDeque<>();
  private int scheduled;
  /** Set by {@link #close}: a batch not begun by then is never built. */
  private volatile boolean closed;

  /** {@code rows} rows in batches of {@code batchRows}, up to {@code ahead} built ahead on {@code executor} (null: none). */
  OutputAhead(Builder builder, int rows, int batchRows, ExecutorService executor, int ahead) {
    this.builder = builder;
    this.rows = rows;
    this.batchRows = batchRows;
    this.executor = ahead > 0 ? executor : null;
    this.ahead = this.executor == null ? 0 : ahead;
  }

  /** The next batch (the caller's), or null after the last. */
  VectorSchemaRoot next() {
    while (scheduled < rows && pending.size() <= ahead) {
      int from = scheduled;
      int count = Math.min(batchRows, rows - from);
      FutureTask<VectorSchemaRoot> task = new FutureTask<>(() -> closed ? null : builder.build(from, count));
      boolean first = pending.isEmpty(); // built here right away
      pending.add(task);
      scheduled += count;
      if (!first && executor != null) {
        try {
          executor.execute(task);
        } catch (RejectedExecutionException e) {
          // the pool is shutting down: built here when its turn comes
        }
      }
    }
    FutureTask<VectorSchemaRoot> head = pending.poll();
    if (head == null) return null;
    head.run(); // here, unless a worker has begun (or finished) it
    try {
      return head.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuiverException(ErrorCode.CANCELLED, "the query was interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) throw r;
      if (e.getCause() instanceof Error err) throw err;
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * Waits for the batches being built and releases every batch not handed out. (Not {@code cancel}: a task that a
   * worker is running counts as not done, and cancelling it would neither wait for it nor release its batch.)
   */
  @Override
  public void close() {
    closed = true;
    boolean interrupted = false;
    for (FutureTask<VectorSchemaRoot> task : pending) {
      task.run(); // not begun: ends at once, building nothing; begun by a worker: returns, and get() waits for it
      while (true) {
        try {
          VectorSchemaRoot b = task.get();
          if (b != null) b.close();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          break;
        }
      }
    }
    pending.clear();
    if (interrupted) Thread.currentThread().interrupt();
  }
}
