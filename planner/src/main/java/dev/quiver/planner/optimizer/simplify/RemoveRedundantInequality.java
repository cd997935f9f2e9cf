package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code x = a AND x <> b} is {@code x = a} when the literals differ.
 * <p>Before: {@code x <> 3 AND x = 5}; after: {@code x = 5}.
 * <p>Legal because x = a already fixes x to a value unequal to b (literals compared by SQL equality, so
 * {@code f = 0.0 AND f <> -0.0} stays).
 */
public final class RemoveRedundantInequality implements ChainRule {
  @Override
  public String name() {
    return "RemoveRedundantInequality";
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    if (!and) return terms;
    List<Expr> out = new ArrayList<>();
    boolean changed = false;
    for (Expr t : terms) {
      if (t instanceof Expr.Comparison ne && ne.op() == Expr.CmpOp.NE && ne.right() instanceof Expr.Literal b
          && b.value() != null && fixedElsewhere(terms, ne.left(), b)) {
        changed = true;
        continue;
      }
      out.add(t);
    }
    return changed ? out : terms;
  }

  private static boolean fixedElsewhere(List<Expr> terms, Expr x, Expr.Literal b) {
    if (ExprFacts.isVolatile(x)) return false;
    for (Expr t : terms) {
      if (t instanceof Expr.Comparison eq && eq.op() == Expr.CmpOp.EQ && eq.left().equals(x)
          && eq.right() instanceof Expr.Literal a && a.value() != null && a.type().equals(b.type())
          && !ExprFacts.sqlEquals(a, b)) {
        return true;
      }
    }
    return false;
  }
}
