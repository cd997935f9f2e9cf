package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes CASE branches that can never be taken and ends at the first one that always is; a boolean
 * {@code CASE WHEN c THEN r ELSE FALSE END} with c never NULL becomes {@code c AND r}.
 * <p>Before: {@code CASE WHEN FALSE THEN 1/0 WHEN TRUE THEN x END}; after: {@code x}.
 * <p>Legal because a WHEN whose condition is FALSE or NULL is skipped and one that is TRUE is taken; the
 * AND form is equal when c is never NULL and r cannot fail (r now runs for rows where c is FALSE).
 */
public final class SimplifyCase implements ExprRule {
  @Override
  public String name() {
    return "SimplifyCase";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Case c)) return node;
    List<Expr.When> kept = new ArrayList<>();
    Expr otherwise = c.otherwise();
    for (Expr.When w : c.whens()) {
      if (Guards.isFalse(w.condition()) || Guards.isNull(w.condition())) continue;
      if (Guards.isTrue(w.condition())) {
        otherwise = w.result();
        break;
      }
      kept.add(w);
    }
    if (kept.isEmpty()) return otherwise;
    if (kept.size() == 1 && Guards.isFalse(otherwise)) {
      Expr.When w = kept.get(0);
      if (!w.condition().nullable() && !ExprFacts.canFail(w.result()) && !ExprFacts.isVolatile(w.result())) {
        return new Expr.And(w.condition(), w.result());
      }
    }
    return kept.size() == c.whens().size() && otherwise == c.otherwise() ? node : new Expr.Case(kept, otherwise, c.type());
  }
}
