package dev.quiver.planner.optimizer;

import dev.quiver.planner.plan.LogicalPlan;

/** One rewrite of a logical plan. Returns the same instance when nothing applies. */
public interface Rule {
  String name();

  LogicalPlan apply(LogicalPlan plan, OptimizerContext context);
}
