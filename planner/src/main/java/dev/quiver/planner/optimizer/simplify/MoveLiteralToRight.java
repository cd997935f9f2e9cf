package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * Puts the literal of a comparison on the right.
 * <p>Before: {@code 5 > c}; after: {@code c < 5}.
 * <p>Legal because {@code a op b} is {@code b flip(op) a}; later rules and pushdown look only on the right.
 */
public final class MoveLiteralToRight implements ExprRule {
  @Override
  public String name() {
    return "MoveLiteralToRight";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (node instanceof Expr.Comparison c && c.left() instanceof Expr.Literal && !(c.right() instanceof Expr.Literal)) {
      return new Expr.Comparison(c.op().flip(), c.right(), c.left());
    }
    if (node instanceof Expr.DistinctFrom d && d.left() instanceof Expr.Literal && !(d.right() instanceof Expr.Literal)) {
      return new Expr.DistinctFrom(d.right(), d.left(), d.not());
    }
    return node;
  }
}
