package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * A filter whose condition simplified to a constant: TRUE keeps every row (the filter goes), FALSE or
 * NULL keeps none (the filter and its input become an empty relation: nothing is read).
 * <p>Before: {@code Filter(FALSE) -> TableScan(t)}; after: {@code EmptyRelation}.
 * <p>Legal because a filter keeps exactly the rows whose condition is TRUE.
 */
public final class RemoveTrivialFilter implements Rule {
  @Override
  public String name() {
    return "RemoveTrivialFilter";
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    List<LogicalPlan> children = new ArrayList<>();
    for (LogicalPlan c : plan.children()) children.add(apply(c, context));
    if (!children.equals(plan.children())) plan = plan.withChildren(children);
    if (plan instanceof LogicalPlan.Filter f && f.condition() instanceof Expr.Literal l) {
      return Boolean.TRUE.equals(l.value()) ? f.input() : new LogicalPlan.Empty(f.schema());
    }
    return plan;
  }
}
