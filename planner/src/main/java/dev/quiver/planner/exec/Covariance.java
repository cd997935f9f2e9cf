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
 * covar_samp needs two rows.
 */
final class Covariance extends Accumulator {
  private final AggFunc func;
  private long n;
  /** The shift: the first pair. */
  private double kx;
  private double ky;
  /** The means of the shifted values. */
  private double meanX;
  private double meanY;
  private double sxx;
  private double syy;
  private double sxy;

  Covariance(AggFunc func) {
    this.func = func;
  }

  @Override
  void add(ColumnValues v, int i) {
    ColumnValues[] parts = ((TupleValues) v).parts();
    if (parts[0].isNull(i) || parts[1].isNull(i)) return;
    add(parts[0].getDouble(i), parts[1].getDouble(i));
  }

  /** Adds the pair (y, x). */
  void add(double y, double x) {
    if (n == 0) {
      kx = x;
      ky = y;
    }
    x -= kx;
    y -= ky;
    n++;
    double dx = x - meanX;
    meanX += dx / n;
    double dy = y - meanY;
    meanY += dy / n;
    double ey = y - meanY;
    sxx += dx * (x - meanX);
    syy += dy * ey;
    sxy += dx * ey;
  }

  @Override
  Object result() {
    if (func == AggFunc.REGR_COUNT) return n;
    if (n == 0) return null;
    return switch (func) {
      case COVAR_POP -> sxy / n;
      case COVAR_SAMP -> n < 2 ? null : sxy / (n - 1);
      case CORR -> corr();
      case REGR_SLOPE -> sxy / sxx;
      case REGR_INTERCEPT -> {
        double slope = sxy / sxx;
        yield Double.isNaN(slope) ? null : (ky + meanY) - slope * (kx + meanX);
      }
      case REGR_R2 -> {
        if (sxx == 0) yield null;
        if (syy == 0) yield 1.0;
        double r = corr();
        yield r * r;
      }
      case REGR_AVGX -> kx + meanX;
      case REGR_AVGY -> ky + meanY;
      case REGR_SXX -> sxx;
      case REGR_SYY -> syy;
      case REGR_SXY -> sxy;
      default -> throw new IllegalStateException(func.toString());
    };
  }

  /** Pearson's r: Sxy / sqrt(Sxx Syy), NaN where a variance is 0. */
  private double corr() {
    double d = Math.sqrt(sxx) * Math.sqrt(syy);
    return d == 0 ? Double.NaN : sxy / d;
  }
}
