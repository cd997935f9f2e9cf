package dev.quiver.planner.optimizer;

import dev.quiver.planner.plan.LogicalPlan;

/** One rewrite of a logical plan. Returns the same instance when nothing applies. */
public interface Rule {
  String name();

  LogicalPlan apply(LogicalPlan plan, OptimizerContext context);

  /** The name EXPLAIN VERBOSE shows for the step this rule just made (may add detail). */
  default String lastStepName() {
    return name();
  }
}
