package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.optimizer.OptimizerContext;
import java.time.LocalDate;
import java.time.ZoneId;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Date casts, which are not injective, become ranges.
 * <p>Before: {@code CAST(ts AS DATE) = DATE '2023-01-01'}; after:
 * {@code ts >= TIMESTAMP '2023-01-01 00:00' AND ts < TIMESTAMP '2023-01-02 00:00'} (midnights of the
 * session zone for zoned timestamps). Before: {@code CAST(d AS TIMESTAMP) >= TIMESTAMP '2023-12-13 00:00:30'};
 * after: {@code d > DATE '2023-12-13'}.
 * <p>Legal because the date of a timestamp is d exactly when the timestamp lies in d's half-open day,
 * and a date's midnight compares with a timestamp t as the date compares with t's date, shifted by
 * one when t is not itself a midnight.
 */
public final class UnwrapDateCast implements ExprRule {
  @Override
  public String name() {
    return "UnwrapDateCast";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    ZoneId zone = context.eval().zone();
    if (node instanceof Expr.Comparison cmp && cmp.left() instanceof Expr.Cast cast && cmp.right() instanceof Expr.Literal lit
        && lit.value() != null && !(cast.input() instanceof Expr.Literal)) {
      if (cast.input().type() instanceof ArrowType.Timestamp ts && cast.type() instanceof ArrowType.Date) {
        return dayRange(cmp.op(), cast.input(), ts, (Long) lit.value(), zone);
      }
      if (cast.input().type() instanceof ArrowType.Date && cast.type() instanceof ArrowType.Timestamp ts) {
        return dateVersusTimestamp(cmp.op(), cast.input(), ts, (Long) lit.value(), zone);
      }
    }
    if (node instanceof Expr.DistinctFrom d && d.left() instanceof Expr.Cast cast && d.right() instanceof Expr.Literal lit
        && lit.value() != null && !ExprFacts.isVolatile(cast.input()) && !(cast.input() instanceof Expr.Literal)) {
      if (cast.input().type() instanceof ArrowType.Date && cast.type() instanceof ArrowType.Timestamp ts) {
        // date to timestamp is injective: null-safe equality carries over, an impossible instant is never equal
        Expr eq = dateVersusTimestamp(CmpOp.EQ, cast.input(), ts, (Long) lit.value(), zone);
        if (eq instanceof Expr.Comparison c) return new Expr.DistinctFrom(c.left(), c.right(), d.not());
        return d.not() ? Expr.Literal.FALSE : Expr.Literal.TRUE;
      }
      if (d.not() && !cast.input().nullable() && cast.input().type() instanceof ArrowType.Timestamp ts
          && cast.type() instanceof ArrowType.Date) {
        // IS NOT DISTINCT FROM is = when the operand cannot be NULL
        return dayRange(CmpOp.EQ, cast.input(), ts, (Long) lit.value(), zone);
      }
    }
    return node;
  }

  /** The first instant of day {@code day} in the timestamp's unit: session-zone midnight if zoned. */
  static long startOfDay(long day, ArrowType.Timestamp ts, ZoneId zone) {
    long per = Casts.unitsPerSecond(ts.getUnit());
    long seconds = ts.getTimezone() == null ? day * 86_400L : LocalDate.ofEpochDay(day).atStartOfDay(zone).toEpochSecond();
    return Math.multiplyExact(seconds, per);
  }

  private static Expr dayRange(CmpOp op, Expr e, ArrowType.Timestamp ts, long day, ZoneId zone) {
    Expr.Literal start = new Expr.Literal(startOfDay(day, ts, zone), ts);
    Expr.Literal next = new Expr.Literal(startOfDay(day + 1, ts, zone), ts);
    return switch (op) {
      case EQ -> new Expr.And(new Expr.Comparison(CmpOp.GE, e, start), new Expr.Comparison(CmpOp.LT, e, next));
      case NE -> new Expr.Or(new Expr.Comparison(CmpOp.LT, e, start), new Expr.Comparison(CmpOp.GE, e, next));
      case GT -> new Expr.Comparison(CmpOp.GE, e, next);
      case GE -> new Expr.Comparison(CmpOp.GE, e, start);
      case LT -> new Expr.Comparison(CmpOp.LT, e, start);
      case LE -> new Expr.Comparison(CmpOp.LT, e, next);
    };
  }

  private static Expr dateVersusTimestamp(CmpOp op, Expr d, ArrowType.Timestamp ts, long t, ZoneId zone) {
    long per = Casts.unitsPerSecond(ts.getUnit());
    long day = ts.getTimezone() == null ? Math.floorDiv(t, 86_400L * per)
        : java.time.Instant.ofEpochSecond(Math.floorDiv(t, per)).atZone(zone).toLocalDate().toEpochDay();
    boolean midnight = startOfDay(day, ts, zone) == t;
    Expr.Literal date = new Expr.Literal(day, d.type());
    if (midnight) return new Expr.Comparison(op, d, date);
    return switch (op) {
      case EQ -> Guards.falseIfNotNull(d);
      case NE -> Guards.trueIfNotNull(d);
      case GT, GE -> new Expr.Comparison(CmpOp.GT, d, date);
      case LT, LE -> new Expr.Comparison(CmpOp.LE, d, date);
    };
  }
}
