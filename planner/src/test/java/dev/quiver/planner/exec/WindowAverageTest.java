package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A sliding average of integers divides as doubles where sum and count fit 53 bits: the same double as the exact
 * BigDecimal division (34 digits, then rounded), checked over random and extreme sums and counts.
 */
class WindowAverageTest {
  private static double exact(long sum, long n) {
    return BigDecimal.valueOf(sum).divide(BigDecimal.valueOf(n), MathContext.DECIMAL128).doubleValue();
  }

  @Test
  void theQuotientOfDoublesIsTheExactOneRounded() {
    Random r = new Random(53);
    long[] edges = {0, 1, -1, 3, 7, (1L << 53) - 1, 1L << 53, -(1L << 53), (1L << 53) + 1, Long.MAX_VALUE, Long.MIN_VALUE};
    for (long sum : edges) {
      for (long n : new long[] {1, 2, 3, 7, 10, 1_000_003, (1L << 53) - 1, 1L << 53, (1L << 53) + 1}) {
        assertThat(WindowBucket.average(sum, n)).as("%d / %d", sum, n).isEqualTo(exact(sum, n));
      }
    }
    for (int i = 0; i < 200_000; i++) {
      int bits = 1 + r.nextInt(63);
      long sum = r.nextLong() >> (64 - bits);
      long n = 1 + (r.nextLong() >>> (1 + r.nextInt(63)));
      assertThat(WindowBucket.average(sum, n)).as("%d / %d", sum, n).isEqualTo(exact(sum, n));
    }
  }
}
