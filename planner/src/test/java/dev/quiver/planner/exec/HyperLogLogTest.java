package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** approx_count_distinct's sketch: exact in its first phase, then within a few standard errors (0.8%) of the count (3%: five of them). */
class HyperLogLogTest {
  @Test
  void countsExactlyUpToTheExactLimitWhateverTheDuplicates() {
    HyperLogLog h = new HyperLogLog();
    assertThat(h.estimate()).isZero();
    for (int round = 0; round < 3; round++) {
      for (long v = 0; v < HyperLogLog.EXACT_LIMIT; v++) h.add(HyperLogLog.mix(v));
    }
    assertThat(h.estimate()).isEqualTo(HyperLogLog.EXACT_LIMIT);
    h.add(0); // the hash 0 is a value too
    assertThat(h.estimate()).isEqualTo(HyperLogLog.EXACT_LIMIT + 1L);
  }

  @Test
  void estimatesWithinThreePercentFromAThousandToAMillion() {
    Random r = new Random(6);
    for (int n : new int[] {1_000, 5_000, 20_000, 100_000, 1_000_000}) {
      for (int trial = 0; trial < 3; trial++) {
        HyperLogLog longs = new HyperLogLog();
        HyperLogLog strings = new HyperLogLog();
        long base = r.nextLong();
        for (int i = 0; i < n; i++) {
          longs.add(HyperLogLog.mix(base + i)); // consecutive values: the hash must spread them
          if (n <= 100_000) strings.add(HyperLogLog.hash(("row " + (base + i)).getBytes(StandardCharsets.UTF_8)));
          if (i % 3 == 0) longs.add(HyperLogLog.mix(base + i / 2)); // duplicates change nothing
        }
        assertThat((double) longs.estimate()).as("n=" + n).isBetween(0.97 * n, 1.03 * n);
        if (n <= 100_000) assertThat((double) strings.estimate()).as("strings n=" + n).isBetween(0.97 * n, 1.03 * n);
      }
    }
  }

  @Test
  void bytesHashByContentAndLength() {
    assertThat(HyperLogLog.hash(new byte[0])).isNotEqualTo(HyperLogLog.hash(new byte[1]));
    assertThat(HyperLogLog.hash("abcdefghi".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(HyperLogLog.hash("abcdefghi".getBytes(StandardCharsets.UTF_8)))
        .isNotEqualTo(HyperLogLog.hash("abcdefghj".getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Sketches of parts of the values, serialized and merged in any order, estimate exactly what one sketch of all
   * of them does: parts in the exact phase, in the registers, and both; the hash 0 among them.
   */
  @Test
  void mergedStatesAnswerAsOneSketch() {
    Random r = new Random(39);
    for (int trial = 0; trial < 40; trial++) {
      int n = trial < 10 ? 1 + r.nextInt(700) : 1 + r.nextInt(40_000);
      int domain = 1 + r.nextInt(2 * n);
      HyperLogLog whole = new HyperLogLog();
      int partCount = 1 + r.nextInt(6);
      HyperLogLog[] parts = new HyperLogLog[partCount];
      for (int p = 0; p < partCount; p++) parts[p] = new HyperLogLog();
      for (int i = 0; i < n; i++) {
        long h = r.nextInt(20) == 0 ? 0 : HyperLogLog.mix(r.nextInt(domain));
        whole.add(h);
        parts[r.nextInt(partCount)].add(h);
      }
      HyperLogLog merged = new HyperLogLog();
      for (int p = partCount - 1; p >= 0; p--) merged.merge(parts[p].serialize());
      assertThat(merged.estimate()).as("trial %d", trial).isEqualTo(whole.estimate());
      assertThat(merged.serialize()[0]).isEqualTo(whole.serialize()[0]); // the same phase
    }
  }
}
