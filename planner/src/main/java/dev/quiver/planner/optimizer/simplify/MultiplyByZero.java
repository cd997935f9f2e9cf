package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;

/**
 * {@code x * 0} is 0 for an exact-numeric x that is never NULL and cannot fail.
 * <p>Before: {@code nonnull_int * 0 > 5}; after: {@code 0 > 5}, then FALSE.
 * <p>Legal for integers and decimals only: a NULL x gives NULL and a float x may be NaN or infinite,
 * where {@code x * 0} is NaN.
 */
public final class MultiplyByZero implements ExprRule {
  @Override
  public String name() {
    return "MultiplyByZero";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Arithmetic a) || a.op() != Expr.ArithOp.MULTIPLY || SqlTypes.isFloat(a.type())) return node;
    Expr other = isZero(a.right()) ? a.left() : isZero(a.left()) ? a.right() : null;
    if (other == null || other.nullable() || ExprFacts.canFail(other) || ExprFacts.isVolatile(other)) return node;
    Object zero = a.type() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Decimal d
        ? BigDecimal.ZERO.setScale(d.getScale()) : (Object) 0L;
    return new Expr.Literal(zero, a.type());
  }

  private static boolean isZero(Expr e) {
    if (!(e instanceof Expr.Literal l) || l.value() == null) return false;
    return l.value() instanceof Long x ? x == 0 : l.value() instanceof BigDecimal b && b.signum() == 0;
  }
}
