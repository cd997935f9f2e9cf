package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.types.SqlTypes;

/**
 * LIKE patterns that need no pattern matching.
 * <p>Before: {@code c LIKE 'foo'}, {@code c LIKE '%'}; after: {@code c = 'foo'}, {@code (c IS NOT NULL OR NULL)}.
 * <p>Legal because a pattern without wildcards matches only itself (case-sensitively: ILIKE stays), and
 * {@code %} matches every string.
 */
public final class SimplifyLike implements ExprRule {
  @Override
  public String name() {
    return "SimplifyLike";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.Like l) || !(l.pattern() instanceof Expr.Literal p) || !(p.value() instanceof String s)) {
      return node;
    }
    if (!s.isEmpty() && s.chars().allMatch(ch -> ch == '%')) {
      return l.negated() ? Guards.falseIfNotNull(l.input()) : Guards.trueIfNotNull(l.input());
    }
    if (!l.caseInsensitive() && s.indexOf('%') < 0 && s.indexOf('_') < 0 && s.indexOf('\\') < 0) {
      return new Expr.Comparison(l.negated() ? Expr.CmpOp.NE : Expr.CmpOp.EQ, l.input(), new Expr.Literal(s, SqlTypes.VARCHAR));
    }
    return node;
  }

  /** The literal prefix of a {@code LIKE 'prefix%'} pattern, or null if the pattern is not of that form. */
  public static String prefix(String pattern) {
    if (pattern.length() < 2 || !pattern.endsWith("%")) return null;
    String p = pattern.substring(0, pattern.length() - 1);
    if (p.indexOf('%') >= 0 || p.indexOf('_') >= 0 || p.indexOf('\\') >= 0) return null;
    return p;
  }
}
