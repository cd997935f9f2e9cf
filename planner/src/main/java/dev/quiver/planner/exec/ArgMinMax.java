package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;

/**
 * {@code arg_min(arg, val)} / {@code arg_max(arg, val)} (also min_by / max_by): arg at the row with the least
 * (greatest) val, among the rows where neither is NULL (DuckDB's rule); NULL when there is none. Of rows with equal
 * vals the first one met wins, so ties are answered in input order (as single-phase aggregation sees it). NaN
 * is above every number, as SQL orders it.
 */
final class ArgMinMax extends Accumulator {
  private final Kernels.Family family;
  private final boolean min;
  private Object arg;
  private Object best;

  ArgMinMax(Kernels.Family family, boolean min) {
    this.family = family;
    this.min = min;
  }

  @Override
  void add(ColumnValues v, int i) {
    ColumnValues[] parts = ((TupleValues) v).parts();
    if (parts[0].isNull(i) || parts[1].isNull(i)) return;
    Object x = parts[1].getObject(i);
    if (best != null) {
      int c = Kernels.compareObjects(family, x, best);
      if (min ? c >= 0 : c <= 0) return;
    }
    best = x;
    arg = parts[0].getObject(i);
  }

  @Override
  Object result() {
    return arg;
  }
}
