package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.List;

/**
 * TRUE and FALSE in AND / OR chains: {@code x AND TRUE} is x, {@code x AND FALSE} is FALSE,
 * {@code x OR FALSE} is x, {@code x OR TRUE} is TRUE (NULL stays: {@code NULL AND x} depends on x).
 * <p>Legal in three-valued logic: FALSE dominates AND and TRUE dominates OR even against NULL, and the
 * dropped terms have no effects (an error they might raise is not one the query must report).
 */
public final class RemoveBooleanConstants implements ChainRule {
  @Override
  public String name() {
    return "RemoveBooleanConstants";
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    Expr dominant = and ? Expr.Literal.FALSE : Expr.Literal.TRUE;
    Expr neutral = and ? Expr.Literal.TRUE : Expr.Literal.FALSE;
    if (terms.contains(dominant)) return List.of(dominant);
    if (!terms.contains(neutral)) return terms;
    List<Expr> out = new ArrayList<>();
    for (Expr t : terms) if (!t.equals(neutral)) out.add(t);
    return out.isEmpty() ? List.of(neutral) : out;
  }
}
