package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;

/**
 * The two-argument statistics {@code f(y, x)} — corr, covar_pop, covar_samp and regr_slope, regr_intercept,
 * regr_r2, regr_count, regr_avgx, regr_avgy, regr_sxx, regr_syy, regr_sxy — over the rows where both arguments
 * are non-NULL (the SQL standard's rule), both read as DOUBLE. The state is Welford's: the count, the means and
 * the co-moments {@code Sxx = Σ(x - x̄)²}, {@code Syy}, {@code Sxy = Σ(x - x̄)(y - ȳ)} updated a row at a time,
 * so that no large sum cancels, over the values shifted by the first pair (exact for values of one magnitude, so
 * that data far from 0 — 1e9 plus small differences — keeps its digits); the answer depends on the rows' order
 * only in its last bits. Over no rows:
 * regr_count 0, the others NULL. Where a variance is 0 the values are DuckDB's: corr and regr_slope NaN
 * (0/0), regr_intercept and regr_r2 NULL when regr_slope is undefined, regr_r2 1 when y is constant;
 * covar_samp needs two rows. The arithmetic is {@link GroupedCovariance}'s, for one group.
 */
final class Covariance extends Accumulator {
  /** The state, as one group of the grouped form (one copy of the arithmetic). */
  private final GroupedCovariance state;

  Covariance(AggFunc func) {
    state = new GroupedCovariance(func);
    state.grow(1);
  }

  @Override
  void add(ColumnValues v, int i) {
    ColumnValues[] parts = ((TupleValues) v).parts();
    if (parts[0].isNull(i) || parts[1].isNull(i)) return;
    add(parts[0].getDouble(i), parts[1].getDouble(i));
  }

  /** Adds the pair (y, x). */
  void add(double y, double x) {
    state.add(0, y, x);
  }

  @Override
  Object result() {
    return state.result(0);
  }
}
