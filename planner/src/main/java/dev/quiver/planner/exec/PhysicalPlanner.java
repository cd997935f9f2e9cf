package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.PlanVisitor;
import dev.quiver.scan.table.Catalog;
import org.apache.arrow.memory.BufferAllocator;

/** Turns an optimized logical plan into operators that allocate from the query's allocator. */
public final class PhysicalPlanner implements PlanVisitor<Operator> {
  private final Catalog catalog;
  private final BufferAllocator allocator;
  private final EvalContext ctx;

  private final dev.quiver.planner.Cancellation cancellation;

  private final int batchRows;
  private final boolean pruning;

  public PhysicalPlanner(Catalog catalog, BufferAllocator allocator, EvalContext ctx,
      dev.quiver.planner.Cancellation cancellation, int batchRows, boolean pruning) {
    this.pruning = pruning;
    this.catalog = catalog;
    this.allocator = allocator;
    this.ctx = ctx;
    this.cancellation = cancellation;
    this.batchRows = batchRows;
  }

  public Operator plan(LogicalPlan plan) {
    return plan.accept(this);
  }

  @Override
  public Operator visitScan(LogicalPlan.TableScan p) {
    return new ScanExec(catalog, p, allocator, batchRows, cancellation, pruning);
  }

  @Override
  public Operator visitOneRow(LogicalPlan.OneRow p) {
    return new OneRowExec(allocator);
  }

  @Override
  public Operator visitEmpty(LogicalPlan.Empty p) {
    return new EmptyExec(p.schema());
  }

  @Override
  public Operator visitFilter(LogicalPlan.Filter p) {
    return new FilterExec(plan(p.input()), p.condition(), allocator, ctx);
  }

  @Override
  public Operator visitProject(LogicalPlan.Project p) {
    return new ProjectExec(plan(p.input()), p, allocator, ctx);
  }

  @Override
  public Operator visitAggregate(LogicalPlan.Aggregate p) {
    return new AggregateExec(plan(p.input()), p, allocator, ctx);
  }

  @Override
  public Operator visitLimit(LogicalPlan.Limit p) {
    return new LimitExec(plan(p.input()), p.limit(), p.offset(), allocator);
  }
}
