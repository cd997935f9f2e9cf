package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Select} against {@link Arrays#sort}: for arrays of every shape (random, few distinct values, sorted,
 * reversed, constant, organ-pipe; with NaN, -0.0 and 0.0), every position k, alone and with k + 1, holds to the bit
 * what the sorted copy holds there.
 */
class SelectTest {
  private static final double[] SPECIAL = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
      1.5, -1.5, Double.MIN_VALUE, -Double.MIN_VALUE};

  private static double[] shape(Random r, int n, int kind) {
    double[] a = new double[n];
    for (int i = 0; i < n; i++) {
      a[i] = switch (kind) {
        case 0 -> r.nextGaussian();
        case 1 -> r.nextInt(4) - 1.0;
        case 2 -> i;
        case 3 -> n - i;
        case 4 -> 7.0;
        case 5 -> Math.min(i, n - i);
        default -> SPECIAL[r.nextInt(SPECIAL.length)];
      };
      if (kind < 6 && r.nextInt(30) == 0) a[i] = SPECIAL[r.nextInt(SPECIAL.length)];
    }
    return a;
  }

  @Test
  void doublesAtEveryPositionAreTheSortsToTheBit() {
    Random r = new Random(39);
    for (int round = 0; round < 300; round++) {
      int n = 1 + r.nextInt(round < 200 ? 60 : 3000);
      double[] a = shape(r, n, round % 7);
      double[] sorted = a.clone();
      Arrays.sort(sorted);
      int step = Math.max(1, n / 40);
      for (int k = 0; k < n; k += step) {
        for (boolean both : new boolean[] {false, true}) {
          double[] b = a.clone();
          int m = Select.nanLast(b, n);
          assertThat(m).isEqualTo((int) Arrays.stream(a).filter(x -> !Double.isNaN(x)).count());
          if (k >= m) continue; // NaN there, as in the sort
          Select.select(b, m, k, both && k + 1 < m);
          assertThat(Double.doubleToRawLongBits(b[k])).as("round %d k %d", round, k)
              .isEqualTo(Double.doubleToRawLongBits(sorted[k]));
          if (both && k + 1 < m) {
            assertThat(Double.doubleToRawLongBits(b[k + 1])).as("round %d k+1 %d", round, k)
                .isEqualTo(Double.doubleToRawLongBits(sorted[k + 1]));
          }
          double[] kept = b.clone();
          Arrays.sort(kept);
          assertThat(kept).as("a permutation").isEqualTo(sorted);
        }
      }
    }
  }

  @Test
  void longsAtEveryPositionAreTheSorts() {
    Random r = new Random(40);
    for (int round = 0; round < 300; round++) {
      int n = 1 + r.nextInt(round < 200 ? 60 : 3000);
      long[] a = new long[n];
      for (int i = 0; i < n; i++) {
        a[i] = switch (round % 5) {
          case 0 -> r.nextLong();
          case 1 -> r.nextInt(3);
          case 2 -> i;
          case 3 -> -i;
          default -> round % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        };
      }
      long[] sorted = a.clone();
      Arrays.sort(sorted);
      for (int k = 0; k < n; k += Math.max(1, n / 40)) {
        for (boolean both : new boolean[] {false, true}) {
          long[] b = a.clone();
          Select.select(b, n, k, both && k + 1 < n);
          assertThat(b[k]).isEqualTo(sorted[k]);
          if (both && k + 1 < n) assertThat(b[k + 1]).isEqualTo(sorted[k + 1]);
        }
      }
    }
  }
}
