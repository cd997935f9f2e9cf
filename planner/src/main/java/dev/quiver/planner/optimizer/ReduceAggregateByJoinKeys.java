package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An aggregate joined on its group key to keys that all come from a filtered table keeps only those keys' groups:
 * TPC-H q17's {@code avg(l_quantity)} per part key, LEFT-joined to lineitem rows of the 204 parts of one brand and
 * container, aggregated all 6 million lineitem rows into 200,000 groups to use 204. The aggregate's input is now
 * semi-joined to the filtered table's keys first, so it aggregates the 6,088 rows of those parts.
 * <p>Before: {@code Join(L, [Project] Aggregate(X, group k = c), l = k)}, INNER or LEFT, where {@code l} reaches L from a
 * filtered table F unchanged (through inner joins and projections that pass it on); after: the same with the aggregate
 * over {@code Semi(X, Project(F', l), c = l)}, F' a copy of F (scans are planned per instance).
 * <p>Legal because every value of {@code l} in L's rows is a value of {@code l} in some row of F (an inner join only
 * combines rows, a pass-through projection does not change values), so a group whose key is not among F's values
 * meets no row of L: the join drops it (INNER, LEFT: only matched right rows are output). A semi join on the group key
 * removes whole groups and leaves the others' rows, hence their aggregates, as they were. NULL keys match nothing
 * on either side. The copy of F is read a second time: only filtered tables qualify, and only when the aggregate's
 * input is estimated ten times larger.
 */
public final class ReduceAggregateByJoinKeys implements Rule {
  @Override
  public String name() {
    return "ReduceAggregateByJoinKeys";
  }

  private static final Pattern JOIN = Pattern.node(LogicalPlan.Join.class)
      .with("an inner or left join with a condition", p -> {
        LogicalPlan.Join j = (LogicalPlan.Join) p;
        return (j.type() == JoinType.INNER || j.type() == JoinType.LEFT) && j.condition() != null;
      });

  @Override
  public Pattern pattern() {
    return JOIN;
  }

  @Override
  public LogicalPlan apply(LogicalPlan node, OptimizerContext context) {
    LogicalPlan.Join j = (LogicalPlan.Join) node;
    LogicalPlan.Project project = j.right() instanceof LogicalPlan.Project p ? p : null;
    if (!((project == null ? j.right() : project.input()) instanceof LogicalPlan.Aggregate agg)) return node;
    if (agg.groups().isEmpty() || agg.input() instanceof LogicalPlan.Join in && in.type() == JoinType.SEMI) return node;
    Set<String> leftNames = PushDownFilters.names(j.left());
    for (Expr c : Exprs.conjuncts(j.condition())) {
      if (!(c instanceof Expr.Comparison cmp) || cmp.op() != Expr.CmpOp.EQ) continue;
      Expr.ColumnRef l = cmp.left() instanceof Expr.ColumnRef x && leftNames.contains(x.name()) ? x
          : cmp.right() instanceof Expr.ColumnRef y && leftNames.contains(y.name()) ? y : null;
      Expr other = l == null ? null : l == cmp.left() ? cmp.right() : cmp.left();
      Expr.ColumnRef r = other instanceof Expr.ColumnRef z ? z : null;
      if (l == null || r == null || leftNames.contains(r.name())) continue;
      Expr.ColumnRef groupColumn = groupInput(project, agg, r.name());
      if (groupColumn == null || !groupColumn.type().equals(l.type())) continue;
      LogicalPlan source = filteredSource(j.left(), l.name());
      if (source == null || ReorderJoins.estimate(agg.input()) < 10 * ReorderJoins.estimate(source)) continue;
      LogicalPlan keys = new LogicalPlan.Project(copy(source), List.of(new NamedExpr(l, l.name())));
      if (PushDownFilters.names(agg.input()).contains(l.name())) continue;
      LogicalPlan reduced = new LogicalPlan.Join(agg.input(), keys, JoinType.SEMI,
          new Expr.Comparison(Expr.CmpOp.EQ, groupColumn, l));
      LogicalPlan newAgg = new LogicalPlan.Aggregate(reduced, agg.groups(), agg.aggregates());
      LogicalPlan right = project == null ? newAgg : project.withChildren(List.of(newAgg));
      return new LogicalPlan.Join(j.left(), right, j.type(), j.condition());
    }
    return node;
  }

  /** The input column that group key {@code name} (seen through {@code project}, if any) is, or null. */
  private static Expr.ColumnRef groupInput(LogicalPlan.Project project, LogicalPlan.Aggregate agg, String name) {
    String key = name;
    if (project != null) {
      key = null;
      for (NamedExpr e : project.exprs()) {
        if (e.name().equals(name) && e.expr() instanceof Expr.ColumnRef c) key = c.name();
      }
      if (key == null) return null;
    }
    for (NamedExpr g : agg.groups()) {
      if (g.name().equals(key) && g.expr() instanceof Expr.ColumnRef c) return c;
    }
    return null;
  }

  /**
   * The filtered table (a scan with a predicate, or a filter over a scan) whose column {@code name} reaches
   * {@code plan}'s output unchanged through inner joins and pass-through projections; null if none.
   */
  static LogicalPlan filteredSource(LogicalPlan plan, String name) {
    if (plan instanceof LogicalPlan.TableScan s) {
      return s.names().contains(name) && (s.predicate() != null || !s.exact().isEmpty()) ? s : null;
    }
    if (plan instanceof LogicalPlan.Filter f && f.input() instanceof LogicalPlan.TableScan s) {
      return s.names().contains(name) ? f : null;
    }
    if (plan instanceof LogicalPlan.Join j && j.type() == JoinType.INNER) {
      if (PushDownFilters.names(j.left()).contains(name)) return filteredSource(j.left(), name);
      if (PushDownFilters.names(j.right()).contains(name)) return filteredSource(j.right(), name);
      return null;
    }
    if (plan instanceof LogicalPlan.Project p) {
      for (NamedExpr e : p.exprs()) {
        if (e.name().equals(name)) {
          return e.expr() instanceof Expr.ColumnRef c && c.name().equals(name) ? filteredSource(p.input(), name) : null;
        }
      }
    }
    return null;
  }

  /** A copy of {@code plan} made of new node instances (the physical planner keys scans by instance). */
  private static LogicalPlan copy(LogicalPlan plan) {
    if (plan instanceof LogicalPlan.TableScan s) {
      return new LogicalPlan.TableScan(s.table(), s.columns(), s.names(), s.predicate(), s.residual(), s.exact());
    }
    List<LogicalPlan> children = new ArrayList<>();
    for (LogicalPlan c : plan.children()) children.add(copy(c));
    return plan.withChildren(children);
  }
}
