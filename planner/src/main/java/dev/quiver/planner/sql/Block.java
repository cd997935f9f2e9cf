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
        return routed(() -> subqueries.scalarSubquery(subquery, Block.this));
      }

      @Override
      public Expr exists(ExistsExpression exists) {
        return routed(() -> subqueries.existsValue(exists, Block.this));
      }

      @Override
      public Expr in(Expr value, Select subquery, Expression written) {
        return routed(() -> subqueries.inValue(value, subquery, written, Block.this));
      }

      @Override
      public Expr any(Expr.CmpOp op, Expr value, Select subquery, boolean all, Expression written) {
        return routed(() -> subqueries.anyValue(op, value, subquery, all, written, Block.this));
      }
    });
  }

  /** Plans a subquery; inside an aggregate's argument, its joins go to {@link #beforeAggregation}. */
  private Expr routed(java.util.function.Supplier<Expr> plan) {
    boolean inside = insideAggregate;
    insideAggregate = false;
    int before = pending.size();
    Expr e = plan.get();
    if (inside) {
      List<UnaryOperator<LogicalPlan>> added = pending.subList(before, pending.size());
      beforeAggregation.addAll(added);
      added.clear();
    }
    return e;
  }

  void flush() {
    for (UnaryOperator<LogicalPlan> p : beforeAggregation) plan = p.apply(plan);
    beforeAggregation.clear();
    for (UnaryOperator<LogicalPlan> p : pending) plan = p.apply(plan);
    pending.clear();
  }
}
