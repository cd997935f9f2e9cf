package dev.quiver.planner;

/**
 * Checked by operators between batches: throws (CANCELLED, or TIMED_OUT for a statement timeout) once
 * the query should stop, so a long scan ends promptly and its operators are closed.
 */
@FunctionalInterface
public interface Cancellation {
  Cancellation NONE = () -> { };

  void check();
}
