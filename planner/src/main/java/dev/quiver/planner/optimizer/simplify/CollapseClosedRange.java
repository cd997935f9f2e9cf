package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code a >= L AND a <= L} is {@code a = L}, in either order.
 * <p>Legal because the only value inside [L, L] is L (for floats in total order too).
 */
public final class CollapseClosedRange implements ChainRule {
  @Override
  public String name() {
    return "CollapseClosedRange";
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    if (!and) return terms;
    for (int i = 0; i < terms.size(); i++) {
      if (!(terms.get(i) instanceof Expr.Comparison a) || !(a.right() instanceof Expr.Literal la) || la.value() == null) continue;
      if (a.op() != Expr.CmpOp.GE && a.op() != Expr.CmpOp.LE) continue;
      Expr.CmpOp other = a.op() == Expr.CmpOp.GE ? Expr.CmpOp.LE : Expr.CmpOp.GE;
      for (int j = i + 1; j < terms.size(); j++) {
        if (terms.get(j) instanceof Expr.Comparison b && b.op() == other && b.left().equals(a.left())
            && b.right() instanceof Expr.Literal lb && ExprFacts.sqlEquals(la, lb) && !ExprFacts.isVolatile(a.left())) {
          List<Expr> out = new ArrayList<>(terms);
          out.set(i, new Expr.Comparison(Expr.CmpOp.EQ, a.left(), la));
          out.remove(j);
          return out;
        }
      }
    }
    return terms;
  }
}
