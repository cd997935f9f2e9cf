package dev.quiver.planner.exec;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.kernel.Kernels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Finds, in a join's conjuncts that are not equi-keys, the inequalities that bound one build-side (right) value by
 * probe-side (left) values: {@code x + c OP p} with {@code OP} one of {@code < <= > >=}, {@code x} an integer-like
 * expression over the build side only, {@code c} an integer literal (or absent) and {@code p} over the probe side
 * only (either way round, {@code x - c} too); or {@code x OP p} of doubles, compared by an order-preserving long
 * image ({@link #sortable}: -0 as 0, NaN above every number, as the comparison kernels order them). The join then sorts its build rows by {@code x} and takes as a probe
 * row's candidates only the build rows whose {@code x} lies in the range its bounds allow (a band or inequality join
 * without nested loops).
 * <p><b>Legality.</b> The conjuncts stay in the residual, which still decides every candidate, so the range only has
 * to hold every build row that can match: a superset. {@code x + c OP p} holds exactly when {@code x OP p - c} (the
 * integer arithmetic is exact, or it overflows and raises an error, and {@code x + c} and {@code p} have one type,
 * so compare as signed longs); a bound {@code p - c} that overflows a long is dropped, which widens the range. A
 * NULL {@code x} or {@code p} makes the conjunct NULL, so such rows match nothing and are left out. The one thing the
 * range changes is which pairs the residual sees: an arithmetic error in a pair outside the range is not raised.
 * <p>An interval on the build side ({@code p BETWEEN b.lo AND b.hi}) bounds {@code lo} from above and {@code hi}
 * from below. Sorted by {@code lo}, a probe row's slice would reach back to the first row; but once the build side
 * is known, {@code hi - lo} lies in {@code [dmin, dmax]} for every row where both are non-NULL (a row with a NULL
 * {@code hi} matches nothing and is left out), so {@code hi >= q} implies {@code lo >= q - dmax} and
 * {@code hi <= q} implies {@code lo <= q - dmin}: bounds on the sorted value again, a superset as before.
 */
final class RangeJoinBounds {
  /** {@code x OP probe - offset} bounds the build value {@code x}; {@code upper}: {@code <}/{@code <=}. */
  record Bound(Expr probe, long offset, boolean upper, boolean inclusive, Expr conjunct) {}

  /**
   * The build value to sort by and the bounds on it; when those bound it from one side only, a second build value
   * bounded from the other side ({@code second}, null for none, with {@code secondBounds}): an interval's other end.
   * The join then learns, as it builds, how far apart the two values lie ({@code second - value} between its least
   * and greatest), which turns a bound on the second into a bound on the first.
   */
  record Found(Expr buildValue, List<Bound> bounds, Expr second, List<Bound> secondBounds) {}

  private RangeJoinBounds() {}

  static Found find(List<Expr> conjuncts, Set<String> probeNames, Set<String> buildNames) {
    Map<Expr, List<Bound>> byValue = new LinkedHashMap<>();
    for (Expr c : conjuncts) {
      if (!(c instanceof Expr.Comparison cmp)) continue;
      Expr.CmpOp op = cmp.op();
      if (op != Expr.CmpOp.LT && op != Expr.CmpOp.LE && op != Expr.CmpOp.GT && op != Expr.CmpOp.GE) continue;
      Kernels.Family family = Kernels.family(cmp.left().type());
      if (family != Kernels.Family.LONG && family != Kernels.Family.DOUBLE) continue;
      Bound b = bound(cmp.left(), op, cmp.right(), c, probeNames, buildNames);
      Expr x = b == null ? null : buildValue(cmp.left());
      if (b == null) {
        b = bound(cmp.right(), op.flip(), cmp.left(), c, probeNames, buildNames);
        x = b == null ? null : buildValue(cmp.right());
      }
      if (b != null) byValue.computeIfAbsent(x, k -> new ArrayList<>()).add(b);
    }
    // the build value bounded from both sides is worth most; then the one with most bounds
    Expr best = null;
    int bestScore = 0;
    for (Map.Entry<Expr, List<Bound>> e : byValue.entrySet()) {
      int score = (lower(e.getValue()) && upper(e.getValue()) ? 100 : 0) + e.getValue().size();
      if (score > bestScore) {
        bestScore = score;
        best = e.getKey();
      }
    }
    if (best == null) return null;
    List<Bound> bounds = byValue.get(best);
    if (lower(bounds) && upper(bounds)) return new Found(best, List.copyOf(bounds), null, List.of());
    // bounded from one side: another value's bounds from the other side make the interval
    boolean wantUpper = !upper(bounds);
    Expr second = null;
    List<Bound> secondBounds = List.of();
    for (Map.Entry<Expr, List<Bound>> e : byValue.entrySet()) {
      if (e.getKey().equals(best) || !e.getKey().type().equals(best.type())) continue;
      List<Bound> other = e.getValue().stream().filter(b -> b.upper() == wantUpper).toList();
      if (other.size() > secondBounds.size()) {
        second = e.getKey();
        secondBounds = other;
      }
    }
    return new Found(best, List.copyOf(bounds), second, secondBounds);
  }

  private static boolean lower(List<Bound> bounds) {
    return bounds.stream().anyMatch(b -> !b.upper());
  }

  private static boolean upper(List<Bound> bounds) {
    return bounds.stream().anyMatch(Bound::upper);
  }

  /** {@code side OP other} as a bound on the build value inside {@code side}, or null. */
  private static Bound bound(Expr side, Expr.CmpOp op, Expr other, Expr conjunct, Set<String> probeNames,
      Set<String> buildNames) {
    Set<String> otherColumns = Exprs.columns(other);
    if (otherColumns.isEmpty() || !probeNames.containsAll(otherColumns)) return null;
    Expr x = buildValue(side);
    if (x == null) return null;
    Set<String> xColumns = Exprs.columns(x);
    if (xColumns.isEmpty() || !buildNames.containsAll(xColumns)) return null;
    long offset = offset(side);
    boolean upper = op == Expr.CmpOp.LT || op == Expr.CmpOp.LE;
    boolean inclusive = op == Expr.CmpOp.LE || op == Expr.CmpOp.GE;
    return new Bound(other, offset, upper, inclusive, conjunct);
  }

  /** {@code x} of {@code x}, {@code x + c}, {@code c + x} or {@code x - c} (integer arithmetic), or null. */
  private static Expr buildValue(Expr side) {
    if (Kernels.family(side.type()) == Kernels.Family.DOUBLE) return side instanceof Expr.Arithmetic ? null : side;
    if (side instanceof Expr.Arithmetic a && integer(a.type())
        && (a.op() == Expr.ArithOp.ADD || a.op() == Expr.ArithOp.SUBTRACT)) {
      if (literal(a.right()) != null && a.left().type().equals(a.type())) return a.left();
      if (a.op() == Expr.ArithOp.ADD && literal(a.left()) != null && a.right().type().equals(a.type())) return a.right();
      return null;
    }
    return Kernels.family(side.type()) == Kernels.Family.LONG ? side : null;
  }

  /** {@code c} of {@code x + c} and {@code c + x}, {@code -c} of {@code x - c}, 0 of a bare {@code x}. */
  private static long offset(Expr side) {
    if (side instanceof Expr.Arithmetic a && integer(a.type())) {
      Long r = literal(a.right());
      if (r != null) return a.op() == Expr.ArithOp.ADD ? r : -r;
      return literal(a.left());
    }
    return 0;
  }

  private static boolean integer(ArrowType t) {
    return t instanceof ArrowType.Int i && i.getIsSigned();
  }

  /** The value of a non-NULL integer literal that fits a long and can be negated, or null. */
  private static Long literal(Expr e) {
    if (e instanceof Expr.Literal l && l.value() instanceof Number n && integer(l.type())) {
      long v = n.longValue();
      return v == Long.MIN_VALUE ? null : v;
    }
    return null;
  }

  /**
   * A long that orders as the double {@code d} does in SQL comparisons: -0 equals 0, NaN (one NaN) sorts above
   * every number; an increasing injection otherwise, so bounds, strict bounds ({@code ±1}) and differences of these
   * images reason as they do on integers.
   */
  static long sortable(double d) {
    long bits = Double.doubleToLongBits(d == 0.0 ? 0.0 : d);
    return bits >= 0 ? bits : bits ^ Long.MAX_VALUE;
  }
}
