package dev.quiver.planner.plan;

/** A visitor over {@link LogicalPlan}; every node kind must be handled. */
public interface PlanVisitor<R> {
  R visitScan(LogicalPlan.TableScan p);
  R visitOneRow(LogicalPlan.OneRow p);
  R visitEmpty(LogicalPlan.Empty p);
  R visitFilter(LogicalPlan.Filter p);
  R visitProject(LogicalPlan.Project p);
  R visitAggregate(LogicalPlan.Aggregate p);
  R visitLimit(LogicalPlan.Limit p);
  R visitJoin(LogicalPlan.Join p);
  R visitSort(LogicalPlan.Sort p);
  R visitUnion(LogicalPlan.Union p);
  R visitEnforceSingleRow(LogicalPlan.EnforceSingleRow p);
  R visitWindow(LogicalPlan.Window p);
  R visitExpand(LogicalPlan.Expand p);
}
