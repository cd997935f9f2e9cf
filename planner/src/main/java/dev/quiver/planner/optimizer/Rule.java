package dev.quiver.planner.optimizer;

import dev.quiver.planner.plan.LogicalPlan;

/**
 * One rewrite of a logical plan node. A rule declares the nodes it matches ({@link #pattern()}) and the
 * order the driver ({@link Optimizer}) visits them in ({@link #order()}); the driver calls
 * {@link #apply} on each matching node, whose inputs it has already rewritten when the order is
 * bottom-up. A rule rewrites only that node (and, where its legality argument says so, the subtree
 * below it) and must return the very same instance when it does not apply: that is how the driver
 * knows that nothing changed, without comparing plans.
 */
public interface Rule {
  /** The order in which the driver visits a plan's nodes for this rule. */
  enum Order {
    /** Inputs first, then the node (over the node with its rewritten inputs). */
    BOTTOM_UP,
    /** The node first, then the inputs of what it was rewritten to. */
    TOP_DOWN
  }

  String name();

  /** The nodes this rule applies to. */
  Pattern pattern();

  default Order order() {
    return Order.BOTTOM_UP;
  }

  /**
   * The rewrite of {@code node}, which matches {@link #pattern()}, with the same output schema; the same
   * instance when the rule does not apply.
   */
  LogicalPlan apply(LogicalPlan node, OptimizerContext context);

  /** The name EXPLAIN VERBOSE shows for the step this rule just made (may add detail). */
  default String lastStepName() {
    return name();
  }
}
