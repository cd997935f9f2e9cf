package dev.quiver.planner.sql;

/**
 * How deeply the expressions and subqueries of one statement nest (see {@link SqlLimits#maxNestingDepth()}).
 * One per statement, handed to every binder of it: a subquery is a level of expression nesting too, so the
 * binders of a subquery count on from the depth of the expression that holds it. Every walk of a bound tree
 * recurses; bounding the depth here refuses a statement before one of those walks overflows the stack.
 */
final class NestingDepth {
  private final SqlLimits limits;
  private final String sql;
  private int depth;

  NestingDepth(SqlLimits limits, String sql) {
    this.limits = limits;
    this.sql = sql;
  }

  /** One level deeper; refused (and not counted) beyond the limit. Pair with {@link #exit()}. */
  void enter() {
    if (depth >= limits.maxNestingDepth()) throw limits.tooDeep(sql, -1);
    depth++;
  }

  void exit() {
    depth--;
  }
}
