package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.PlanVisitor;
import dev.quiver.scan.read.ScanOptions;
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
  private final ScanOptions scanOptions;

  public PhysicalPlanner(Catalog catalog, BufferAllocator allocator, EvalContext ctx,
      dev.quiver.planner.Cancellation cancellation, int batchRows, boolean pruning) {
    this(catalog, allocator, ctx, cancellation, batchRows, pruning, ScanOptions.shared());
  }

  /** As above, the scans reading as {@code scanOptions} say (threads, decoders, codecs, executor). */
  public PhysicalPlanner(Catalog catalog, BufferAllocator allocator, EvalContext ctx,
      dev.quiver.planner.Cancellation cancellation, int batchRows, boolean pruning, ScanOptions scanOptions) {
    this.pruning = pruning;
    this.scanOptions = scanOptions;
    this.catalog = catalog;
    this.allocator = allocator;
    this.ctx = ctx;
    this.cancellation = cancellation;
    this.batchRows = batchRows;
  }

  public Operator plan(LogicalPlan plan) {
    Operator op = plan.accept(this);
    op.cancellation = cancellation;
    return op;
  }

  @Override
  public Operator visitScan(LogicalPlan.TableScan p) {
    return new ScanExec(catalog, p, ScanFilter.of(p, ctx), allocator, batchRows, cancellation, pruning, scanOptions);
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
    return new AggregateExec(plan(p.input()), p, allocator, ctx, batchRows);
  }

  @Override
  public Operator visitSort(LogicalPlan.Sort p) {
    return new SortExec(plan(p.input()), p, allocator, ctx, batchRows);
  }

  @Override
  public Operator visitUnion(LogicalPlan.Union p) {
    java.util.List<Operator> inputs = new java.util.ArrayList<>();
    try {
      for (LogicalPlan c : p.inputs()) inputs.add(plan(c));
    } catch (RuntimeException e) {
      inputs.forEach(Operator::close);
      throw e;
    }
    return new UnionExec(inputs, p);
  }

  @Override
  public Operator visitEnforceSingleRow(LogicalPlan.EnforceSingleRow p) {
    return new EnforceSingleRowExec(plan(p.input()), p);
  }

  /**
   * A hash join: the condition's conjuncts {@code l = r} with each side reading one input only become
   * the hash keys, the rest is the residual evaluated on candidate pairs.
   */
  @Override
  public Operator visitJoin(LogicalPlan.Join p) {
    java.util.Set<String> leftNames = names(p.left());
    java.util.Set<String> rightNames = names(p.right());
    java.util.List<dev.quiver.planner.expr.Expr> keys = new java.util.ArrayList<>();
    java.util.List<dev.quiver.planner.expr.Expr> residual = new java.util.ArrayList<>();
    if (p.condition() != null) {
      for (dev.quiver.planner.expr.Expr c : dev.quiver.planner.expr.Exprs.conjuncts(p.condition())) {
        if (c instanceof dev.quiver.planner.expr.Expr.Comparison cmp && cmp.op() == dev.quiver.planner.expr.Expr.CmpOp.EQ) {
          java.util.Set<String> l = dev.quiver.planner.expr.Exprs.columns(cmp.left());
          java.util.Set<String> r = dev.quiver.planner.expr.Exprs.columns(cmp.right());
          if (!l.isEmpty() && !r.isEmpty() && leftNames.containsAll(l) && rightNames.containsAll(r)) {
            keys.add(cmp.left());
            keys.add(cmp.right());
            continue;
          }
          if (!l.isEmpty() && !r.isEmpty() && rightNames.containsAll(l) && leftNames.containsAll(r)) {
            keys.add(cmp.right());
            keys.add(cmp.left());
            continue;
          }
        }
        if (!(c instanceof dev.quiver.planner.expr.Expr.Literal lit && Boolean.TRUE.equals(lit.value()))) residual.add(c);
      }
    }
    Operator left = plan(p.left());
    Operator right;
    try {
      right = plan(p.right());
    } catch (RuntimeException e) {
      left.close();
      throw e;
    }
    try {
      return new HashJoinExec(left, right, p, keys, residual.isEmpty() ? null : dev.quiver.planner.expr.Exprs.and(residual),
          allocator, ctx, batchRows);
    } catch (RuntimeException e) {
      left.close();
      right.close();
      throw e;
    }
  }

  private static java.util.Set<String> names(LogicalPlan p) {
    java.util.Set<String> s = new java.util.HashSet<>();
    for (org.apache.arrow.vector.types.pojo.Field f : p.schema().getFields()) s.add(f.getName());
    return s;
  }

  @Override
  public Operator visitLimit(LogicalPlan.Limit p) {
    return new LimitExec(plan(p.input()), p.limit(), p.offset(), allocator);
  }
}
