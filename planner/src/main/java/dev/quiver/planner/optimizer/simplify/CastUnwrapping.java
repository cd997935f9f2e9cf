package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The two layers of the cast-unwrapping contract, shared by the rules that unwrap casts in
 * comparisons and IN lists. Layer 1: is {@code CAST(S AS T)} injective? Layer 2: where does a literal
 * of T fall among the values of S (above / at / below the range, exactly on a value, or between two
 * values, and then which neighbour the conversion picked)?
 */
final class CastUnwrapping {
  private CastUnwrapping() {}

  enum Position { ABOVE_MAX, AT_MAX, AT_MIN, BELOW_MIN, INSIDE }

  /** A literal of T converted into S: {@code value} (S's physical form) and how it relates to the literal. */
  record Converted(Position position, Object value, int direction) {
    boolean exact() {
      return position == Position.INSIDE && direction == 0;
    }
  }

  /** Layer 1: whether every value of {@code s} maps to a distinct value of {@code t} (and order is kept). */
  static boolean injective(ArrowType s, ArrowType t) {
    if (s.equals(t)) return true;
    if (s instanceof ArrowType.Int a && t instanceof ArrowType.Int b) return ExprFacts.Casts2.intFits(a, b);
    if (s instanceof ArrowType.Int a && t.equals(SqlTypes.REAL)) return a.getBitWidth() <= 16;
    if (s instanceof ArrowType.Int a && t.equals(SqlTypes.DOUBLE)) return a.getBitWidth() <= 32;
    if (s instanceof ArrowType.Int a && t instanceof ArrowType.Decimal d) {
      return d.getPrecision() - d.getScale() >= SqlTypes.asDecimal(a).getPrecision();
    }
    if (s instanceof ArrowType.Decimal a && t instanceof ArrowType.Decimal b) {
      return b.getScale() >= a.getScale() && b.getPrecision() - b.getScale() >= a.getPrecision() - a.getScale();
    }
    if (s.equals(SqlTypes.REAL) && t.equals(SqlTypes.DOUBLE)) return true;
    if (s instanceof ArrowType.Timestamp a && t instanceof ArrowType.Timestamp b) {
      return (a.getTimezone() == null) == (b.getTimezone() == null) && b.getUnit().ordinal() >= a.getUnit().ordinal();
    }
    return s instanceof ArrowType.Bool && t instanceof ArrowType.Int;
  }

  /** Layer 2: the literal {@code lit} of type {@code t} among the values of {@code s}, or null when undecidable. */
  static Converted convert(Object lit, ArrowType t, ArrowType s) {
    if (s instanceof ArrowType.Bool) {
      return integral(exactOf(lit, t), BigDecimal.ZERO, BigDecimal.ONE, v -> v.signum() != 0);
    }
    if (s instanceof ArrowType.Int i) {
      BigDecimal min = new BigDecimal(i.getIsSigned() ? BigInteger.ONE.shiftLeft(i.getBitWidth() - 1).negate() : BigInteger.ZERO);
      BigDecimal max = new BigDecimal(i.getIsSigned() ? BigInteger.ONE.shiftLeft(i.getBitWidth() - 1).subtract(BigInteger.ONE)
          : BigInteger.ONE.shiftLeft(i.getBitWidth()).subtract(BigInteger.ONE));
      if (lit instanceof Double d && (d.isNaN() || d == Double.POSITIVE_INFINITY)) return new Converted(Position.ABOVE_MAX, null, 0);
      if (lit instanceof Double d && d == Double.NEGATIVE_INFINITY) return new Converted(Position.BELOW_MIN, null, 0);
      return integral(exactOf(lit, t), min, max, BigDecimal::longValue);
    }
    if (s instanceof ArrowType.Decimal d) {
      BigDecimal v = exactOf(lit, t);
      BigDecimal r = v.setScale(d.getScale(), RoundingMode.HALF_UP);
      if (r.precision() - r.scale() > d.getPrecision() - d.getScale() && r.signum() != 0) return null;
      return new Converted(Position.INSIDE, r, Integer.signum(r.compareTo(v)));
    }
    if (s.equals(SqlTypes.REAL) && lit instanceof Double v) {
      if (v.isNaN()) return new Converted(Position.AT_MAX, Double.NaN, 0);
      if (v == Double.NEGATIVE_INFINITY) return new Converted(Position.AT_MIN, v, 0);
      double r = (double) (float) (double) v;
      return new Converted(Position.INSIDE, r, Double.compare(r, v));
    }
    if (s instanceof ArrowType.Timestamp a && t instanceof ArrowType.Timestamp b) {
      long factor = Casts.unitsPerSecond(b.getUnit()) / Casts.unitsPerSecond(a.getUnit());
      long v = (Long) lit;
      long r = v / factor; // toward zero
      return new Converted(Position.INSIDE, r, Long.compare(r * factor, v));
    }
    if (s.equals(t)) return new Converted(Position.INSIDE, lit, 0);
    return null;
  }

