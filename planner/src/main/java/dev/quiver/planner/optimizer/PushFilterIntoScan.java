package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.scan.predicate.ScanPredicate;
import java.util.ArrayList;
import java.util.List;

/**
 * Gives a scan the conjuncts of the filter right above it, each as {@link FilterPushdown} classifies it:
 * an EXACT conjunct moves into the scan (which evaluates it on every row with the engine's compiled
 * expression, and prunes with its {@link ScanPredicate}); an INEXACT one stays above and the scan prunes
 * with the predicate it implies; an UNSUPPORTED one stays above. What stays is recorded as the scan's
 * residual (for EXPLAIN); the filter disappears when nothing stays. A filter pushed later onto a scan
 * that already has exact conjuncts is merged into them.
 * <p>Before: {@code Filter(a < 5 AND s LIKE 'x%y' AND f(b)) -> TableScan(t)}; after:
 * {@code Filter(s LIKE 'x%y' AND f(b)) -> TableScan(t, exact=[a < 5], predicate=a < 5 AND starts_with(s, 'x'),
 * residual=s LIKE 'x%y' AND f(b))}.
 * <p>Legal because a filter's conjuncts may be applied in any order and place below it as long as each
 * row is tested by all of them: the scan drops exactly the rows for which an exact conjunct is not TRUE
 * (the same compiled kernels as {@code FilterExec}, over the same values, so with the same three-valued
 * logic, NaN/-0.0, unsigned, decimal and string orders), so a filter above repeating it would keep every
 * row the scan emits. The scan evaluates it whether or not pruning is enabled and reads its columns even
 * when they are not output. Pruning only skips row groups and pages where no row can satisfy a predicate
 * every surviving row must satisfy (an exact translation, or one implied by an INEXACT conjunct).
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
    return rewrite(f, scan);
  }

  /** The node-level rewrite of {@code Filter(f) -> scan}. */
  static LogicalPlan rewrite(LogicalPlan.Filter f, LogicalPlan.TableScan scan) {
    List<ScanPredicate> pruneWith = new ArrayList<>();
    if (scan.predicate() != null) {
      pruneWith.addAll(scan.predicate() instanceof ScanPredicate.And a ? a.children() : List.of(scan.predicate()));
    }
    List<Expr> exact = new ArrayList<>(scan.exact());
    List<Expr> stay = new ArrayList<>();
    for (Expr conjunct : Exprs.conjuncts(f.condition())) {
      Expr overTable = toTableColumns(conjunct, scan);
      FilterPushdown.Decision d = FilterPushdown.classify(overTable);
      if (d.kind() == FilterPushdown.Kind.EXACT) {
        if (!exact.contains(overTable)) exact.add(overTable);
      } else {
        stay.add(conjunct);
      }
      if (d.predicate() != null && !pruneWith.contains(d.predicate())) pruneWith.add(d.predicate());
    }
    ScanPredicate predicate = pruneWith.isEmpty() ? null
        : pruneWith.size() == 1 ? pruneWith.get(0) : new ScanPredicate.And(pruneWith);
    Expr rest = stay.isEmpty() ? null : Exprs.and(stay);
    LogicalPlan.TableScan next = new LogicalPlan.TableScan(scan.table(), scan.columns(), scan.names(), predicate, rest,
        exact);
    if (rest == null) return next;
    return next.equals(scan) ? f : new LogicalPlan.Filter(next, rest);
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
