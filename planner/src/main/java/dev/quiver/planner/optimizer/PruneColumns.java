package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Narrows every operator to the columns the operators above it read, so that scans decode only those
 * and joins carry only those: projections drop unused outputs, scans read fewer columns.
 * <p>Before: {@code Project(a) -> Filter(b > 1) -> TableScan(t, [a, b, c, d])}; after: the scan reads
 * {@code [a, b]}.
 * <p>Legal because no operator above reads the dropped columns (names are unique in a plan); the root's
 * output is never narrowed, nor the inputs of a union (matched by position).
 * <p>A whole-plan rule ({@link Pattern#root()}): what a node may drop depends on what every operator
 * above it reads, so the required columns are carried top-down from the root in one walk; a rule at
 * one node could not know them.
 */
public final class PruneColumns implements Rule {
  @Override
  public String name() {
    return "PruneColumns";
  }

  @Override
  public Pattern pattern() {
    return Pattern.root();
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    return prune(plan, null);
  }

  /** {@code required} is null when every column of {@code plan}'s output is needed. */
  private LogicalPlan prune(LogicalPlan plan, Set<String> required) {
    if (plan instanceof LogicalPlan.TableScan scan) {
      // the scan's exact conjuncts are over table columns the scan reads for itself (output or not),
      // so only the output is narrowed; they keep every column they read
      if (required == null) return scan;
      LogicalPlan.TableScan kept = scan.keep(required);
      return kept.names().equals(scan.names()) ? scan : kept;
    }
    if (plan instanceof LogicalPlan.Project p) {
      List<NamedExpr> exprs = p.exprs();
      if (required != null) {
        List<NamedExpr> keep = new ArrayList<>();
        for (NamedExpr n : exprs) if (required.contains(n.name())) keep.add(n);
        if (keep.isEmpty() && !exprs.isEmpty()) keep.add(exprs.get(0)); // keep the row count visible
        exprs = keep;
      }
      Set<String> child = new LinkedHashSet<>();
      for (NamedExpr n : exprs) child.addAll(Exprs.columns(n.expr()));
      LogicalPlan input = prune(p.input(), child);
      return exprs.equals(p.exprs()) && input == p.input() ? plan : new LogicalPlan.Project(input, exprs);
    }
    if (plan instanceof LogicalPlan.Aggregate a) {
      Set<String> child = new LinkedHashSet<>();
      for (NamedExpr g : a.groups()) child.addAll(Exprs.columns(g.expr()));
      for (AggregateCall c : a.aggregates()) for (dev.quiver.planner.expr.Expr e : c.exprs()) child.addAll(Exprs.columns(e));
      return rebuild(plan, List.of(prune(a.input(), child)));
    }
    if (plan instanceof LogicalPlan.Expand e) {
      // unused columns are dropped from every projection (they are alike); the input keeps what the rest reads
      List<Integer> keep = new ArrayList<>();
      List<NamedExpr> first = e.projections().get(0);
      for (int i = 0; i < first.size(); i++) if (required == null || required.contains(first.get(i).name())) keep.add(i);
      if (keep.isEmpty()) keep.add(0); // keep the row count visible
      List<List<NamedExpr>> projections = new ArrayList<>();
      Set<String> child = new LinkedHashSet<>();
      for (List<NamedExpr> p : e.projections()) {
        List<NamedExpr> kept = new ArrayList<>();
        for (int i : keep) {
          kept.add(p.get(i));
          child.addAll(Exprs.columns(p.get(i).expr()));
        }
        projections.add(kept);
      }
      LogicalPlan input = prune(e.input(), child);
      return keep.size() == first.size() && input == e.input() ? plan : new LogicalPlan.Expand(input, projections);
    }
    if (plan instanceof LogicalPlan.Window w) {
      // unused calls are dropped (the whole node when none is left); the input keeps what the calls read
      List<LogicalPlan.WindowCall> calls = new ArrayList<>();
      for (LogicalPlan.WindowCall c : w.calls()) if (required == null || required.contains(c.name())) calls.add(c);
      Set<String> child = null;
      if (required != null) {
        child = new LinkedHashSet<>(required);
        for (LogicalPlan.WindowCall c : calls) for (dev.quiver.planner.expr.Expr e : c.exprs()) child.addAll(Exprs.columns(e));
      }
      LogicalPlan input = prune(w.input(), child);
      if (calls.isEmpty()) return input;
      return calls.size() == w.calls().size() && input == w.input() ? plan : new LogicalPlan.Window(input, calls);
    }
    if (plan instanceof LogicalPlan.Filter f) {
      Set<String> child = required == null ? null : new LinkedHashSet<>(required);
      if (child != null) child.addAll(Exprs.columns(f.condition()));
      return rebuild(plan, List.of(prune(f.input(), child)));
    }
    if (plan instanceof LogicalPlan.Sort s) {
      Set<String> child = required == null ? null : new LinkedHashSet<>(required);
      if (child != null) for (LogicalPlan.SortKey k : s.keys()) child.addAll(Exprs.columns(k.expr()));
      return rebuild(plan, List.of(prune(s.input(), child)));
    }
    if (plan instanceof LogicalPlan.Join j) {
      Set<String> need = new LinkedHashSet<>();
      if (required == null) {
        for (Field f : j.schema().getFields()) need.add(f.getName());
      } else {
        need.addAll(required);
      }
      if (j.condition() != null) need.addAll(Exprs.columns(j.condition()));
      Set<String> left = new LinkedHashSet<>();
      Set<String> right = new LinkedHashSet<>();
      Set<String> leftNames = PushDownFilters.names(j.left());
      Set<String> rightNames = PushDownFilters.names(j.right());
      for (String n : need) {
        if (leftNames.contains(n)) left.add(n);
        if (rightNames.contains(n)) right.add(n);
      }
      return rebuild(plan, List.of(prune(j.left(), left), prune(j.right(), right)));
    }
    if (plan instanceof LogicalPlan.Union || plan instanceof LogicalPlan.EnforceSingleRow) {
      List<LogicalPlan> children = new ArrayList<>();
      for (LogicalPlan c : plan.children()) children.add(prune(c, null));
      return rebuild(plan, children);
    }
    List<LogicalPlan> children = new ArrayList<>();
    for (LogicalPlan c : plan.children()) children.add(prune(c, required));
    return rebuild(plan, children);
  }

  /** {@code plan} over {@code children}: the same instance when every child is (the driver sees no change). */
  private static LogicalPlan rebuild(LogicalPlan plan, List<LogicalPlan> children) {
    List<LogicalPlan> old = plan.children();
    for (int i = 0; i < children.size(); i++) if (children.get(i) != old.get(i)) return plan.withChildren(children);
    return plan;
  }
}
