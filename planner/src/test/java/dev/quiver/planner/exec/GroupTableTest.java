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
        // 100,000 with large batches: dense enough for the direct table past 65,536 values (LongKeys.DENSE_MAX)
        int width = round % 5 == 0 ? 50 : round % 5 == 1 ? 60_000 : round % 5 == 2 ? 200_000 : round % 5 == 3 ? 1 << 30
            : 100_000;
        GroupTable table = new GroupTable(List.of(SqlTypes.BIGINT));
        Map<Long, Integer> firsts = new HashMap<>();
        java.util.Set<Integer> used = new java.util.HashSet<>();
        for (int batch = 0; batch < 6; batch++) {
          int n = 1 + r.nextInt(width == 100_000 ? 40_000 : 3000);
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
                assertThat(used.add(ids[i])).as("key %d, round %d", k, round).isTrue();
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

  /**
   * Several key columns: packed into one long while their ids fit (widening a column's bits as its distinct values
   * grow, mid-batch), then on levels once six wide columns no longer fit in 63 bits; every row's group checked
   * against a map of first appearances of the key tuple, and each group's keys read back.
   */
  @Test
  void severalColumnsGetTheIdsOfTheirFirstAppearanceWhileWideningAndAfterFallingBack() {
    Random r = new Random(5);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int shape = 0; shape < 6; shape++) {
        int columns = new int[] {2, 3, 6}[shape % 3];
        List<org.apache.arrow.vector.types.pojo.ArrowType> types = java.util.Collections.nCopies(columns, SqlTypes.BIGINT);
        GroupTable table = new GroupTable(types);
        if (shape >= 3) { // sized in advance, as a partial aggregation's later tasks are
          int[] distinct = new int[columns];
          java.util.Arrays.fill(distinct, 20_000);
          table.expect(40_000, distinct);
        }
        assertThat(table.packs()).isTrue();
        Map<List<Long>, Integer> firsts = new HashMap<>();
        boolean packedAfterGrowth = false;
        for (int batch = 0; batch < 12; batch++) {
          int n = 4000;
          // the domains grow batch by batch: column c draws from 3 + batch^(c+2) values
          List<BigIntVector> vs = new java.util.ArrayList<>();
          List<dev.quiver.planner.kernel.ColumnValues> values = new java.util.ArrayList<>();
          try {
            for (int c = 0; c < columns; c++) {
              BigIntVector v = new BigIntVector("k" + c, allocator);
              vs.add(v);
              v.allocateNew(n);
              long domain = 3 + (long) Math.min(1 << 22, Math.pow(batch, c + 2));
              for (int i = 0; i < n; i++) {
                if (r.nextInt(100) == 0) v.setNull(i);
                else v.set(i, (long) (r.nextDouble() * domain) * 7 - 11);
              }
              v.setValueCount(n);
              values.add(new VectorValues(v, false));
            }
            table.batch(values, n);
            int[] ids = new int[n];
            for (int lo = 0; lo < n; lo += 1000) table.ids(lo, lo + 1000, ids);
            for (int i = 0; i < n; i++) {
              List<Long> key = new java.util.ArrayList<>();
              for (BigIntVector v : vs) key.add(v.isNull(i) ? null : v.get(i));
              Integer want = firsts.putIfAbsent(key, firsts.size());
              assertThat(ids[i]).as("row %d of batch %d, %d columns", i, batch, columns)
                  .isEqualTo(want == null ? firsts.size() - 1 : want);
              for (int c = 0; c < columns; c++) assertThat(table.key(c, ids[i])).isEqualTo(key.get(c));
            }
            assertThat(table.groups()).isEqualTo(firsts.size());
            if (batch == 4) packedAfterGrowth = table.packs();
          } finally {
            vs.forEach(BigIntVector::close);
          }
        }
        assertThat(packedAfterGrowth).as("still packed after widening, %d columns", columns).isTrue();
        if (columns == 6) assertThat(table.packs()).as("six wide columns no longer fit in 63 bits").isFalse();
      }
    }
  }

  /**
   * Two long keys with the same length, the same first 16 bytes and the same 32-bit hash (found by a birthday
   * search) stay two groups: the table's slot holds only the first 16 bytes, so the rest must be compared.
   */
  @Test
  void longKeysWhoseHashAndPrefixCollideStayApart() {
    Map<Integer, String> byHash = new HashMap<>();
    String a = null;
    String b = null;
    for (int n = 0; a == null; n++) {
      String key = "same-sixteen-pfx" + String.format("%08d", n);
      byte[] bytes = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      String other = byHash.putIfAbsent(GroupTable.hashBytes(bytes, 0, bytes.length), key);
      if (other != null) {
        a = other;
        b = key;
      }
    }
    try (BufferAllocator allocator = new RootAllocator();
        org.apache.arrow.vector.VarCharVector v = new org.apache.arrow.vector.VarCharVector("k", allocator)) {
      v.allocateNew(3);
      v.setSafe(0, a.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      v.setSafe(1, b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      v.setSafe(2, a.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      v.setValueCount(3);
      GroupTable table = new GroupTable(List.of(SqlTypes.VARCHAR));
      table.batch(List.of(new VectorValues(v, false)), 3);
      int[] ids = new int[3];
      table.ids(0, 3, ids);
      assertThat(ids[1]).as(a + " / " + b).isNotEqualTo(ids[0]);
      assertThat(ids[2]).isEqualTo(ids[0]);
      assertThat(table.key(0, ids[1])).isEqualTo(b);
    }
  }

  /**
   * String and binary keys: ids by first appearance and each group's key read back, over keys of every length from
   * empty to 40 bytes, multi-byte UTF-8, NULLs, and H2O's structured keys ("id" and ten digits); each
   * table also once sized in advance ({@link GroupTable#expect}, as a partial aggregation's later tasks are).
   */
  @Test
  void stringAndBinaryKeysGetTheIdsOfTheirFirstAppearance() {
    Random r = new Random(5);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int variant = 0; variant < 4; variant++) {
        boolean binary = (variant & 1) == 1;
        GroupTable table = new GroupTable(List.of(binary ? SqlTypes.VARBINARY : SqlTypes.VARCHAR));
        if (variant >= 2) table.expect(30_000, new int[] {30_000});
        Map<String, Integer> firsts = new HashMap<>();
        for (int batch = 0; batch < 8; batch++) {
          int n = 1 + r.nextInt(5000);
          String[] keys = new String[n];
          try (org.apache.arrow.vector.BaseVariableWidthVector v = binary
              ? new org.apache.arrow.vector.VarBinaryVector("k", allocator)
              : new org.apache.arrow.vector.VarCharVector("k", allocator)) {
            v.allocateNew(n);
            for (int i = 0; i < n; i++) {
              int shape = r.nextInt(10);
              keys[i] = shape == 0 && batch > 2 ? null
                  : shape < 4 ? String.format("id%010d", r.nextInt(20_000))
                  : shape < 6 ? "é€" + "x".repeat(r.nextInt(40)) + r.nextInt(50)
                  : "ab".substring(0, r.nextInt(3)) + (shape < 8 ? "" : Integer.toString(r.nextInt(300)));
              if (keys[i] == null) v.setNull(i);
              else v.setSafe(i, keys[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            v.setValueCount(n);
            table.batch(List.of(new VectorValues(v, false)), n);
            int[] ids = new int[n];
            table.ids(0, n, ids);
            for (int i = 0; i < n; i++) {
              Object key = table.key(0, ids[i]);
              if (keys[i] == null) {
                assertThat(key).isNull();
                continue;
              }
              assertThat(binary ? new String((byte[]) key, java.nio.charset.StandardCharsets.UTF_8) : key)
                  .isEqualTo(keys[i]);
              Integer want = firsts.putIfAbsent(keys[i], ids[i]);
              if (want != null) assertThat(ids[i]).as(keys[i]).isEqualTo(want);
            }
          }
        }
        assertThat(table.groups()).isEqualTo(firsts.size() + 1); // and NULL's
      }
    }
  }

  /**
   * The key hash spreads structured keys over the table's slots: H2O's 100,000 keys "id0000000001" … probe, at the
   * table's load (under a half), about as few slots as random keys would (a polynomial hash took 2.8 extra probes each).
   */
  @Test
  void structuredKeysSpreadOverTheSlots() {
    int slots = 1 << 18;
    boolean[] used = new boolean[slots];
    long probes = 0;
    int keys = 100_000;
    for (int k = 1; k <= keys; k++) {
      byte[] b = String.format("id%010d", k).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      int p = GroupTable.hashBytes(b, 0, b.length) & (slots - 1);
      while (used[p]) {
        p = (p + 1) & (slots - 1);
        probes++;
      }
      used[p] = true;
    }
    // linear probing at load 0.38 with a uniform hash: about 0.3 extra probes per insertion
    assertThat((double) probes / keys).isLessThan(1.0);
  }
}
