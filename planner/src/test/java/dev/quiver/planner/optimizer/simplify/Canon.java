package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.Values;
import java.util.stream.Collectors;

/** A canonical text of an expression for structural comparison: literal types shown, AND / OR chains flat. */
final class Canon {
  private Canon() {}

  static String of(Expr e) {
    if (e instanceof Expr.Literal l) {
      return l.value() == null ? "NULL" : Values.toSql(l.value(), l.type()) + "::" + SqlTypes.sqlName(l.type());
    }
    if (e instanceof Expr.ColumnRef c) return c.name();
    if (e instanceof Expr.And || e instanceof Expr.Or) {
      boolean and = e instanceof Expr.And;
      return "(" + ExprSimplifier.flatten(and, e).stream().map(Canon::of).collect(Collectors.joining(and ? " AND " : " OR ")) + ")";
    }
    if (e instanceof Expr.Cast c) return (c.safe() ? "TRY_CAST(" : "CAST(") + of(c.input()) + " AS " + SqlTypes.sqlName(c.type()) + ")";
    if (e instanceof Expr.Comparison c) return of(c.left()) + " " + c.op().symbol + " " + of(c.right());
    if (e instanceof Expr.Arithmetic a) return "(" + of(a.left()) + " " + a.op().symbol + " " + of(a.right()) + ")::" + SqlTypes.sqlName(a.type());
    if (e instanceof Expr.Not n) return "NOT " + of(n.input());
    if (e instanceof Expr.IsNull n) return of(n.input()) + (n.negated() ? " IS NOT NULL" : " IS NULL");
    if (e instanceof Expr.InList in) {
      return of(in.value()) + (in.negated() ? " NOT IN (" : " IN (") + in.list().stream().map(Canon::of).collect(Collectors.joining(", ")) + ")";
    }
    if (e instanceof Expr.DistinctFrom d) return of(d.left()) + (d.not() ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ") + of(d.right());
    if (e instanceof Expr.Like l) return of(l.input()) + (l.negated() ? " NOT" : "") + (l.caseInsensitive() ? " ILIKE " : " LIKE ") + of(l.pattern());
    if (e instanceof Expr.Call c) return c.name() + "(" + c.args().stream().map(Canon::of).collect(Collectors.joining(", ")) + ")";
    if (e instanceof Expr.Negate n) return "-(" + of(n.input()) + ")";
    return e.toString();
  }
}
