package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.statement.select.Select;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The state of one query block while its clauses are analyzed: its scope, the plan so far, and the joins of
 * scalar subqueries met in its expressions, applied ({@link #flush()}) once the clause that met them is bound.
 */
final class Block {
  final Scope scope;
  LogicalPlan plan;
  final List<UnaryOperator<LogicalPlan>> pending = new ArrayList<>();
  /** The joins of subqueries met inside aggregate functions' arguments: applied before the aggregation. */
  final List<UnaryOperator<LogicalPlan>> beforeAggregation = new ArrayList<>();
  private boolean insideAggregate;
  /**
   * Whether GROUP BY is being bound: its subqueries join the rows before the aggregation, and one written the same
   * way in the select list, HAVING or ORDER BY (bound before it) is the same join, moved there, so that those
   * expressions read the group key.
   */
  boolean groupBy;
  /** Whether a subquery written twice is planned once (set for a query with GROUP BY, see {@link #groupBy}). */
  boolean reuseSubqueries;

  /** A subquery planned in this block: its value and the joins that bring it, and whether they go before the aggregation. */
  private record Planned(Expr value, List<UnaryOperator<LogicalPlan>> joins, boolean beforeAggregation) {}

  /** The subqueries planned since the last {@link #flush()}, by their text: one written twice is planned once. */
  private final java.util.Map<String, Planned> planned = new java.util.HashMap<>();
  /** Whether the FROM clause already joined a dependent subquery's domain (see {@link FromBinder#from}). */
  boolean domainJoined;
  final Set<String> subqueryColumns = new HashSet<>();
  private final BindingContext cx;
  private final SubqueryDecorrelator subqueries;

  Block(Scope scope, LogicalPlan plan, BindingContext cx, SubqueryDecorrelator subqueries) {
    this.scope = scope;
    this.plan = plan;
    this.cx = cx;
    this.subqueries = subqueries;
  }

  /** A binder over this block's scope whose scalar subqueries become joins of this block. */
  ExprBinder binder(boolean allowAggregates, List<AggregateCall> aggregates) {
    return cx.binder(scope, allowAggregates, aggregates).withSubqueries(new ExprBinder.Subqueries() {
      @Override
      public void insideAggregate(boolean inside) {
        insideAggregate = inside;
      }

      @Override
      public Expr scalar(Select subquery) {
        return routed(key("scalar", subquery), () -> subqueries.scalarSubquery(subquery, Block.this));
      }

      @Override
      public Expr exists(ExistsExpression exists) {
        return routed(key("exists", exists), () -> subqueries.existsValue(exists, Block.this));
      }

      @Override
      public Expr in(Expr value, Select subquery, Expression written) {
        return routed(key("in", written), () -> subqueries.inValue(value, subquery, written, Block.this));
      }

      @Override
      public Expr any(Expr.CmpOp op, Expr value, Select subquery, boolean all, Expression written) {
        return routed(key((all ? "all " : "any ") + op, written), () -> subqueries.anyValue(op, value, subquery, all, written, Block.this));
      }
    });
  }

  /**
   * Plans a subquery; inside an aggregate's argument or in GROUP BY, its joins go to {@link #beforeAggregation}. One
   * already planned with the same text ({@code key}) and the same placement is reused; GROUP BY moves its joins
   * before the aggregation.
   */
  private Expr routed(String key, java.util.function.Supplier<Expr> plan) {
    boolean inside = insideAggregate || groupBy;
    insideAggregate = false;
    if (!reuseSubqueries) key = null;
    Planned seen = key == null ? null : planned.get(key);
    if (seen != null && (seen.beforeAggregation() == inside || groupBy)) {
      if (groupBy && !seen.beforeAggregation()) {
        for (UnaryOperator<LogicalPlan> j : seen.joins()) if (pending.remove(j)) beforeAggregation.add(j);
        planned.put(key, new Planned(seen.value(), seen.joins(), true));
      }
      return seen.value();
    }
    int before = pending.size();
    Expr e = plan.get();
    List<UnaryOperator<LogicalPlan>> added = pending.subList(before, pending.size());
    List<UnaryOperator<LogicalPlan>> joins = List.copyOf(added);
    if (inside) {
      beforeAggregation.addAll(added);
      added.clear();
    }
    if (key != null) planned.put(key, new Planned(e, joins, inside));
    return e;
  }

  /**
   * What identifies a subquery: its kind and text; null (never reused) when it is too deep to print, holds a
   * {@code ?} (which prints the same for different parameters) or may call a volatile function (random()).
   */
  private static String key(String kind, Object node) {
    String text;
    try {
      text = String.valueOf(node);
    } catch (StackOverflowError tooDeep) {
      return null;
    }
    String lower = text.toLowerCase(java.util.Locale.ROOT);
    return text.indexOf('?') >= 0 || lower.contains("random") || lower.contains("uuid") ? null : kind + " " + text;
  }

  void flush() {
    for (UnaryOperator<LogicalPlan> p : beforeAggregation) plan = p.apply(plan);
    beforeAggregation.clear();
    for (UnaryOperator<LogicalPlan> p : pending) plan = p.apply(plan);
    pending.clear();
    planned.clear();
  }
}
