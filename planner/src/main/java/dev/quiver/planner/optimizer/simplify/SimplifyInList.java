package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * Short IN lists become comparisons: {@code x IN ()} is FALSE (even for NULL x), {@code x NOT IN ()}
 * TRUE, {@code x IN (a)} is {@code x = a}, {@code x NOT IN (a)} is {@code x <> a}.
 * <p>Legal by the definition of IN as a disjunction of equalities.
 */
public final class SimplifyInList implements ExprRule {
  @Override
  public String name() {
    return "SimplifyInList";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.InList in)) return node;
    if (in.list().isEmpty()) {
      if (ExprFacts.canFail(in.value()) || ExprFacts.isVolatile(in.value())) return node;
      return in.negated() ? Expr.Literal.TRUE : Expr.Literal.FALSE;
    }
    if (in.list().size() == 1) {
      return new Expr.Comparison(in.negated() ? Expr.CmpOp.NE : Expr.CmpOp.EQ, in.value(), in.list().get(0));
    }
    return node;
  }
}
