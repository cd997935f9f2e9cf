package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.predicate.ScanPredicate.Op;
import java.util.ArrayList;
import java.util.List;

/**
 * Translates a filter expression into the scan's {@link ScanPredicate} language, exactly or not at all:
 * comparisons of a bare column with a literal, IN lists of literals, IS [NOT] NULL, a bare boolean
 * column, and AND / OR / NOT of those.
 */
public final class ScanPredicates {
  private ScanPredicates() {}

  /** The exact translation of {@code e}, or null. */
  public static ScanPredicate translate(Expr e) {
    if (e instanceof Expr.Literal l && l.value() instanceof Boolean b) return new ScanPredicate.Const(b);
    if (e instanceof Expr.Literal l && l.value() == null) return new ScanPredicate.Const(false);
    if (e instanceof Expr.ColumnRef c) return new ScanPredicate.Compare(c.name(), Op.EQ, true, c.type());
    if (e instanceof Expr.Comparison c) return comparison(c);
    if (e instanceof Expr.IsNull n && n.input() instanceof Expr.ColumnRef c) {
      return new ScanPredicate.IsNull(c.name(), n.negated());
    }
    if (e instanceof Expr.InList in && in.value() instanceof Expr.ColumnRef c) return inList(c, in);
    if (e instanceof Expr.DistinctFrom d && d.left() instanceof Expr.ColumnRef c && d.right() instanceof Expr.Literal l) {
      if (l.value() == null) return new ScanPredicate.IsNull(c.name(), !d.not());
      ScanPredicate eq = new ScanPredicate.Compare(c.name(), Op.EQ, l.value(), c.type());
      // IS NOT DISTINCT FROM v is = v; IS DISTINCT FROM v is <> v or NULL
      return d.not() ? eq : new ScanPredicate.Or(List.of(new ScanPredicate.Not(eq), new ScanPredicate.IsNull(c.name(), false)));
    }
    if (e instanceof Expr.Like l && !l.caseInsensitive() && l.input() instanceof Expr.ColumnRef c
        && l.pattern() instanceof Expr.Literal p && p.value() instanceof String s) {
      String prefix = dev.quiver.planner.optimizer.simplify.SimplifyLike.prefix(s);
      if (prefix == null) return null;
      ScanPredicate sw = new ScanPredicate.StartsWith(c.name(), prefix);
      return l.negated() ? new ScanPredicate.Not(sw) : sw;
    }
    if (e instanceof Expr.Not n) {
      ScanPredicate p = translate(n.input());
      return p == null ? null : new ScanPredicate.Not(p);
    }
    if (e instanceof Expr.And || e instanceof Expr.Or) {
      ScanPredicate l = translate(e.children().get(0));
      ScanPredicate r = translate(e.children().get(1));
      if (l == null || r == null) return null;
      return e instanceof Expr.And ? new ScanPredicate.And(List.of(l, r)) : new ScanPredicate.Or(List.of(l, r));
    }
    return null;
  }

  private static ScanPredicate comparison(Expr.Comparison c) {
    Expr.CmpOp op = c.op();
    Expr left = c.left();
    Expr right = c.right();
    if (left instanceof Expr.Literal && right instanceof Expr.ColumnRef) {
      Expr t = left;
      left = right;
      right = t;
      op = op.flip();
    }
    if (!(left instanceof Expr.ColumnRef col) || !(right instanceof Expr.Literal lit)) return null;
    if (lit.value() == null) return new ScanPredicate.Const(false); // comparison with NULL is never true
    return new ScanPredicate.Compare(col.name(), Op.valueOf(op.name()), lit.value(), col.type());
  }

  private static ScanPredicate inList(Expr.ColumnRef c, Expr.InList in) {
    List<Object> values = new ArrayList<>();
    boolean sawNull = false;
    for (Expr item : in.list()) {
      if (!(item instanceof Expr.Literal l)) return null;
      if (l.value() == null) sawNull = true;
      else values.add(l.value());
    }
    if (in.negated()) {
      // x NOT IN (..., NULL) is never true
      return sawNull ? new ScanPredicate.Const(false) : new ScanPredicate.Not(new ScanPredicate.In(c.name(), values, c.type()));
    }
    return values.isEmpty() ? new ScanPredicate.Const(false) : new ScanPredicate.In(c.name(), values, c.type());
  }
}
