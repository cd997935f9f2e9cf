package dev.quiver.planner.optimizer;

import dev.quiver.planner.optimizer.simplify.ExprSimplifier;
import dev.quiver.planner.optimizer.simplify.FilterContext;
import dev.quiver.planner.plan.LogicalPlan;
import java.util.Set;
import java.util.TreeSet;

/**
 * In a WHERE condition UNKNOWN is as good as FALSE: NULL and {@code (c IS NULL AND NULL)} become FALSE,
 * {@code (c IS NOT NULL OR NULL)} becomes {@code c IS NOT NULL} wherever the root reaches through
 * AND / OR only; then the condition is simplified again.
 * <p>Before: {@code WHERE (a IS NOT NULL OR NULL) AND b = 1}; after: {@code WHERE a IS NOT NULL AND b = 1}.
 * <p>Legal because a filter keeps a row only when its condition is TRUE, and turning UNKNOWN into FALSE
 * under AND / OR (not under NOT) never changes which rows are TRUE. See {@link FilterContext}.
 */
public final class SimplifyFilterPredicate implements Rule {
  private final ExprSimplifier simplifier = ExprSimplifier.standard();
  private final Set<String> fired = new TreeSet<>();

  @Override
  public String name() {
    return "SimplifyFilterPredicate";
  }

  @Override
  public String lastStepName() {
    String s = name() + " " + fired;
    fired.clear();
    return s;
  }

  @Override
  public Pattern pattern() {
    return Pattern.node(LogicalPlan.Filter.class);
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    LogicalPlan.Filter f = (LogicalPlan.Filter) plan;
    var condition = simplifier.simplifyFilter(f.condition(), context, fired, context.rewrites());
    return condition.equals(f.condition()) ? plan : new LogicalPlan.Filter(f.input(), condition);
  }
}
