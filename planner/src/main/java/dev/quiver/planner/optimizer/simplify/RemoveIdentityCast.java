package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * A cast to the type its input already has does nothing.
 * <p>Before: {@code CAST(d AS DATE) = DATE '2024-01-01'} (d a DATE); after: {@code d = DATE '2024-01-01'}.
 */
public final class RemoveIdentityCast implements ExprRule {
  @Override
  public String name() {
    return "RemoveIdentityCast";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    return node instanceof Expr.Cast c && c.input().type().equals(c.type()) ? c.input() : node;
  }
}
