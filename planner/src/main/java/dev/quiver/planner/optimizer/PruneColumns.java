package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Narrows each scan to the columns the operators above it read, so only those are decoded.
 * <p>Before: {@code Project(a) -> Filter(b > 1) -> TableScan(t, [a, b, c, d])}; after: the scan reads
 * {@code [a, b]}.
 * <p>Legal because no operator above reads the dropped columns; a scan that needs none (count(*))
 * answers from row counts.
 */
public final class PruneColumns implements Rule {
  @Override
  public String name() {
    return "PruneColumns";
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    return prune(plan, null);
  }

  /** {@code required} is null when every column of {@code plan}'s output is needed. */
  private LogicalPlan prune(LogicalPlan plan, Set<String> required) {
    if (plan instanceof LogicalPlan.TableScan scan) {
      if (required == null) return scan;
      List<String> keep = new ArrayList<>();
      for (String c : scan.columns()) if (required.contains(c)) keep.add(c);
      return keep.equals(scan.columns()) ? scan
          : new LogicalPlan.TableScan(scan.table(), keep, scan.predicate(), scan.residual());
    }
    Set<String> childRequired;
    if (plan instanceof LogicalPlan.Project p) {
      childRequired = new LinkedHashSet<>();
      for (NamedExpr n : p.exprs()) childRequired.addAll(Exprs.columns(n.expr()));
    } else if (plan instanceof LogicalPlan.Aggregate a) {
      childRequired = new LinkedHashSet<>();
      for (AggregateCall c : a.aggregates()) if (c.arg() != null) childRequired.addAll(Exprs.columns(c.arg()));
    } else if (plan instanceof LogicalPlan.Filter f) {
      childRequired = required == null ? null : new LinkedHashSet<>(required);
      if (childRequired != null) childRequired.addAll(Exprs.columns(f.condition()));
    } else {
      childRequired = required;
    }
    List<LogicalPlan> children = new ArrayList<>();
    for (LogicalPlan c : plan.children()) children.add(prune(c, childRequired));
    return children.equals(plan.children()) ? plan : plan.withChildren(children);
  }
}