  private static Converted integral(BigDecimal v, BigDecimal min, BigDecimal max,
      java.util.function.Function<BigDecimal, Object> toPhysical) {
    int cMax = v.compareTo(max);
    int cMin = v.compareTo(min);
    if (cMax > 0) return new Converted(Position.ABOVE_MAX, null, 0);
    if (cMax == 0) return new Converted(Position.AT_MAX, toPhysical.apply(max), 0);
    if (cMin < 0) return new Converted(Position.BELOW_MIN, null, 0);
    if (cMin == 0) return new Converted(Position.AT_MIN, toPhysical.apply(min), 0);
    BigDecimal r = v.setScale(0, RoundingMode.DOWN); // toward zero
    return new Converted(Position.INSIDE, toPhysical.apply(r), Integer.signum(r.compareTo(v)));
  }

  /** The exact value of a numeric literal. */
  static BigDecimal exactOf(Object lit, ArrowType t) {
    if (lit instanceof Double d) return new BigDecimal(d);
    if (lit instanceof Boolean b) return b ? BigDecimal.ONE : BigDecimal.ZERO;
    return Casts.exact(lit, t);
  }

  /**
   * {@code c op lit} rewritten on c's own type per the contract's table, or null to leave it.
   * {@code c} has type {@code s}; the result's literals are of type s.
   */
  static Expr rewrite(CmpOp op, Expr c, ArrowType s, Converted k) {
    if (op == CmpOp.NE) {
      Expr eq = rewrite(CmpOp.EQ, c, s, k);
      if (eq instanceof Expr.Comparison cmp) return new Expr.Comparison(CmpOp.NE, cmp.left(), cmp.right());
      return Guards.falseIfNotNullOperand(eq) != null || Guards.isFalse(eq) ? Guards.trueIfNotNull(c) : null;
    }
    Expr.Literal v = k.value() == null ? null : new Expr.Literal(k.value(), s);
    switch (k.position()) {
      case ABOVE_MAX:
        return op == CmpOp.LE || op == CmpOp.LT ? Guards.trueIfNotNull(c) : Guards.falseIfNotNull(c);
      case BELOW_MIN:
        return op == CmpOp.GE || op == CmpOp.GT ? Guards.trueIfNotNull(c) : Guards.falseIfNotNull(c);
      case AT_MAX:
        return switch (op) {
          case GT -> Guards.falseIfNotNull(c);
          case GE, EQ -> new Expr.Comparison(CmpOp.EQ, c, v);
          case LE -> Guards.trueIfNotNull(c);
          default -> new Expr.Comparison(CmpOp.NE, c, v);
        };
      case AT_MIN:
        return switch (op) {
          case GT -> new Expr.Comparison(CmpOp.NE, c, v);
          case GE -> Guards.trueIfNotNull(c);
          case EQ, LE -> new Expr.Comparison(CmpOp.EQ, c, v);
          default -> Guards.falseIfNotNull(c);
        };
      default:
        if (k.direction() == 0) return new Expr.Comparison(op, c, v);
        if (op == CmpOp.EQ) return Guards.falseIfNotNull(c);
        boolean up = k.direction() > 0;
        return switch (op) {
          case GT, GE -> new Expr.Comparison(up ? CmpOp.GE : CmpOp.GT, c, v);
          default -> new Expr.Comparison(up ? CmpOp.LT : CmpOp.LE, c, v);
        };
    }
  }
}
