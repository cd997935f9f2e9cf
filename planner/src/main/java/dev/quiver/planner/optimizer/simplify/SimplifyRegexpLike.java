package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.types.SqlTypes;
import java.util.ArrayList;
import java.util.List;

/**
 * Regular expressions that say something simpler.
 * <p>Before: {@code regexp_like(c, '^foo$')}, {@code '^foo'}, {@code '^(a|b)$'}, {@code '.*'};
 * after: {@code c = 'foo'}, {@code c LIKE 'foo%'}, {@code c IN ('a', 'b')}, {@code (c IS NOT NULL OR NULL)}.
 * <p>Legal because those patterns match exactly those strings. Only patterns made of plain characters
 * are read; anything else (including invalid patterns) is left for run time.
 */
public final class SimplifyRegexpLike implements ExprRule {
  private static final String META = "\\.[]{}()*+?^$|";

  @Override
  public String name() {
    return "SimplifyRegexpLike";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Call c) || !c.name().equals("regexp_like")
        || !(c.args().get(1) instanceof Expr.Literal p) || !(p.value() instanceof String re)) {
      return node;
    }
    Expr x = c.args().get(0);
    if (re.equals(".*") || re.equals("^.*") || re.equals(".*$") || re.equals("^.*$") || re.isEmpty()) {
      return Guards.trueIfNotNull(x);
    }
    if (re.startsWith("^(") && re.endsWith(")$")) {
      String[] parts = re.substring(2, re.length() - 2).split("\\|", -1);
      List<Expr> items = new ArrayList<>();
      for (String part : parts) {
        if (!plain(part)) return node;
        items.add(new Expr.Literal(part, SqlTypes.VARCHAR));
      }
      return items.size() == 1 ? new Expr.Comparison(Expr.CmpOp.EQ, x, items.get(0)) : new Expr.InList(x, items, false);
    }
    if (re.startsWith("^") && re.endsWith("$") && plain(re.substring(1, re.length() - 1))) {
      return new Expr.Comparison(Expr.CmpOp.EQ, x, new Expr.Literal(re.substring(1, re.length() - 1), SqlTypes.VARCHAR));
    }
    if (re.startsWith("^") && plain(re.substring(1)) && re.length() > 1) {
      String lit = re.substring(1);
      if (lit.indexOf('%') >= 0 || lit.indexOf('_') >= 0) return node;
      return new Expr.Like(x, new Expr.Literal(lit + "%", SqlTypes.VARCHAR), false, false);
    }
    return node;
  }

  private static boolean plain(String s) {
    for (int i = 0; i < s.length(); i++) if (META.indexOf(s.charAt(i)) >= 0) return false;
    return true;
  }
}
