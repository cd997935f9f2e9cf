package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.ArithOp;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.SignedExpression;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Binds arithmetic: unary signs, the binary operators with their result types (DECIMAL precision and scale as the
 * operands give them), and {@code temporal ± INTERVAL}.
 */
final class ArithmeticBinder {
  private final ExprBinder binder;

  ArithmeticBinder(ExprBinder binder) {
    this.binder = binder;
  }

  Expr signed(SignedExpression s) {
    Expression inner = s.getExpression();
    if (s.getSign() == '+') return numeric(binder.bind(inner), "unary +");
    if (inner instanceof LongValue l) return Literals.integer(Literals.integerValue(l).negate());
    if (inner instanceof DoubleValue d) {
      Expr.Literal lit = Literals.decimalLiteral(d.toString());
      return lit.value() instanceof BigDecimal b ? new Expr.Literal(b.negate(), lit.type())
          : new Expr.Literal(-(Double) lit.value(), lit.type());
    }
    Expr e = numeric(binder.bind(inner), "unary -");
    ArrowType t = SqlTypes.signedView(e.type());
    return new Expr.Negate(Coercion.coerce(e, t));
  }

  Expr numeric(Expr e, String op) {
    if (SqlTypes.isNull(e.type())) return Coercion.coerce(e, SqlTypes.INTEGER);
    if (!SqlTypes.isNumeric(e.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "operator " + op + " is not defined for " + SqlTypes.sqlName(e.type()));
    }
    return e;
  }

  Expr arithmetic(ArithOp op, BinaryExpression b) {
    if (b.getRightExpression() instanceof net.sf.jsqlparser.expression.IntervalExpression iv
        && (op == ArithOp.ADD || op == ArithOp.SUBTRACT)) {
      return interval(binder.bind(b.getLeftExpression()), iv, op == ArithOp.SUBTRACT, b);
    }
    if (b.getLeftExpression() instanceof net.sf.jsqlparser.expression.IntervalExpression iv && op == ArithOp.ADD) {
      return interval(binder.bind(b.getRightExpression()), iv, false, b);
    }
    Expr l = binder.bind(b.getLeftExpression());
    Expr r = binder.bind(b.getRightExpression());
    if (SqlTypes.isNull(l.type()) && SqlTypes.isNull(r.type())) {
      l = Coercion.coerce(l, SqlTypes.INTEGER);
      r = Coercion.coerce(r, SqlTypes.INTEGER);
    } else if (SqlTypes.isNull(l.type())) {
      l = Coercion.coerce(l, r.type());
    } else if (SqlTypes.isNull(r.type())) {
      r = Coercion.coerce(r, l.type());
    }
    if (!SqlTypes.isNumeric(l.type()) || !SqlTypes.isNumeric(r.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "operator " + op.symbol + " is not defined for "
          + SqlTypes.sqlName(l.type()) + " and " + SqlTypes.sqlName(r.type()) + ": " + SqlPositions.snippet(b));
    }
    ArrowType common = SqlTypes.numericCommon(l.type(), r.type());
    if (common instanceof ArrowType.Decimal) {
      if (op == ArithOp.DIVIDE) {
        return new Expr.Arithmetic(op, Coercion.coerce(l, SqlTypes.DOUBLE), Coercion.coerce(r, SqlTypes.DOUBLE), SqlTypes.DOUBLE);
      }
      ArrowType.Decimal x = SqlTypes.asDecimal(SqlTypes.signedView(l.type()));
      ArrowType.Decimal y = SqlTypes.asDecimal(SqlTypes.signedView(r.type()));
      Expr lx = Coercion.coerce(l, x);
      Expr ry = Coercion.coerce(r, y);
      ArrowType result = switch (op) {
        case ADD, SUBTRACT -> {
          int s = Math.max(x.getScale(), y.getScale());
          int p = Math.max(x.getPrecision() - x.getScale(), y.getPrecision() - y.getScale()) + s + 1;
          yield SqlTypes.decimal(Math.min(SqlTypes.MAX_DECIMAL_PRECISION, p), s);
        }
        case MULTIPLY -> {
          int p = Math.min(SqlTypes.MAX_DECIMAL_PRECISION, x.getPrecision() + y.getPrecision());
          yield SqlTypes.decimal(p, Math.min(p, x.getScale() + y.getScale()));
        }
        default -> common;
      };
      return new Expr.Arithmetic(op, lx, ry, result);
    }
    return new Expr.Arithmetic(op, Coercion.coerce(l, common), Coercion.coerce(r, common), common);
  }

