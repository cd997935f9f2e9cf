package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * Compares an expression with itself.
 * <p>Before: {@code x = x}, {@code x < x}; after: {@code (x IS NOT NULL OR NULL)}, {@code (x IS NULL AND NULL)}.
 * <p>Legal for deterministic x with floats in total order (NaN = NaN): =, <=, >= hold and <>, <, > fail
 * for every non-NULL value; a NULL x keeps the result NULL through the guard.
 */
public final class SimplifySelfComparison implements ExprRule {
  @Override
  public String name() {
    return "SimplifySelfComparison";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Comparison c) || !c.left().equals(c.right()) || ExprFacts.isVolatile(c.left())) return node;
    if (c.left() instanceof Expr.Literal) return node;
    return switch (c.op()) {
      case EQ, LE, GE -> Guards.trueIfNotNull(c.left());
      default -> Guards.falseIfNotNull(c.left());
    };
  }
}
