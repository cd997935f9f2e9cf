package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.Functions;
import dev.quiver.planner.optimizer.OptimizerContext;

/**
 * A strict operator with a NULL operand is NULL.
 * <p>Before: {@code c3 * NULL > 5}; after: {@code NULL}.
 * <p>Legal for comparisons, arithmetic, casts, LIKE, NOT and strict functions, which are NULL whenever
 * an operand is; only when the other operands cannot fail, so no run-time error is lost.
 * {@code x IN ()} stays FALSE even for a NULL x.
 */
public final class PropagateNulls implements ExprRule {
  @Override
  public String name() {
    return "PropagateNulls";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    boolean strict = node instanceof Expr.Comparison || node instanceof Expr.Arithmetic || node instanceof Expr.Negate
        || node instanceof Expr.Cast || node instanceof Expr.Like || node instanceof Expr.Not
        || (node instanceof Expr.InList in && !in.list().isEmpty() && Guards.isNull(in.value()))
        || (node instanceof Expr.Call c && Functions.lookup(c.name()) != null && Functions.lookup(c.name()).strict());
    if (!strict) return node;
    if (node instanceof Expr.InList in) return nullIfSafe(node, in.list());
    boolean anyNull = node.children().stream().anyMatch(Guards::isNull);
    return anyNull ? nullIfSafe(node, node.children()) : node;
  }

  private static Expr nullIfSafe(Expr node, java.util.List<Expr> others) {
    for (Expr o : others) if (ExprFacts.canFail(o) || ExprFacts.isVolatile(o)) return node;
    return Expr.Literal.nullOf(node.type());
  }
}
