package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.optimizer.simplify.CastUnwrapping.Converted;
import java.math.BigInteger;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Compares the bare operand instead of its cast, so the comparison can prune.
 * <p>Before: {@code CAST(id AS BIGINT) = 5}, {@code CAST(short AS DOUBLE) >= 100.6},
 * {@code CAST(int AS BIGINT) > 99999999999}; after: {@code id = 5}, {@code short > 100},
 * {@code (int IS NULL AND NULL)}.
 * <p>Legal only for injective, order-preserving casts (layer 1 of the contract): then each literal of
 * the target type sits at a known place among the operand's values (layer 2), and the comparison has
 * an equal form on the operand. Also covers {@code IS [NOT] DISTINCT FROM} and integer-to-VARCHAR
 * equality when the string is an integer's canonical spelling.
 */
public final class UnwrapCastInComparison implements ExprRule {
  @Override
  public String name() {
    return "UnwrapCastInComparison";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (node instanceof Expr.Comparison cmp && cmp.left() instanceof Expr.Cast cast && cmp.right() instanceof Expr.Literal lit
        && lit.value() != null) {
      Expr r = unwrap(cmp.op(), cast, lit);
      return r == null ? node : r;
    }
    if (node instanceof Expr.DistinctFrom d && d.left() instanceof Expr.Cast cast && d.right() instanceof Expr.Literal lit
        && lit.value() != null) {
      Expr eq = unwrap(CmpOp.EQ, cast, lit);
      if (eq == null) return node;
      if (eq instanceof Expr.Comparison c) return new Expr.DistinctFrom(c.left(), c.right(), d.not());
      // the value is impossible: NOT DISTINCT is FALSE (DISTINCT TRUE) even for NULL, if the operand is deterministic
      if (ExprFacts.isVolatile(cast.input())) return node;
      return d.not() ? Expr.Literal.FALSE : Expr.Literal.TRUE;
    }
    return node;
  }

  private static Expr unwrap(CmpOp op, Expr.Cast cast, Expr.Literal lit) {
    Expr c = cast.input();
    ArrowType s = c.type();
    ArrowType t = cast.type();
    if (c instanceof Expr.Literal) return null;
    if (s instanceof ArrowType.Int && t instanceof ArrowType.Utf8) return fromVarchar(op, c, (ArrowType.Int) s, (String) lit.value());
    if (!CastUnwrapping.injective(s, t)) return null;
    Converted k = CastUnwrapping.convert(lit.value(), t, s);
    if (k == null) return null;
    return CastUnwrapping.rewrite(op, c, s, k);
  }

  /** {@code CAST(int AS VARCHAR) = '123'}: only = and <>, only for the canonical spelling of a value of the type. */
  private static Expr fromVarchar(CmpOp op, Expr c, ArrowType.Int s, String text) {
    if (op != CmpOp.EQ && op != CmpOp.NE) return null;
    if (!text.matches("-?(0|[1-9][0-9]{0,19})") || text.equals("-0")) return null;
    BigInteger v = new BigInteger(text);
    if (!dev.quiver.planner.kernel.Casts.fits(v, s)) return null;
    return new Expr.Comparison(op, c, new Expr.Literal(v.longValue(), s));
  }
}
