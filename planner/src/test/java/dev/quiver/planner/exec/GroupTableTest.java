package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.kernel.VectorValues;
import dev.quiver.planner.types.SqlTypes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;

/**
 * Integer group keys: ids by first appearance, whatever the key sequence does to the direct table's window (grows
 * down, grows up, jumps past its limit and back, extreme values, NULLs), checked against a map of first appearances.
 */
class GroupTableTest {
  @Test
  void integerKeysGetTheIdsOfTheirFirstAppearance() {
    Random r = new Random(3);
    long[][] shapes = {
        {0, 1, 2, -1, -5000, 70000, 3, -70000, Long.MAX_VALUE, Long.MIN_VALUE, 65535, -65536, 1 << 20,
            (1L << 62) - 3, Long.MIN_VALUE + 3, Long.MAX_VALUE - 600, -(1L << 62) + 7},
    };
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int round = 0; round < 40; round++) {
        long center = round % 3 == 0 ? 0 : r.nextLong() >> 4;
        int width = round % 4 == 0 ? 50 : round % 4 == 1 ? 60_000 : round % 4 == 2 ? 200_000 : 1 << 30;
        GroupTable table = new GroupTable(List.of(SqlTypes.BIGINT));
        Map<Long, Integer> firsts = new HashMap<>();
        for (int batch = 0; batch < 6; batch++) {
          int n = 1 + r.nextInt(3000);
          try (BigIntVector v = new BigIntVector("k", allocator)) {
            v.allocateNew(n);
            for (int i = 0; i < n; i++) {
              if (batch == 5 && r.nextInt(50) == 0) {
                v.setNull(i);
              } else if (round == 0 && i < shapes[0].length) {
                v.set(i, shapes[0][i]);
              } else {
                // drifting down in some batches, up in others
                long drift = (batch % 2 == 0 ? -1 : 1) * (long) batch * width / 4;
                v.set(i, center + drift + r.nextInt(width) - width / 2);
              }
            }
            v.setValueCount(n);
            table.batch(List.of(new VectorValues(v, false)), n);
            int[] ids = new int[n];
            table.ids(0, n, ids);
            for (int i = 0; i < n; i++) {
              if (v.isNull(i)) {
                assertThat(table.key(0, ids[i])).isNull();
                continue;
              }
              long k = v.get(i);
              Integer want = firsts.get(k);
              if (want == null) {
                assertThat(ids[i]).as("a new key gets a new id").isLessThan(table.groups());
                assertThat(firsts.containsValue(ids[i])).as("key %d, round %d", k, round).isFalse();
                firsts.put(k, ids[i]);
              } else {
                assertThat(ids[i]).as("key %d, round %d", k, round).isEqualTo(want);
              }
              assertThat(table.key(0, ids[i])).isEqualTo(k);
            }
          }
        }
      }
    }
  }
}
