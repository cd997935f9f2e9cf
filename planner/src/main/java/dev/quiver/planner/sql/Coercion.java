package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Type coercion of bound expressions: the implicit CAST to a type, the common type compared or listed operands meet
 * at (or the error naming both), and the typing of {@code ?} parameters from what they are compared with.
 */
final class Coercion {
  private Coercion() {}

  /** Whether {@code e} reads no column and calls nothing volatile. */
  public static boolean isConstant(Expr e) {
    if (e instanceof Expr.ColumnRef) return false;
    if (e instanceof Expr.Call c && c.volatility() == Expr.Volatility.VOLATILE) return false;
    for (Expr c : e.children()) if (!isConstant(c)) return false;
    return true;
  }

  /** {@code e} as type {@code t}: itself if it already is, else an implicit CAST. */
  static Expr coerce(Expr e, ArrowType t) {
    if (e instanceof Expr.Literal l && l.value() instanceof Parameters.Marker m) {
      return m.owner().resolve(m.index(), SqlTypes.isNull(t) ? SqlTypes.VARCHAR : t);
    }
    return e.type().equals(t) ? e : new Expr.Cast(e, t, false);
  }

  /** A parameter compared with {@code other} becomes a literal of its wire type; anything else stays. */
  static Expr materialize(Expr e, Expr other) {
    if (e instanceof Expr.Literal l && l.value() instanceof Parameters.Marker m) {
      return m.owner().literal(m.index(), Parameters.isMarker(other) ? SqlTypes.VARCHAR : other.type());
    }
    return e;
  }

  /**
   * The type two compared operands are coerced to. With {@code constantsTakeOtherSideType}, a constant compared with
   * a non-constant expression takes that expression's type (see {@link ExprBinder#forPredicate}).
   */
  static ArrowType meet(Expr l, Expr r, Object text, boolean constantsTakeOtherSideType) {
    if (constantsTakeOtherSideType) {
      boolean lc = isConstant(l);
      boolean rc = isConstant(r);
      if (rc && !lc && castableTo(r, l.type())) return l.type();
      if (lc && !rc && castableTo(l, r.type())) return r.type();
    }
    return commonOrFail(l.type(), r.type(), text);
  }

  static boolean castableTo(Expr constant, ArrowType t) {
    return SqlTypes.isNull(constant.type()) || SqlTypes.comparisonCommon(constant.type(), t) != null;
  }

  static ArrowType commonOrFail(ArrowType a, ArrowType b, Object text) {
    ArrowType t = common(a, b, text);
    return SqlTypes.isNull(t) ? SqlTypes.BOOLEAN : t;
  }

  /**
   * The type {@code a} and {@code b} meet at, or fails; two untyped NULLs stay untyped (NULL), so that a NULL
   * folded in before a typed value takes that value's type: {@code NULL IN (NULL, 1)} is INTEGER.
   */
  static ArrowType common(ArrowType a, ArrowType b, Object text) {
    ArrowType t = SqlTypes.comparisonCommon(a, b);
    if (t == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY,
          "cannot compare " + SqlTypes.sqlName(a) + " with " + SqlTypes.sqlName(b) + ": " + SqlPositions.snippet(text));
    }
    return t;
  }

  /** {@code t}, or BOOLEAN when nothing gave a type (every operand an untyped NULL). */
  static ArrowType settled(ArrowType t) {
    return SqlTypes.isNull(t) ? SqlTypes.BOOLEAN : t;
  }

  /**
   * An IN item as type {@code t}: an integer literal converted now (a list of 100,000 items would otherwise
   * fold 100,000 casts on the kernels); anything else, or a value out of range, by {@link #coerce}.
   */
  static Expr coerceItem(Expr item, ArrowType t) {
    if (item instanceof Expr.Literal l && l.value() instanceof Long && l.type() instanceof ArrowType.Int
        && t instanceof ArrowType.Int && !l.type().equals(t)) {
      try {
        return new Expr.Literal(Casts.cast(l.value(), l.type(), t), t);
      } catch (QuiverException outOfRange) {
        // the cast stays, and fails where the kernels would make it fail
      }
    }
    return coerce(item, t);
  }
}