  /**
   * {@code temporal ± INTERVAL 'n' unit}: a call of {@code add_interval(t, months, micros)}. Year and
   * month intervals add calendar months (the day is clamped to the month's end); day and smaller units add
   * a fixed duration. A DATE plus a whole number of days or months stays a DATE; plus hours or smaller it
   * becomes a TIMESTAMP.
   */
  Expr interval(Expr t, net.sf.jsqlparser.expression.IntervalExpression iv, boolean subtract, BinaryExpression b) {
    if (!SqlTypes.isTemporal(t.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "an INTERVAL can only be added to or subtracted from a DATE or "
          + "TIMESTAMP, not " + SqlTypes.sqlName(t.type()) + ": " + SqlPositions.snippet(b));
    }
    String text = iv.getParameter();
    String unit = iv.getIntervalType();
    net.sf.jsqlparser.expression.IntervalQualifier qualifier = iv.getIntervalQualifier();
    if (unit == null && qualifier != null) {
      // JSqlParser 5.4 reads "INTERVAL '1' MONTH" as a parameter with a qualifier
      if (qualifier.getTrailingField() != null || qualifier.getLeadingFieldPrecision() != null
          || qualifier.getFractionalSecondsPrecision() != null) {
        throw QuiverException.unsupported("the interval qualifier " + qualifier + " in " + SqlPositions.snippet(iv));
      }
      unit = qualifier.getLeadingField();
    }
    if (text == null && iv.getExpression() != null) text = iv.getExpression().toString();
    if (text == null) throw QuiverException.unsupported("the interval " + SqlPositions.snippet(iv));
    text = text.replace("'", "").trim();
    if (unit == null) {
      String[] parts = text.split("\\s+");
      if (parts.length != 2) throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot read the interval " + SqlPositions.snippet(iv));
      text = parts[0];
      unit = parts[1];
    }
    long n;
    try {
      n = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the interval amount must be an integer: " + SqlPositions.snippet(iv));
    }
    if (subtract) n = -n;
    String u = unit.toUpperCase(Locale.ROOT);
    if (u.endsWith("S")) u = u.substring(0, u.length() - 1);
    long months = 0;
    long micros = 0;
    try {
      switch (u) {
        case "YEAR" -> months = Math.multiplyExact(n, 12);
        case "MONTH" -> months = n;
        case "WEEK" -> micros = Math.multiplyExact(n, 7 * 86_400_000_000L);
        case "DAY" -> micros = Math.multiplyExact(n, 86_400_000_000L);
        case "HOUR" -> micros = Math.multiplyExact(n, 3_600_000_000L);
        case "MINUTE" -> micros = Math.multiplyExact(n, 60_000_000L);
        case "SECOND" -> micros = Math.multiplyExact(n, 1_000_000L);
        default -> throw QuiverException.unsupported("the interval unit " + unit + " in " + SqlPositions.snippet(iv));
      }
    } catch (ArithmeticException e) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the interval is out of range: " + SqlPositions.snippet(iv));
    }
    if (t.type() instanceof ArrowType.Date && micros % 86_400_000_000L != 0) t = Coercion.coerce(t, SqlTypes.TIMESTAMP);
    return binder.calls.call("add_interval", List.of(t, new Expr.Literal(months, SqlTypes.BIGINT), new Expr.Literal(micros, SqlTypes.BIGINT)),
        b);
  }
}
