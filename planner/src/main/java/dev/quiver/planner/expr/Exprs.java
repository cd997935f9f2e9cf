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
  /**
   * A column's name as the user knows it: internal names are unique in a statement ({@code x.c#2} for the
   * second relation aliased x with a column c); the {@code #n} is dropped.
   */
  public static String userName(String internal) {
    int hash = internal.lastIndexOf('#');
    if (hash <= 0 || hash == internal.length() - 1) return internal;
    for (int i = hash + 1; i < internal.length(); i++) if (!Character.isDigit(internal.charAt(i))) return internal;
    return internal.substring(0, hash);
  }

  /** {@code e} as text for a message to the user: its columns by their {@link #userName}s. */
  public static String toUserString(Expr e) {
    String s = transformUp(e, x -> x instanceof Expr.ColumnRef c && !userName(c.name()).equals(c.name())
        ? new Expr.ColumnRef(userName(c.name()), c.type(), c.nullable()) : x).toString();
    // without the parentheses around the whole (a binary expression prints them)
    if (s.startsWith("(") && s.endsWith(")")) {
      int depth = 0;
      for (int i = 0; i < s.length() - 1; i++) {
        if (s.charAt(i) == '(') depth++;
        else if (s.charAt(i) == ')' && --depth == 0) return s;
      }
      return s.substring(1, s.length() - 1);
    }
    return s;
  }

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
    return flatten(true, e);
  }

  /** The terms of a maximal AND (or OR) chain, left to right, without recursion (chains can be long). */
  public static List<Expr> flatten(boolean and, Expr e) {
    List<Expr> out = new ArrayList<>();
    java.util.ArrayDeque<Expr> stack = new java.util.ArrayDeque<>();
    stack.push(e);
    while (!stack.isEmpty()) {
      Expr x = stack.pop();
      if (and && x instanceof Expr.And a) {
        stack.push(a.right());
        stack.push(a.left());
      } else if (!and && x instanceof Expr.Or o) {
        stack.push(o.right());
        stack.push(o.left());
      } else {
        out.add(x);
      }
    }
    return out;
  }

  /**
   * A balanced AND (or OR) tree of {@code terms}: depth log n, so that recursive walks (equality,
   * evaluation, printing) stay shallow for predicates with thousands of terms. TRUE (FALSE) when empty.
   */
  public static Expr chain(boolean and, List<Expr> terms) {
    if (terms.isEmpty()) return and ? Expr.Literal.TRUE : Expr.Literal.FALSE;
    return chain(and, terms, 0, terms.size());
  }

  private static Expr chain(boolean and, List<Expr> terms, int from, int to) {
    if (to - from == 1) return terms.get(from);
    int mid = (from + to + 1) / 2;
    if (to - from == 2) mid = from + 1;
    Expr l = chain(and, terms, from, mid);
    Expr r = chain(and, terms, mid, to);
    return and ? new Expr.And(l, r) : new Expr.Or(l, r);
  }

  /** The conjunction of {@code parts}, or TRUE when there are none. */
  public static Expr and(List<Expr> parts) {
    return chain(true, parts);
  }
}
