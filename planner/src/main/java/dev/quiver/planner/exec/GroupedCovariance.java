package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import java.util.Arrays;

/**
 * {@link Covariance}'s state (Welford's count, means and co-moments over values shifted by the first pair) for many
 * groups, in one array per field instead of an object per group, updated in a loop over the batch: the same
 * arithmetic in the same row order as {@link Covariance}, which keeps its one group here, so grouped and ungrouped
 * answers agree to the bit. (H2O's q9, {@code corr} over 10,000 groups, spent its time calling an accumulator
 * object per row.)
 */
final class GroupedCovariance extends GroupedAccumulator {
  private final AggFunc func;
  private long[] n = new long[0];
  private double[] kx = new double[0];
  private double[] ky = new double[0];
  private double[] meanX = new double[0];
  private double[] meanY = new double[0];
  private double[] sxx = new double[0];
  private double[] syy = new double[0];
  private double[] sxy = new double[0];
  private ColumnValues y;
  private ColumnValues x;
  private boolean nulls;

  GroupedCovariance(AggFunc func) {
    this.func = func;
  }

  @Override
  int bytesPerGroup() {
    return 64;
  }

  @Override
  void grow(int count) {
    if (count <= n.length) return;
    int cap = capacity(n.length, count);
    n = Arrays.copyOf(n, cap);
    kx = Arrays.copyOf(kx, cap);
    ky = Arrays.copyOf(ky, cap);
    meanX = Arrays.copyOf(meanX, cap);
    meanY = Arrays.copyOf(meanY, cap);
    sxx = Arrays.copyOf(sxx, cap);
    syy = Arrays.copyOf(syy, cap);
    sxy = Arrays.copyOf(sxy, cap);
  }

  @Override
  void batch(ColumnValues v, int rows) {
    ColumnValues[] parts = ((TupleValues) v).parts();
    y = parts[0];
    x = parts[1];
    nulls = BatchValues.anyNull(y) || BatchValues.anyNull(x);
    yValues = BatchValues.doubles(y, rows, yValues); // the batch before's arrays, filled again
    xValues = BatchValues.doubles(x, rows, xValues);
  }

  /** The batch's values, read at once (NULL rows: any value, skipped). */
  private double[] yValues;
  private double[] xValues;

  @Override
  void update(int[] ids, int lo, int hi) {
    double[] ys = yValues;
    double[] xs = xValues;
    for (int i = lo; i < hi; i++) {
      if (nulls && (y.isNull(i) || x.isNull(i))) continue;
      add(ids[i], ys[i], xs[i]);
    }
  }

  /** Adds the pair (y, x) to group {@code g}. */
  void add(int g, double yv, double xv) {
    long count = ++n[g];
    if (count == 1) {
      kx[g] = xv;
      ky[g] = yv;
    }
    double xs = xv - kx[g];
    double ys = yv - ky[g];
    double dx = xs - meanX[g];
    double mx = meanX[g] + dx / count;
    meanX[g] = mx;
    double dy = ys - meanY[g];
    double my = meanY[g] + dy / count;
    meanY[g] = my;
    double ey = ys - my;
    sxx[g] += dx * (xs - mx);
    syy[g] += dy * ey;
    sxy[g] += dx * ey;
  }

  @Override
  Object result(int g) {
    long count = n[g];
    if (func == AggFunc.REGR_COUNT) return count;
    if (count == 0) return null;
    return switch (func) {
      case COVAR_POP -> sxy[g] / count;
      case COVAR_SAMP -> count < 2 ? null : sxy[g] / (count - 1);
      case CORR -> corr(g);
      case REGR_SLOPE -> sxy[g] / sxx[g];
      case REGR_INTERCEPT -> {
        double slope = sxy[g] / sxx[g];
        yield Double.isNaN(slope) ? null : (ky[g] + meanY[g]) - slope * (kx[g] + meanX[g]);
      }
      case REGR_R2 -> {
        if (sxx[g] == 0) yield null;
        if (syy[g] == 0) yield 1.0;
        double r = corr(g);
        yield r * r;
      }
      case REGR_AVGX -> kx[g] + meanX[g];
      case REGR_AVGY -> ky[g] + meanY[g];
      case REGR_SXX -> sxx[g];
      case REGR_SYY -> syy[g];
      case REGR_SXY -> sxy[g];
      default -> throw new IllegalStateException(func.toString());
    };
  }

  /** Pearson's r: Sxy / sqrt(Sxx Syy), NaN where a variance is 0. */
  private double corr(int g) {
    double d = Math.sqrt(sxx[g]) * Math.sqrt(syy[g]);
    return d == 0 ? Double.NaN : sxy[g] / d;
  }
}
