package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Set algebra on IN lists of one expression (lists without NULL items only): AND intersects IN lists,
 * unites NOT IN lists and subtracts NOT IN from IN; OR unites IN lists and equalities and intersects
 * NOT IN lists. An equality is a one-item IN list under OR, an inequality a one-item NOT IN list under AND,
 * so that a long chain of them becomes one list, which the kernels probe in a hash set.
 * <p>Before: {@code c IN (1, 2, 3, 4) AND c IN (4, 5)}, {@code c = 1 OR c = 2 OR c = 3},
 * {@code c <> 1 AND c <> 2 AND c <> 3}; after: {@code c IN (4)}, {@code c IN (1, 2, 3)}, {@code c NOT IN (1, 2, 3)}.
 * <p>Legal because without NULL items {@code c IN S} is TRUE iff c is in S and NULL iff c is NULL; an
 * empty result is a null guard, not a bare TRUE / FALSE.
 */
public final class CombineInLists implements ChainRule {
  @Override
  public String name() {
    return "CombineInLists";
  }

  /** One term read as {@code value [NOT] IN items}, or null. */
  private record Member(Expr value, boolean negated, List<Expr.Literal> items) {}

  private static Member member(boolean and, Expr t) {
    if (t instanceof Expr.InList in && in.list().size() >= 2 && !ExprFacts.isVolatile(in.value())) {
      List<Expr.Literal> items = new ArrayList<>();
      for (Expr i : in.list()) {
        if (!(i instanceof Expr.Literal l) || l.value() == null) return null;
        items.add(l);
      }
      return new Member(in.value(), in.negated(), items);
    }
    // OR: c = lit is c IN (lit); AND: c <> lit is c NOT IN (lit)
    if (t instanceof Expr.Comparison c && c.op() == (and ? Expr.CmpOp.NE : Expr.CmpOp.EQ) && c.right() instanceof Expr.Literal l
        && l.value() != null && !ExprFacts.isVolatile(c.left()) && !(c.left() instanceof Expr.Literal)) {
      return new Member(c.left(), and, List.of(l));
    }
    return null;
  }

  @Override
  public List<Expr> apply(boolean and, List<Expr> terms) {
    Map<Expr, List<Integer>> groups = new LinkedHashMap<>();
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < terms.size(); i++) {
      Member m = member(and, terms.get(i));
      members.add(m);
      if (m != null) groups.computeIfAbsent(m.value(), k -> new ArrayList<>()).add(i);
    }
    List<Expr> out = new ArrayList<>(terms);
    boolean changed = false;
    for (Map.Entry<Expr, List<Integer>> g : groups.entrySet()) {
      if (g.getValue().size() < 2) continue;
      Map<Object, Expr.Literal> positive = null; // null: no IN constraint yet
      Map<Object, Expr.Literal> negative = new LinkedHashMap<>();
      for (int idx : g.getValue()) {
        Member m = members.get(idx);
        Map<Object, Expr.Literal> s = new LinkedHashMap<>();
        for (Expr.Literal l : m.items()) s.putIfAbsent(key(l), l);
        if (and) {
          if (m.negated()) negative.putAll(s);
          else if (positive == null) positive = s;
          else positive.keySet().retainAll(s.keySet());
        } else if (!m.negated()) {
          if (positive == null) positive = new LinkedHashMap<>();
          positive.putAll(s);
        }
      }
      Expr value = g.getKey();
      Expr combined;
      if (and) {
        if (positive != null) {
          positive.keySet().removeAll(negative.keySet());
          combined = positive.isEmpty() ? Guards.falseIfNotNull(value) : inList(value, positive, false);
        } else {
          combined = inList(value, negative, true);
        }
      } else {
        boolean anyNegated = g.getValue().stream().anyMatch(i -> members.get(i).negated());
        if (anyNegated) {
          Map<Object, Expr.Literal> neg = null;
          for (int idx : g.getValue()) {
            Member m = members.get(idx);
            if (!m.negated()) continue;
            Map<Object, Expr.Literal> s = new LinkedHashMap<>();
            for (Expr.Literal l : m.items()) s.putIfAbsent(key(l), l);
            if (neg == null) neg = s;
            else neg.keySet().retainAll(s.keySet());
          }
          if (positive != null) neg.keySet().removeAll(positive.keySet());
          combined = neg.isEmpty() ? Guards.trueIfNotNull(value) : inList(value, neg, true);
        } else {
          combined = inList(value, positive, false);
        }
      }
      List<Integer> idxs = g.getValue();
      out.set(idxs.get(0), combined);
      for (int k = 1; k < idxs.size(); k++) out.set(idxs.get(k), null);
      changed = true;
    }
    if (!changed) return terms;
    out.removeIf(java.util.Objects::isNull);
    return out;
  }

  private static Expr inList(Expr value, Map<Object, Expr.Literal> items, boolean negated) {
    List<Expr> list = new ArrayList<>(items.values());
    if (list.size() == 1) return new Expr.Comparison(negated ? Expr.CmpOp.NE : Expr.CmpOp.EQ, value, list.get(0));
    return new Expr.InList(value, list, negated);
  }

  /** A key under which SQL-equal literals collide (0.0 and -0.0). */
  static Object key(Expr.Literal l) {
    Object v = l.value();
    if (v instanceof Double d && d == 0.0) return 0.0;
    if (v instanceof java.math.BigDecimal b) return b.stripTrailingZeros();
    if (v instanceof byte[] b) return java.util.HexFormat.of().formatHex(b);
    return v;
  }
}
