package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Absorption: {@code a AND (b OR a)} is a, {@code a OR (b AND a)} is a.
 * <p>Before: {@code c > 5 AND (d < 6 OR c > 5)}; after: {@code c > 5}.
 * <p>Legal in three-valued logic (Kleene algebra is a lattice); a must be deterministic.
 */
public final class AbsorbTerms implements ChainRule {
  @Override
  public String name() {
    return "AbsorbTerms";
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    Set<Expr> set = new HashSet<>();
    for (Expr t : terms) if (!ExprFacts.isVolatile(t)) set.add(t);
    List<Expr> out = new ArrayList<>();
    boolean changed = false;
    for (Expr t : terms) {
      boolean absorbed = false;
      if (and ? t instanceof Expr.Or : t instanceof Expr.And) {
        for (Expr inner : ExprSimplifier.flatten(!and, t)) {
          if (set.contains(inner) && !inner.equals(t)) {
            absorbed = true;
            break;
          }
        }
      }
      if (absorbed) changed = true;
      else out.add(t);
    }
    return changed ? out : terms;
  }
}
