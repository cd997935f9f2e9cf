package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.List;

/**
 * In a WHERE clause a row is kept only if the condition is TRUE, so UNKNOWN may be read as FALSE
 * wherever the root reaches through AND / OR only (never under NOT, where it would become TRUE):
 * NULL and {@code (c IS NULL AND NULL)} become FALSE, {@code (c IS NOT NULL OR NULL)} becomes
 * {@code c IS NOT NULL}. That is what makes the guards of cast unwrapping pushable.
 */
public final class FilterContext {
  private FilterContext() {}

  public static Expr unknownAsFalse(Expr e) {
    if (Guards.isNull(e)) return Expr.Literal.FALSE;
    if (Guards.falseIfNotNullOperand(e) != null) return Expr.Literal.FALSE;
    Expr t = Guards.trueIfNotNullOperand(e);
    if (t != null) return new Expr.IsNull(t, true);
    if (e instanceof Expr.And || e instanceof Expr.Or) {
      boolean and = e instanceof Expr.And;
      List<Expr> terms = new ArrayList<>();
      boolean changed = false;
      for (Expr x : ExprSimplifier.flatten(and, e)) {
        Expr y = unknownAsFalse(x);
        changed |= y != x;
        terms.add(y);
      }
      return changed ? ExprSimplifier.build(and, terms) : e;
    }
    return e;
  }
}
