package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LongSortTest {
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 5, 63, 64, 1000, 100_000})
  void sortsLikeArraysSortAndKeepsEqualKeysInOrder(int n) {
    Random random = new Random(n);
    long[] keys = new long[n];
    long[] values = new long[n];
    for (int i = 0; i < n; i++) {
      // small, negative, extreme and repeated keys
      keys[i] = switch (random.nextInt(4)) {
        case 0 -> random.nextInt(10) - 5;
        case 1 -> random.nextLong();
        case 2 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
        default -> random.nextInt(1 << 20) << 16;
      };
      values[i] = i;
    }
    long[] expected = keys.clone();
    Arrays.sort(expected);
    LongSort.byKey(keys, values);
    assertThat(keys).isEqualTo(expected);
    for (int i = 1; i < n; i++) {
      if (keys[i] == keys[i - 1]) assertThat(values[i]).isGreaterThan(values[i - 1]);
    }
    for (int i = 0; i < n; i++) assertThat(keys[i]).isEqualTo(expected[i]);
  }

  @Test
  void firstAtLeastIsTheLowerBound() {
    long[] sorted = {-3, 1, 1, 1, 4, 9};
    assertThat(LongSort.firstAtLeast(sorted, Long.MIN_VALUE)).isZero();
    assertThat(LongSort.firstAtLeast(sorted, 1)).isEqualTo(1);
    assertThat(LongSort.firstAtLeast(sorted, 2)).isEqualTo(4);
    assertThat(LongSort.firstAtLeast(sorted, 10)).isEqualTo(6);
  }

  @Test
  void sortableDoublesOrderAsTheComparisonKernelsDo() {
    double[] ascending = {Double.NEGATIVE_INFINITY, -1e300, -1.5, -Double.MIN_VALUE, 0.0, Double.MIN_VALUE, 2.5,
        1e300, Double.POSITIVE_INFINITY, Double.NaN};
    for (int i = 1; i < ascending.length; i++) {
      assertThat(RangeJoinBounds.sortable(ascending[i - 1])).isLessThan(RangeJoinBounds.sortable(ascending[i]));
    }
    assertThat(RangeJoinBounds.sortable(-0.0)).isEqualTo(RangeJoinBounds.sortable(0.0));
    assertThat(RangeJoinBounds.sortable(Double.longBitsToDouble(0x7FF0000000000001L)))
        .isEqualTo(RangeJoinBounds.sortable(Double.NaN));
  }
}
