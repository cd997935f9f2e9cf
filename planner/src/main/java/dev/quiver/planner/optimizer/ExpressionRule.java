package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import java.util.ArrayList;
import java.util.List;

/** A rule that rewrites every expression of the plan, bottom-up over the plan's nodes. */
public abstract class ExpressionRule implements Rule {
  /** Rewrites one expression tree (return the same instance when nothing applies). */
  abstract Expr rewrite(Expr e, OptimizerContext context);

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    List<LogicalPlan> children = new ArrayList<>();
    boolean changed = false;
    for (LogicalPlan c : plan.children()) {
      LogicalPlan n = apply(c, context);
      changed |= n != c;
      children.add(n);
    }
    if (changed) plan = plan.withChildren(children);
    if (plan instanceof LogicalPlan.Filter f) {
      Expr c = rewrite(f.condition(), context);
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
      List<AggregateCall> out = new ArrayList<>();
      boolean any = false;
      for (AggregateCall call : a.aggregates()) {
        Expr arg = call.arg() == null ? null : rewrite(call.arg(), context);
        any |= arg != null && !arg.equals(call.arg());
        out.add(new AggregateCall(call.func(), arg, call.type(), call.name()));
      }
      return any ? new LogicalPlan.Aggregate(a.input(), out) : plan;
    }
    return plan;
  }
}
