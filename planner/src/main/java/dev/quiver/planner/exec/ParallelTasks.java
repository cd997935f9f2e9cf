package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs a few tasks of one operator at once: all but the first are handed to a pool (the scan's), the first runs on
 * the calling thread, which then runs any task no worker has begun yet itself — so the calling thread never waits
 * for a free worker (the pool may be busy with other queries' scans), only for a task a worker is running.
 */
final class ParallelTasks {
  private ParallelTasks() {}

  /**
   * Each task's result, in order. A task's failure is thrown here, after every task has ended (none still reads the
   * operator's data when this returns).
   */
  static <T> List<T> run(ExecutorService executor, List<Callable<T>> tasks) {
    List<FutureTask<T>> futures = new ArrayList<>();
    for (Callable<T> t : tasks) futures.add(new FutureTask<>(t));
    for (int t = 1; t < futures.size(); t++) {
      try {
        executor.execute(futures.get(t));
      } catch (RejectedExecutionException e) {
        // the pool is shutting down: run here below
      }
    }
    List<T> results = new ArrayList<>();
    RuntimeException failure = null;
    Error error = null;
    boolean interrupted = false;
    for (FutureTask<T> f : futures) {
      f.run(); // here, unless a worker has begun (or finished) it
      while (true) {
        try {
          results.add(f.get());
          break;
        } catch (InterruptedException e) {
          interrupted = true; // wait on: a worker may still be reading
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) failure = failure == null ? r : failure;
          else if (e.getCause() instanceof Error err) error = error == null ? err : error;
          else failure = failure == null ? new IllegalStateException(e.getCause()) : failure;
          results.add(null);
          break;
        }
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
    if (error != null) throw error;
    if (failure != null) throw failure;
    if (interrupted) throw new QuiverException(ErrorCode.CANCELLED, "the query was interrupted");
    return results;
  }
}
