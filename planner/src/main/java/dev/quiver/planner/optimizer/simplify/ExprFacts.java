package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** What rules need to know about an expression beyond its type: volatility, failure, literal equality. */
public final class ExprFacts {
  private ExprFacts() {}

  /** Whether evaluating {@code e} twice may give different values (it calls a volatile function). */
  public static boolean isVolatile(Expr e) {
    if (e instanceof Expr.Call c && c.volatility() == Expr.Volatility.VOLATILE) return true;
    for (Expr c : e.children()) if (isVolatile(c)) return true;
    return false;
  }

  /** Whether evaluating {@code e} may raise an error (overflow, division by zero, invalid cast or pattern). */
  public static boolean canFail(Expr e) {
    if (e instanceof Expr.Arithmetic a) {
      if (canFail(a.left()) || canFail(a.right())) return true;
      if (a.op() == Expr.ArithOp.DIVIDE || a.op() == Expr.ArithOp.MODULO) {
        return !(a.right() instanceof Expr.Literal l && l.value() != null && !isZero(l) && !isMinusOne(l));
      }
      return !SqlTypes.isFloat(a.type());
    }
    if (e instanceof Expr.Negate n) return canFail(n.input()) || !SqlTypes.isFloat(n.type());
    if (e instanceof Expr.Cast c) return canFail(c.input()) || (!c.safe() && castCanFail(c.input().type(), c.type()));
    if (e instanceof Expr.Call c) {
      switch (c.name()) {
        case "regexp_like", "abs", "round", "substring", "date_trunc", "date_part":
          return true;
        default:
          break;
      }
    }
    for (Expr c : e.children()) if (canFail(c)) return true;
    return false;
  }

  /** Whether every value of {@code from} has a value in {@code to} (the cast never fails). */
  public static boolean castCanFail(ArrowType from, ArrowType to) {
    if (from.equals(to) || SqlTypes.isNull(from) || SqlTypes.isString(to)) return false;
    if (from instanceof ArrowType.Int a && to instanceof ArrowType.Int b) return !Casts2.intFits(a, b);
    if (from instanceof ArrowType.Int && SqlTypes.isFloat(to)) return false;
    if (from instanceof ArrowType.Int a && to instanceof ArrowType.Decimal d) {
      return d.getPrecision() - d.getScale() < SqlTypes.asDecimal(a).getPrecision();
    }
    if (from instanceof ArrowType.Decimal a && to instanceof ArrowType.Decimal b) {
      return b.getPrecision() - b.getScale() < a.getPrecision() - a.getScale();
    }
    if (from instanceof ArrowType.Decimal && SqlTypes.isFloat(to)) return false;
    if (from.equals(SqlTypes.REAL) && to.equals(SqlTypes.DOUBLE)) return false;
    if (from instanceof ArrowType.Bool && to instanceof ArrowType.Int) return false;
    if (from instanceof ArrowType.Date && to instanceof ArrowType.Timestamp t) {
      return t.getUnit() == org.apache.arrow.vector.types.TimeUnit.NANOSECOND;
    }
    if (from instanceof ArrowType.Timestamp && to instanceof ArrowType.Date) return false;
    return true;
  }

  private static boolean isZero(Expr.Literal l) {
    Object v = l.value();
    if (v instanceof Long x) return x == 0;
    if (v instanceof Double d) return d == 0.0;
    if (v instanceof BigDecimal b) return b.signum() == 0;
    return false;
  }

  private static boolean isMinusOne(Expr.Literal l) {
    Object v = l.value();
    return v instanceof Long x && x == -1;
  }

  /** SQL equality of two non-NULL literals of one type (0.0 = -0.0, NaN = NaN). */
  public static boolean sqlEquals(Expr.Literal a, Expr.Literal b) {
    if (a.value() == null || b.value() == null || !a.type().equals(b.type())) return false;
    return Kernels.compareObjects(Kernels.family(a.type()), a.value(), b.value()) == 0;
  }

  /** Helpers on integer types. */
  static final class Casts2 {
    private Casts2() {}

    /** Whether every value of integer type {@code a} is a value of integer type {@code b}. */
    static boolean intFits(ArrowType.Int a, ArrowType.Int b) {
      if (a.equals(b)) return true;
      if (a.getIsSigned()) return b.getIsSigned() && b.getBitWidth() > a.getBitWidth();
      return b.getBitWidth() > a.getBitWidth();
    }
  }
}
