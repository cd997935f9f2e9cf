package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * One rewrite of a single expression node whose children are already simplified. Returns the same
 * instance when it does not apply. Implementations are small and named for what they do.
 */
public interface ExprRule {
  String name();

  Expr apply(Expr node, OptimizerContext context);
}
