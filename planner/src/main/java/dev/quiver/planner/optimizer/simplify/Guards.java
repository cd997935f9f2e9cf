package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.types.SqlTypes;

/**
 * The two null guards of the contract: {@code falseIfNotNull(c) = (c IS NULL AND NULL)} is FALSE for
 * a non-NULL c and NULL otherwise; {@code trueIfNotNull(c) = (c IS NOT NULL OR NULL)} is TRUE for a
 * non-NULL c and NULL otherwise. For an operand that cannot be NULL they are plain FALSE / TRUE.
 */
public final class Guards {
  public static final Expr.Literal NULL = Expr.Literal.nullOf(SqlTypes.BOOLEAN);

  private Guards() {}

  public static Expr falseIfNotNull(Expr c) {
    return c.nullable() ? new Expr.And(new Expr.IsNull(c, false), NULL) : Expr.Literal.FALSE;
  }

  public static Expr trueIfNotNull(Expr c) {
    return c.nullable() ? new Expr.Or(new Expr.IsNull(c, true), NULL) : Expr.Literal.TRUE;
  }

  /** The guarded operand if {@code e} is {@code (c IS NULL AND NULL)}, else null. */
  public static Expr falseIfNotNullOperand(Expr e) {
    if (e instanceof Expr.And a && isNull(a.right()) && a.left() instanceof Expr.IsNull n && !n.negated()) return n.input();
    return null;
  }

  /** The guarded operand if {@code e} is {@code (c IS NOT NULL OR NULL)}, else null. */
  public static Expr trueIfNotNullOperand(Expr e) {
    if (e instanceof Expr.Or o && isNull(o.right()) && o.left() instanceof Expr.IsNull n && n.negated()) return n.input();
    return null;
  }

  public static boolean isNull(Expr e) {
    return e instanceof Expr.Literal l && l.value() == null;
  }

  public static boolean isTrue(Expr e) {
    return e instanceof Expr.Literal l && Boolean.TRUE.equals(l.value());
  }

  public static boolean isFalse(Expr e) {
    return e instanceof Expr.Literal l && Boolean.FALSE.equals(l.value());
  }
}
