package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * {@code e IS [NOT] NULL} of an expression that can be neither NULL nor fail is a constant.
 * <p>Before: {@code nonnull_col IS NULL}; after: {@code FALSE}.
 * <p>Legal because the result does not depend on the row; an e that may fail keeps its error.
 */
public final class SimplifyIsNull implements ExprRule {
  @Override
  public String name() {
    return "SimplifyIsNull";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.IsNull n) || n.input().nullable() || ExprFacts.canFail(n.input())
        || ExprFacts.isVolatile(n.input())) {
      return node;
    }
    if (n.input() instanceof Expr.Literal) return node;
    return n.negated() ? Expr.Literal.TRUE : Expr.Literal.FALSE;
  }
}
