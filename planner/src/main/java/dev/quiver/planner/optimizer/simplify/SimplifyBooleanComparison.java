package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * Compares a boolean with TRUE / FALSE by using it directly.
 * <p>Before: {@code c = TRUE}, {@code c <> TRUE}; after: {@code c}, {@code NOT c}.
 * <p>Legal in three-valued logic: both sides are NULL exactly when c is.
 */
public final class SimplifyBooleanComparison implements ExprRule {
  @Override
  public String name() {
    return "SimplifyBooleanComparison";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Comparison c) || !(c.right() instanceof Expr.Literal l) || !(l.value() instanceof Boolean b)) {
      return node;
    }
    if (c.op() != Expr.CmpOp.EQ && c.op() != Expr.CmpOp.NE) return node;
    boolean positive = (c.op() == Expr.CmpOp.EQ) == b;
    return positive ? c.left() : new Expr.Not(c.left());
  }
}
