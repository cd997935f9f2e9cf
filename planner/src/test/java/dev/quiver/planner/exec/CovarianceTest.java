package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The two-argument statistics are stable: over data far from 0 (values around 1e9 that differ in their last
 * digits, where sums of squares cancel catastrophically) they match an exact two-pass computation, and the order of
 * the rows changes them only in their last bits.
 */
class CovarianceTest {
  static final List<AggFunc> FUNCS = List.of(AggFunc.CORR, AggFunc.COVAR_POP, AggFunc.COVAR_SAMP, AggFunc.REGR_SLOPE,
      AggFunc.REGR_INTERCEPT, AggFunc.REGR_R2, AggFunc.REGR_AVGX, AggFunc.REGR_AVGY, AggFunc.REGR_SXX, AggFunc.REGR_SYY,
      AggFunc.REGR_SXY);

  static Map<AggFunc, Double> compute(List<double[]> pairs) {
    Map<AggFunc, Double> out = new EnumMap<>(AggFunc.class);
    for (AggFunc f : FUNCS) {
      Covariance c = new Covariance(f);
      for (double[] p : pairs) c.add(p[0], p[1]);
      out.put(f, (Double) c.result());
    }
    return out;
  }

  /** The same statistics by exact sums of deviations from the exact means. */
  static Map<AggFunc, Double> exact(List<double[]> pairs) {
    MathContext mc = MathContext.DECIMAL128;
    BigDecimal n = BigDecimal.valueOf(pairs.size());
    BigDecimal sy = BigDecimal.ZERO;
    BigDecimal sx = BigDecimal.ZERO;
    for (double[] p : pairs) {
      sy = sy.add(new BigDecimal(p[0]));
      sx = sx.add(new BigDecimal(p[1]));
    }
    BigDecimal my = sy.divide(n, mc);
    BigDecimal mx = sx.divide(n, mc);
    BigDecimal sxx = BigDecimal.ZERO;
    BigDecimal syy = BigDecimal.ZERO;
    BigDecimal sxy = BigDecimal.ZERO;
    for (double[] p : pairs) {
      BigDecimal dy = new BigDecimal(p[0]).subtract(my);
      BigDecimal dx = new BigDecimal(p[1]).subtract(mx);
      sxx = sxx.add(dx.multiply(dx));
      syy = syy.add(dy.multiply(dy));
      sxy = sxy.add(dx.multiply(dy));
    }
    double corr = sxy.doubleValue() / Math.sqrt(sxx.doubleValue()) / Math.sqrt(syy.doubleValue());
    BigDecimal slope = sxy.divide(sxx, mc);
    Map<AggFunc, Double> out = new EnumMap<>(AggFunc.class);
    out.put(AggFunc.CORR, corr);
    out.put(AggFunc.COVAR_POP, sxy.divide(n, mc).doubleValue());
    out.put(AggFunc.COVAR_SAMP, sxy.divide(n.subtract(BigDecimal.ONE), mc).doubleValue());
    out.put(AggFunc.REGR_SLOPE, slope.doubleValue());
    out.put(AggFunc.REGR_INTERCEPT, my.subtract(slope.multiply(mx)).doubleValue());
    out.put(AggFunc.REGR_R2, corr * corr);
    out.put(AggFunc.REGR_AVGX, mx.doubleValue());
    out.put(AggFunc.REGR_AVGY, my.doubleValue());
    out.put(AggFunc.REGR_SXX, sxx.doubleValue());
    out.put(AggFunc.REGR_SYY, syy.doubleValue());
    out.put(AggFunc.REGR_SXY, sxy.doubleValue());
    return out;
  }

  @Test
  void farFromZeroTheyMatchAnExactComputationAndBarelyDependOnRowOrder() {
    Random r = new Random(99);
    List<double[]> pairs = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      double x = 1e9 + r.nextInt(1000) + r.nextGaussian();
      pairs.add(new double[] {3 * x - 2e9 + 50 * r.nextGaussian(), x});
    }
    Map<AggFunc, Double> exact = exact(pairs);
    Map<AggFunc, Double> first = compute(pairs);
    for (AggFunc f : FUNCS) {
      double e = exact.get(f);
      // the intercept is a difference of numbers near 1e9 (relative to them it is exact to about 1e-16)
      double scale = f == AggFunc.REGR_INTERCEPT ? 3e9 : Math.abs(e);
      assertThat(first.get(f)).as(f.toString()).isCloseTo(e, within(1e-11 * scale));
    }
    for (int shuffle = 0; shuffle < 5; shuffle++) {
      List<double[]> other = new ArrayList<>(pairs);
      Collections.shuffle(other, r);
      Map<AggFunc, Double> again = compute(other);
      for (AggFunc f : FUNCS) {
        double scale = f == AggFunc.REGR_INTERCEPT ? 3e9 : Math.abs(first.get(f));
        assertThat(again.get(f)).as(f + " shuffled").isCloseTo(first.get(f), within(1e-12 * scale));
      }
    }
  }

  @Test
  void countsOnlyCompletePairsAndAnswersNullOrZeroOverNone() {
    assertThat(new Covariance(AggFunc.REGR_COUNT).result()).isEqualTo(0L);
    for (AggFunc f : FUNCS) assertThat(new Covariance(f).result()).as(f.toString()).isNull();
    Covariance one = new Covariance(AggFunc.COVAR_SAMP);
    one.add(1, 2);
    assertThat(one.result()).isNull(); // needs two rows
    Covariance slope = new Covariance(AggFunc.REGR_SLOPE);
    slope.add(1, 2);
    slope.add(5, 2);
    assertThat((Double) slope.result()).isNaN(); // x constant: 0 / 0, as DuckDB
  }
}
