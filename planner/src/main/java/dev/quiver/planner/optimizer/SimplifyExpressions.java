package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.simplify.ExprSimplifier;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runs the expression simplifier ({@link ExprSimplifier}: constant folding, NULL-safe algebra, cast
 * unwrapping) over every expression of the plan. Its EXPLAIN VERBOSE step names the rules that fired.
 */
public final class SimplifyExpressions extends ExpressionRule {
  private final ExprSimplifier simplifier = ExprSimplifier.standard();
  private final Set<String> fired = new TreeSet<>();

  @Override
  public String name() {
    return "SimplifyExpressions";
  }

  @Override
  public String lastStepName() {
    String s = name() + " " + fired;
    fired.clear();
    return s;
  }

  @Override
  Expr rewrite(Expr e, OptimizerContext context) {
    return simplifier.simplify(e, context, fired);
  }

  @Override
  Expr rewritePredicate(Expr e, OptimizerContext context) {
    return simplifier.simplify(e, context, fired, context.rewrites());
  }
}
