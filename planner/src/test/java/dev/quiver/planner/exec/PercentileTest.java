package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.kernel.Kernels;
import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The discrete percentile's position and the order strings sort in. */
class PercentileTest {
  @Test
  void theDiscretePositionIsTheFirstWhoseCumulativeShareReachesTheFraction() {
    for (int n = 1; n <= 60; n++) {
      for (int k = 0; k <= 100; k++) {
        BigDecimal f = BigDecimal.valueOf(k, 2);
        int expected = 0;
        while (BigDecimal.valueOf(expected + 1).compareTo(f.multiply(BigDecimal.valueOf(n))) < 0) expected++;
        assertThat(Percentile.index(n, f)).as("n=%d f=%s", n, f).isEqualTo(expected);
      }
    }
    // a DOUBLE fraction: DuckDB's double arithmetic, n - floor(n - n * f) (25 * 0.28 is 7.000000000000001)
    assertThat(Percentile.index(25, 0.28)).isEqualTo(6);
    assertThat(Percentile.index(25, (double) 0.28f)).isEqualTo(7);
  }

  @Test
  void stringsSortAsTheirUtf8Bytes() {
    Random r = new Random(3);
    String[] pieces = {"a", "b", "", "\u00e9", "\uffff", "\ue000", "\ud83d\ude00", "\ud800\udc00", "z"};
    for (int i = 0; i < 20_000; i++) {
      String a = pieces[r.nextInt(pieces.length)] + pieces[r.nextInt(pieces.length)];
      String b = pieces[r.nextInt(pieces.length)] + pieces[r.nextInt(pieces.length)];
      assertThat(Integer.signum(Percentile.utf8Order(a, b)))
          .as("%s vs %s", a, b).isEqualTo(Integer.signum(Kernels.compareObjects(Kernels.Family.BYTES, a, b)));
    }
  }
}
