package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code x AND NOT x} and {@code x OR NOT x}.
 * <p>Before: {@code c AND NOT c}; after: {@code (c IS NULL AND NULL)} (FALSE when c is never NULL);
 * {@code c OR NOT c} gives {@code (c IS NOT NULL OR NULL)} (TRUE when c is never NULL).
 * The chain's other terms stay: {@code x AND NOT x AND y} is {@code (x IS NULL AND NULL) AND y}, never the guard
 * alone (for NULL x and FALSE y the chain is FALSE, the guard NULL; for NULL x and TRUE y, {@code x OR NOT x OR
 * y} is TRUE).
 * <p>Legal in three-valued logic for deterministic x: for non-NULL x one side is TRUE and one FALSE,
 * for NULL x both are NULL; AND and OR are associative and commutative, so the pair may be taken out of the chain.
 */
public final class CollapseComplement implements ChainRule {
  @Override
  public String name() {
    return "CollapseComplement";
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    Set<Expr> set = new HashSet<>(terms);
    for (Expr t : terms) {
      if (t instanceof Expr.Not n && set.contains(n.input()) && !ExprFacts.isVolatile(n.input())) {
        List<Expr> out = new ArrayList<>();
        out.add(and ? Guards.falseIfNotNull(n.input()) : Guards.trueIfNotNull(n.input()));
        for (Expr other : terms) if (!other.equals(t) && !other.equals(n.input())) out.add(other);
        return out;
      }
    }
    return terms;
  }
}
