package dev.quiver.planner.exec;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.optimizer.simplify.ExprFacts;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.scan.predicate.RowPredicate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The exact conjuncts of a scan as the scan's {@link RowPredicate}: compiled by {@link ExprCompiler} against
 * the table's fields, evaluated by the same kernels as {@link FilterExec}, so a row is kept exactly when the
 * filter above would have kept it (TRUE keeps; FALSE and NULL drop).
 *
 * <p>Safe to call from the scan's threads at once: a compiled expression holds only immutable state (its
 * literals, the column positions, {@link EvalContext}; an IN list's hash set is built once under a lock),
 * and every call allocates its own intermediate vectors from the (thread-safe) allocator given.
 */
final class ScanFilter implements RowPredicate {
  private final List<String> columns;
  private final PhysicalExpr condition;

  /** Whether the condition reads one column and calls nothing volatile ({@link #perValue}). */
  private final boolean perValue;
  /** Each exact conjunct as a filter of its own (this one alone when there is one). */
  private final List<RowPredicate> conjuncts;

  private ScanFilter(List<String> columns, PhysicalExpr condition, boolean perValue, List<RowPredicate> conjuncts) {
    this.columns = List.copyOf(columns);
    this.condition = condition;
    this.perValue = perValue;
    this.conjuncts = conjuncts == null ? List.of(this) : List.copyOf(conjuncts);
  }

  /** The filter of {@code scan}'s exact conjuncts, or null when it has none. */
  static ScanFilter of(LogicalPlan.TableScan scan, EvalContext ctx) {
    if (scan.exact().isEmpty()) return null;
    if (scan.exact().size() == 1) return of(scan, scan.exact().get(0), null, ctx);
    List<RowPredicate> parts = new ArrayList<>();
    for (Expr conjunct : scan.exact()) parts.add(of(scan, conjunct, null, ctx));
    return of(scan, Exprs.and(scan.exact()), parts, ctx);
  }

  private static ScanFilter of(LogicalPlan.TableScan scan, Expr condition, List<RowPredicate> parts, EvalContext ctx) {
    List<String> columns = new ArrayList<>(Exprs.columns(condition));
    List<Field> fields = new ArrayList<>();
    for (String c : columns) fields.add(scan.table().field(c));
    return new ScanFilter(columns, ExprCompiler.compile(condition, new Schema(fields), ctx),
        columns.size() == 1 && !ExprFacts.isVolatile(condition), parts);
  }

  /**
   * Each exact conjunct compiled on its own: the scan asks those it can answer per dictionary entry first and the
   * others about the rows those kept. Legal because AND keeps a row exactly when every conjunct is TRUE for it (FALSE
   * or NULL in any drops it), and a conjunct asked about fewer rows can only raise fewer errors.
   */
  @Override
  public List<RowPredicate> conjuncts() {
    return conjuncts;
  }

  /**
   * One column and nothing volatile: a compiled expression's value for a row is a function of that row's value of the
   * column (literals, parameters and the query's context are fixed for the query), so the scan may evaluate it once
   * per dictionary entry. Several columns are not offered: a chunk's dictionary indexes are per column.
   */
  @Override
  public boolean perValue() {
    return perValue;
  }

  @Override
  public List<String> columns() {
    return columns;
  }

  @Override
  public int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep) {
    try (ColumnValues mask = condition.eval(batch, allocator)) {
      return BatchValues.keepTrue(mask, batch.getRowCount(), keep);
    }
  }
}
