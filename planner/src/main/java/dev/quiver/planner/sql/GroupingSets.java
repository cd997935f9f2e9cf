package dev.quiver.planner.sql;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;

/**
 * The grouping sets a GROUP BY clause spells, as lists of (unbound) expressions: {@code GROUPING SETS (...)} lists
 * them, {@code ROLLUP(a, b)} is {@code (a, b), (a), ()}, {@code CUBE(a, b)} every subset, and the items of GROUP BY
 * are crossed ({@code GROUP BY a, ROLLUP(b)} is {@code (a, b), (a)}), as in the SQL standard. A parenthesized list
 * inside ROLLUP or CUBE is one unit. JSqlParser reads ROLLUP and CUBE in GROUP BY as function calls.
 */
final class GroupingSets {
  /** At most this many sets (CUBE of 12 expressions): each multiplies the rows the aggregation reads. */
  static final int MAX_SETS = 4096;

  private GroupingSets() {}

  static boolean isRollupOrCube(Expression e) {
    return e instanceof Function f && f.getParameters() != null && f.getNamedParameters() == null
        && (f.getName().equalsIgnoreCase("rollup") || f.getName().equalsIgnoreCase("cube"));
  }

  /** The sets of one item of GROUP BY: a plain expression is one set of itself. */
  static List<List<Expression>> ofElement(Expression e, BindingContext cx) {
    if (isRollupOrCube(e)) {
      Function f = (Function) e;
      List<List<Expression>> units = new ArrayList<>();
      for (Expression p : f.getParameters()) units.add(unit(p));
      List<List<Expression>> sets = new ArrayList<>();
      int n = units.size();
      if (f.getName().equalsIgnoreCase("rollup")) {
        for (int k = n; k >= 0; k--) sets.add(concat(units.subList(0, k)));
      } else {
        if (n > 12) throw tooMany(1L << Math.min(n, 62), cx);
        for (int mask = (1 << n) - 1; mask >= 0; mask--) {
          List<List<Expression>> chosen = new ArrayList<>();
          for (int i = 0; i < n; i++) if ((mask >> (n - 1 - i) & 1) == 1) chosen.add(units.get(i));
          sets.add(concat(chosen));
        }
      }
      return sets;
    }
    if (e instanceof ParenthesedExpressionList<?> l && l.isEmpty()) return List.of(List.of()); // GROUP BY ()
    List<List<Expression>> one = new ArrayList<>();
    one.add(List.of(e));
    return one;
  }

  /** The sets of one item of GROUPING SETS (...): a parenthesized list is one set; ROLLUP / CUBE their sets. */
  static List<List<Expression>> ofItem(Object item, BindingContext cx) {
    if (item instanceof ParenthesedExpressionList<?> l) return List.of(unit(l));
    if (item instanceof ExpressionList<?> l) {
      List<List<List<Expression>>> factors = new ArrayList<>();
      for (Expression e : l) {
        if (isNestedGroupingSets(e)) throw QuiverException.unsupported("GROUPING SETS inside GROUPING SETS");
        factors.add(ofElement(e, cx));
      }
      return product(factors, cx);
    }
    return ofElement((Expression) item, cx);
  }

  private static boolean isNestedGroupingSets(Expression e) {
    return e instanceof Function f && f.getName() != null && f.getName().toLowerCase(Locale.ROOT).startsWith("grouping");
  }

  /** The cross product of the factors' sets, each set the concatenation of one set of every factor, in order. */
  static List<List<Expression>> product(List<List<List<Expression>>> factors, BindingContext cx) {
    List<List<Expression>> out = new ArrayList<>();
    out.add(List.of());
    for (List<List<Expression>> f : factors) {
      long size = (long) out.size() * f.size();
      if (size > MAX_SETS) throw tooMany(size, cx);
      List<List<Expression>> next = new ArrayList<>();
      for (List<Expression> a : out) {
        for (List<Expression> b : f) {
          List<Expression> s = new ArrayList<>(a);
          s.addAll(b);
          next.add(s);
        }
      }
      out = next;
    }
    return out;
  }

  private static QuiverException tooMany(long n, BindingContext cx) {
    return new QuiverException(ErrorCode.INVALID_QUERY, "GROUP BY has " + n + " grouping sets; at most " + MAX_SETS
        + " are allowed" + cx.at("GROUP"));
  }

  /** A ROLLUP / CUBE argument or a GROUPING SETS item: a parenthesized list is its elements, else itself. */
  private static List<Expression> unit(Expression e) {
    if (e instanceof ParenthesedExpressionList<?> l) {
      List<Expression> out = new ArrayList<>();
      for (Expression x : l) out.addAll(unit(x));
      return out;
    }
    return List.of(e);
  }

  private static List<Expression> concat(List<List<Expression>> units) {
    List<Expression> out = new ArrayList<>();
    for (List<Expression> u : units) out.addAll(u);
    return out;
  }
}
