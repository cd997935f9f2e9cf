package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link CompensatedSum} against the exact sum (BigDecimal) rounded once: over values of every magnitude and sign,
 * summed in many orders and split into many partial states merged in any order, the answer is always that one
 * double. A plain running sum of the same values is checked to depend on the order (else the test proves nothing).
 */
class CompensatedSumTest {
  private static double exact(List<Double> xs) {
    BigDecimal s = BigDecimal.ZERO;
    for (double x : xs) s = s.add(new BigDecimal(x));
    return Double.parseDouble(s.toString()); // correctly rounded
  }

  private static List<Double> values(Random r, int n) {
    List<Double> xs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double m = r.nextDouble() * Math.pow(10, r.nextInt(24) - 8);
      xs.add(r.nextInt(3) == 0 ? -m : m);
    }
    return xs;
  }

  private static double compensated(List<Double> xs) {
    double[] s = new double[2];
    for (double x : xs) CompensatedSum.add(s, 0, x);
    return CompensatedSum.value(s[0], s[1]);
  }

  /** {@code xs} cut at random places into parts, each summed apart, the parts' states merged in a random order. */
  private static double split(List<Double> xs, Random r) {
    List<double[]> parts = new ArrayList<>();
    int at = 0;
    while (at < xs.size()) {
      int len = 1 + r.nextInt(Math.max(1, xs.size() / 5));
      double[] s = new double[2];
      for (int i = at; i < Math.min(xs.size(), at + len); i++) CompensatedSum.add(s, 0, xs.get(i));
      parts.add(s);
      at += len;
    }
    Collections.shuffle(parts, r);
    double[] total = new double[2];
    for (double[] p : parts) CompensatedSum.merge(total, 0, p[0], p[1]);
    return CompensatedSum.value(total[0], total[1]);
  }

  @Test
  void theAnswerIsTheExactSumRoundedOnceWhateverTheOrderAndTheSplit() {
    Random r = new Random(27);
    int plainDiffered = 0;
    for (int trial = 0; trial < 200; trial++) {
      List<Double> xs = values(r, 1 + r.nextInt(3_000));
      double expected = exact(xs);
      java.util.Set<Double> plain = new java.util.HashSet<>();
      for (int order = 0; order < 5; order++) {
        Collections.shuffle(xs, r);
        assertThat(compensated(xs)).as("trial %d order %d", trial, order).isEqualTo(expected);
        assertThat(split(xs, r)).as("trial %d split %d", trial, order).isEqualTo(expected);
        double p = 0;
        for (double x : xs) p += x;
        plain.add(p);
      }
      if (plain.size() > 1) plainDiffered++;
    }
    assertThat(plainDiffered).as("trials where a plain sum depended on the order").isGreaterThan(100);
  }

  @Test
  void cancellationThatLosesEveryBitOfAPlainSumIsExact() {
    // a plain sum gives 0, 0.5, 1, 1.5 or more depending on the order
    List<Double> xs = new ArrayList<>(List.of(1e16, 1.0, -1e16, 0.5, 3e15, -3e15));
    Random r = new Random(1);
    for (int order = 0; order < 50; order++) {
      Collections.shuffle(xs, r);
      assertThat(compensated(xs)).isEqualTo(exact(xs)).isEqualTo(1.5);
    }
  }

  @Test
  void infinitiesAndNanAreThoseOfAPlainSum() {
    assertThat(compensated(List.of(1.0, Double.POSITIVE_INFINITY, 2.0))).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(compensated(List.of(Double.NEGATIVE_INFINITY, 1.0))).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(compensated(List.of(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY))).isNaN();
    assertThat(compensated(List.of(1.0, Double.NaN, 2.0))).isNaN();
    assertThat(compensated(List.of(Double.MAX_VALUE, Double.MAX_VALUE))).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(compensated(List.of(-0.0))).isEqualTo(0.0);
    assertThat(compensated(List.of())).isEqualTo(0.0);
  }
}
