package dev.quiver.planner.expr;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/** Generic tree helpers over {@link Expr}. */
public final class Exprs {
  private Exprs() {}

  /** Rewrites bottom-up: children first, then {@code fn} on the node rebuilt from the new children. */
  public static Expr transformUp(Expr e, UnaryOperator<Expr> fn) {
    List<Expr> children = e.children();
    if (!children.isEmpty()) {
      List<Expr> next = new ArrayList<>(children.size());
      boolean changed = false;
      for (Expr c : children) {
        Expr n = transformUp(c, fn);
        changed |= n != c;
        next.add(n);
      }
      if (changed) e = e.withChildren(next);
    }
    return fn.apply(e);
  }

  /** The names of the columns an expression reads, in first-use order. */
  public static Set<String> columns(Expr e) {
    Set<String> out = new LinkedHashSet<>();
    collect(e, out);
    return out;
  }

  private static void collect(Expr e, Set<String> out) {
    if (e instanceof Expr.ColumnRef c) out.add(c.name());
    for (Expr c : e.children()) collect(c, out);
  }

  /** The conjuncts of a predicate: {@code a AND (b AND c)} gives [a, b, c]. */
  public static List<Expr> conjuncts(Expr e) {
    List<Expr> out = new ArrayList<>();
    splitAnd(e, out);
    return out;
  }

  private static void splitAnd(Expr e, List<Expr> out) {
    if (e instanceof Expr.And a) {
      splitAnd(a.left(), out);
      splitAnd(a.right(), out);
    } else {
      out.add(e);
    }
  }

  /** The conjunction of {@code parts}, or TRUE when there are none. */
  public static Expr and(List<Expr> parts) {
    if (parts.isEmpty()) return Expr.Literal.TRUE;
    Expr acc = parts.get(0);
    for (int i = 1; i < parts.size(); i++) acc = new Expr.And(acc, parts.get(i));
    return acc;
  }
}
