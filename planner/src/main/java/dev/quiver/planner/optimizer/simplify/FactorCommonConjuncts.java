package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Pulls a conjunct shared by every disjunct out of an OR.
 * <p>Before: {@code (a = 2 AND f(x)) OR (a = 2 AND g(x))}; after: {@code a = 2 AND (f(x) OR g(x))}.
 * <p>Legal by distributivity, which holds in three-valued logic; the common conjunct is deterministic.
 */
public final class FactorCommonConjuncts implements ChainRule {
  @Override
  public String name() {
    return "FactorCommonConjuncts";
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    if (and || terms.size() < 2) return terms;
    List<List<Expr>> conjuncts = new ArrayList<>();
    for (Expr t : terms) conjuncts.add(ExprSimplifier.flatten(true, t));
    Set<Expr> common = new LinkedHashSet<>(conjuncts.get(0));
    for (List<Expr> c : conjuncts.subList(1, conjuncts.size())) common.retainAll(c);
    common.removeIf(ExprFacts::isVolatile);
    if (common.isEmpty()) return terms;
    List<Expr> rests = new ArrayList<>();
    for (List<Expr> c : conjuncts) {
      List<Expr> rest = new ArrayList<>();
      for (Expr x : c) if (!common.contains(x)) rest.add(x);
      if (rest.isEmpty()) return List.of(ExprSimplifier.build(true, new ArrayList<>(common))); // a OR (a AND b) is a
      rests.add(ExprSimplifier.build(true, rest));
    }
    List<Expr> out = new ArrayList<>(common);
    out.add(ExprSimplifier.build(false, rests));
    return List.of(ExprSimplifier.build(true, out));
  }
}
