package dev.quiver.planner.optimizer;

import dev.quiver.planner.Cancellation;
import dev.quiver.planner.kernel.EvalContext;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What rules may use: the query's allocator (constant folding evaluates on real Arrow vectors) and
 * evaluation context (query start for stable functions, session time zone), and the query's
 * cancellation, which the optimizer checks between rules and long rules (join ordering) within; and how many
 * passes the expression simplifier makes over one expression at most ({@code SqlLimits.maxSimplifierPasses}).
 */
public record OptimizerContext(BufferAllocator allocator, EvalContext eval, Cancellation cancellation,
    int maxSimplifierPasses, java.util.List<Optimizer.Rewrite> rewrites) {
  /**
   * {@code rewrites}: where the simplifier appends each rewrite it makes to a predicate (WHERE, ON, HAVING), for a
   * profile; null (the normal path) records nothing.
   */
  public OptimizerContext(BufferAllocator allocator, EvalContext eval, Cancellation cancellation,
      int maxSimplifierPasses) {
    this(allocator, eval, cancellation, maxSimplifierPasses, null);
  }

  public OptimizerContext(BufferAllocator allocator, EvalContext eval, Cancellation cancellation) {
    this(allocator, eval, cancellation, dev.quiver.planner.optimizer.simplify.ExprSimplifier.MAX_PASSES);
  }

  public OptimizerContext(BufferAllocator allocator, EvalContext eval) {
    this(allocator, eval, Cancellation.NONE);
  }
}
