package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.kernel.Functions;
import dev.quiver.planner.optimizer.OptimizerContext;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Comparisons of a monotonic date function with a literal become ranges on the bare column.
 * <p>Before: {@code extract(year FROM d) = 2024}; after: {@code d >= DATE '2024-01-01' AND d < DATE '2025-01-01'}.
 * Before: {@code date_trunc('month', ts) = TIMESTAMP '2024-03-01 00:00'}; after:
 * {@code ts >= TIMESTAMP '2024-03-01 00:00' AND ts < TIMESTAMP '2024-04-01 00:00'}.
 * <p>Legal because both functions are non-decreasing step functions: the rows where the function's
 * value compares so with the literal are exactly those of a half-open interval of the argument
 * (a date_trunc literal that is not on a boundary equals nothing and shifts the other bounds).
 */
public final class RangeForMonotonicFunction implements ExprRule {
  @Override
  public String name() {
    return "RangeForMonotonicFunction";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Comparison cmp) || !(cmp.left() instanceof Expr.Call call)
        || !(cmp.right() instanceof Expr.Literal lit) || lit.value() == null || call.args().size() != 2
        || !(call.args().get(0) instanceof Expr.Literal unitLit) || !(unitLit.value() instanceof String unit)) {
      return node;
    }
    Expr x = call.args().get(1);
    if (x instanceof Expr.Literal) return node;
    ArrowType t = x.type();
    if (t instanceof ArrowType.Timestamp ts && ts.getTimezone() != null && !context.eval().zone().equals(ZoneOffset.UTC)) {
      return node; // the functions work on UTC wall clock; keep this simple and exact
    }
    try {
      if (call.name().equals("date_part") && unit.toLowerCase(Locale.ROOT).equals("year")) {
        long year = (Long) lit.value();
        if (year < -200_000 || year > 200_000) return node;
        Expr.Literal start = at(LocalDate.of((int) year, 1, 1).atStartOfDay(), t);
        Expr.Literal next = at(LocalDate.of((int) year + 1, 1, 1).atStartOfDay(), t);
        return range(cmp.op(), x, start, next, true);
      }
      if (call.name().equals("date_trunc") && lit.type().equals(t)) {
        long v = (Long) lit.value();
        long truncated = Functions.dateTrunc(unit, v, t);
        Expr.Literal start = new Expr.Literal(truncated, t);
        Expr.Literal next = at(plusOne(unit, toDateTime(truncated, t)), t);
        return range(cmp.op(), x, start, next, truncated == v);
      }
    } catch (RuntimeException e) {
      return node; // unknown unit or out of range: leave it for run time
    }
    return node;
  }

  /**
   * f(x) op L where f(x) = L exactly for x in [start, next); {@code onBoundary} says whether L itself
   * is a value of f (else L lies strictly inside [start, next)).
   */
  private static Expr range(CmpOp op, Expr x, Expr.Literal start, Expr.Literal next, boolean onBoundary) {
    Expr ge = new Expr.Comparison(CmpOp.GE, x, onBoundary ? start : next);
    return switch (op) {
      case EQ -> onBoundary ? new Expr.And(new Expr.Comparison(CmpOp.GE, x, start), new Expr.Comparison(CmpOp.LT, x, next))
          : Guards.falseIfNotNull(x);
      case NE -> onBoundary ? new Expr.Or(new Expr.Comparison(CmpOp.LT, x, start), new Expr.Comparison(CmpOp.GE, x, next))
          : Guards.trueIfNotNull(x);
      case GE -> ge;
      case GT -> new Expr.Comparison(CmpOp.GE, x, next);
      case LT -> new Expr.Comparison(CmpOp.LT, x, onBoundary ? start : next);
      case LE -> new Expr.Comparison(CmpOp.LT, x, next);
    };
  }

  private static LocalDateTime toDateTime(long v, ArrowType t) {
    if (t instanceof ArrowType.Date) return LocalDate.ofEpochDay(v).atStartOfDay();
    long per = Casts.unitsPerSecond(((ArrowType.Timestamp) t).getUnit());
    return LocalDateTime.ofEpochSecond(Math.floorDiv(v, per), (int) (Math.floorMod(v, per) * (1_000_000_000L / per)), ZoneOffset.UTC);
  }

  private static Expr.Literal at(LocalDateTime dt, ArrowType t) {
    if (t instanceof ArrowType.Date) return new Expr.Literal(dt.toLocalDate().toEpochDay(), t);
    long per = Casts.unitsPerSecond(((ArrowType.Timestamp) t).getUnit());
    return new Expr.Literal(Math.addExact(Math.multiplyExact(dt.toEpochSecond(ZoneOffset.UTC), per),
        dt.getNano() / (1_000_000_000L / per)), t);
  }

  private static LocalDateTime plusOne(String unit, LocalDateTime dt) {
    return switch (unit.toLowerCase(Locale.ROOT)) {
      case "second" -> dt.plusSeconds(1);
      case "minute" -> dt.plusMinutes(1);
      case "hour" -> dt.plusHours(1);
      case "day" -> dt.plusDays(1);
      case "week" -> dt.plusWeeks(1);
      case "month" -> dt.plusMonths(1);
      case "quarter" -> dt.plusMonths(3);
      case "year" -> dt.plusYears(1);
      default -> throw new IllegalArgumentException(unit);
    };
  }
}
