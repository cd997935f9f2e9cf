package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.scan.predicate.ScanPredicate;
import java.util.ArrayList;
import java.util.List;

/**
 * Gives a scan the conjuncts of the filter right above it that compare bare columns with literals, as a
 * {@link ScanPredicate} to prune row groups with; the rest is recorded as the scan's residual.
 * <p>Before: {@code Filter(a < 5 AND f(b)) -> TableScan(t)}; after: the same filter over
 * {@code TableScan(t, predicate=a < 5, residual=f(b))}.
 * <p>Legal because pruning only skips row groups where no row can match, and the filter above keeps
 * evaluating every surviving row.
 */
public final class PushFilterIntoScan implements Rule {
  @Override
  public String name() {
    return "PushFilterIntoScan";
  }

  private static final Pattern FILTER_OVER_SCAN = Pattern.node(LogicalPlan.Filter.class).withInput(LogicalPlan.TableScan.class);

  @Override
  public Pattern pattern() {
    return FILTER_OVER_SCAN;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    if (!(plan instanceof LogicalPlan.Filter f) || !(f.input() instanceof LogicalPlan.TableScan scan)) return plan;
    List<ScanPredicate> pushed = new ArrayList<>();
    List<Expr> residual = new ArrayList<>();
    for (Expr conjunct : Exprs.conjuncts(f.condition())) {
      ScanPredicate p = ScanPredicates.translate(toTableColumns(conjunct, scan));
      if (p == null) residual.add(conjunct);
      else pushed.add(p);
    }
    ScanPredicate predicate = pushed.isEmpty() ? null
        : pushed.size() == 1 ? pushed.get(0) : new ScanPredicate.And(pushed);
    Expr rest = residual.isEmpty() ? null : Exprs.and(residual);
    LogicalPlan.TableScan next = new LogicalPlan.TableScan(scan.table(), scan.columns(), scan.names(), predicate, rest);
    return next.equals(scan) ? plan : new LogicalPlan.Filter(next, f.condition());
  }

  /** The conjunct over the table's own column names (the scan may output them renamed). */
  private static Expr toTableColumns(Expr e, LogicalPlan.TableScan scan) {
    return Exprs.transformUp(e, x -> {
      if (x instanceof Expr.ColumnRef c) {
        String col = scan.columnOf(c.name());
        if (col != null && !col.equals(c.name())) return new Expr.ColumnRef(col, c.type(), c.nullable());
      }
      return x;
    });
  }
}
