package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.List;

/**
 * One rewrite of a whole AND chain or OR chain, given as its flattened terms (already simplified).
 * Returns the same list instance when it does not apply; a result of one term replaces the chain.
 */
public interface ChainRule {
  String name();

  List<Expr> apply(boolean and, List<Expr> terms);
}
