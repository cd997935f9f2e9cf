package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import java.util.ArrayList;
import java.util.List;

/**
 * A rule that rewrites every expression of the plan: it matches the nodes that hold expressions
 * (filters, projections, aggregations, joins, sorts), bottom-up, and rewrites their expressions.
 */
public abstract class ExpressionRule implements Rule {
  private static final Pattern NODES_WITH_EXPRESSIONS = Pattern.anyOf(LogicalPlan.Filter.class,
      LogicalPlan.Project.class, LogicalPlan.Aggregate.class, LogicalPlan.Join.class, LogicalPlan.Sort.class);

  /** Rewrites one expression tree (return the same instance when nothing applies). */
  abstract Expr rewrite(Expr e, OptimizerContext context);

  /** Rewrites a predicate (a filter's or a join's condition); by default as any expression. */
  Expr rewritePredicate(Expr e, OptimizerContext context) {
    return rewrite(e, context);
  }

  @Override
  public Pattern pattern() {
    return NODES_WITH_EXPRESSIONS;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    if (plan instanceof LogicalPlan.Filter f) {
      Expr c = rewritePredicate(f.condition(), context);
      return c.equals(f.condition()) ? plan : new LogicalPlan.Filter(f.input(), c);
    }
    if (plan instanceof LogicalPlan.Project p) {
      List<NamedExpr> out = new ArrayList<>();
      boolean any = false;
      for (NamedExpr n : p.exprs()) {
        Expr e = rewrite(n.expr(), context);
        any |= !e.equals(n.expr());
        out.add(new NamedExpr(e, n.name()));
      }
      return any ? new LogicalPlan.Project(p.input(), out) : plan;
    }
    if (plan instanceof LogicalPlan.Aggregate a) {
      List<NamedExpr> groups = new ArrayList<>();
      boolean any = false;
      for (NamedExpr g : a.groups()) {
        Expr e = rewrite(g.expr(), context);
        any |= !e.equals(g.expr());
        groups.add(new NamedExpr(e, g.name()));
      }
      List<AggregateCall> out = new ArrayList<>();
      for (AggregateCall call : a.aggregates()) {
        Expr arg = call.arg() == null ? null : rewrite(call.arg(), context);
        Expr arg2 = call.arg2() == null ? null : rewrite(call.arg2(), context);
        any |= arg != null && !arg.equals(call.arg()) || arg2 != null && !arg2.equals(call.arg2());
        out.add(call.withArgs(arg, arg2));
      }
      return any ? new LogicalPlan.Aggregate(a.input(), groups, out) : plan;
    }
    if (plan instanceof LogicalPlan.Join j && j.condition() != null) {
      Expr c = rewritePredicate(j.condition(), context);
      return c.equals(j.condition()) ? plan : new LogicalPlan.Join(j.left(), j.right(), j.type(), c);
    }
    if (plan instanceof LogicalPlan.Sort s) {
      List<LogicalPlan.SortKey> keys = new ArrayList<>();
      boolean any = false;
      for (LogicalPlan.SortKey k : s.keys()) {
        Expr e = rewrite(k.expr(), context);
        any |= !e.equals(k.expr());
        keys.add(new LogicalPlan.SortKey(e, k.ascending(), k.nullsFirst()));
      }
      return any ? new LogicalPlan.Sort(s.input(), keys, s.fetch()) : plan;
    }
    return plan;
  }
}
