package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * Moves NOT inward until it sits on something it cannot enter.
 * <p>Before: {@code NOT (a < 1 OR b IS NULL)}; after: {@code a >= 1 AND b IS NOT NULL}.
 * <p>Legal in three-valued logic: De Morgan holds, NOT NOT x is x, and with floats in total order
 * NOT (a < b) is a >= b for every type (and both are NULL when an operand is NULL).
 */
public final class PushNotIntoExpression implements ExprRule {
  @Override
  public String name() {
    return "PushNotIntoExpression";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Not not)) return node;
    Expr x = not.input();
    if (x instanceof Expr.Not inner) return inner.input();
    if (x instanceof Expr.And a) return new Expr.Or(negate(a.left()), negate(a.right()));
    if (x instanceof Expr.Or o) return new Expr.And(negate(o.left()), negate(o.right()));
    if (x instanceof Expr.Comparison c) return new Expr.Comparison(negate(c.op()), c.left(), c.right());
    if (x instanceof Expr.IsNull n) return new Expr.IsNull(n.input(), !n.negated());
    if (x instanceof Expr.InList in) return new Expr.InList(in.value(), in.list(), !in.negated());
    if (x instanceof Expr.Like l) return new Expr.Like(l.input(), l.pattern(), l.caseInsensitive(), !l.negated());
    if (x instanceof Expr.DistinctFrom d) return new Expr.DistinctFrom(d.left(), d.right(), !d.not());
    return node;
  }

  static Expr negate(Expr e) {
    return new Expr.Not(e);
  }

  static Expr.CmpOp negate(Expr.CmpOp op) {
    return switch (op) {
      case EQ -> Expr.CmpOp.NE; case NE -> Expr.CmpOp.EQ; case LT -> Expr.CmpOp.GE;
      case LE -> Expr.CmpOp.GT; case GT -> Expr.CmpOp.LE; case GE -> Expr.CmpOp.LT;
    };
  }
}
