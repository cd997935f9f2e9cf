package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;

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

  private static final Pattern CONSTANT_FILTER = Pattern.node(LogicalPlan.Filter.class)
      .with("with a constant condition", p -> ((LogicalPlan.Filter) p).condition() instanceof Expr.Literal);

  @Override
  public Pattern pattern() {
    return CONSTANT_FILTER;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    LogicalPlan.Filter f = (LogicalPlan.Filter) plan;
    Expr.Literal l = (Expr.Literal) f.condition();
    return Boolean.TRUE.equals(l.value()) ? f.input() : new LogicalPlan.Empty(f.schema());
  }
}
