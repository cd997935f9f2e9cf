package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code x AND x} is x and {@code x OR x} is x, for deterministic x; the first occurrence stays.
 * <p>Before: {@code (a > 5 AND b < 6) AND a > 5}; after: {@code a > 5 AND b < 6}.
 * <p>Legal because AND and OR are idempotent; terms with a volatile call never compare equal.
 */
public final class DeduplicateTerms implements ChainRule {
  @Override
  public String name() {
    return "DeduplicateTerms";
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    Set<Expr> seen = new LinkedHashSet<>(terms);
    if (seen.size() == terms.size()) return terms;
    List<Expr> out = new ArrayList<>();
    Set<Expr> added = new java.util.HashSet<>();
    for (Expr t : terms) {
      if (ExprFacts.isVolatile(t) || added.add(t)) out.add(t);
    }
    return out;
  }
}
