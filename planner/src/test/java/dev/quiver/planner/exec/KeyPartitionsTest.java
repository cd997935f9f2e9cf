package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * KeyPartitions sends every row of a group to one partition, whichever batch it is in and wherever in the batch,
 * with keys equal as the group table compares them (-0.0 and 0.0, NaNs, strings by bytes, NULL) together, and spreads
 * distinct keys evenly.
 */
class KeyPartitionsTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final Random r = new Random(40);

  @AfterEach
  void close() {
    allocator.close();
  }

  /** A batch of (k BIGINT, d DOUBLE, s VARCHAR) rows; a null element is a NULL value. */
  private VectorSchemaRoot batch(List<Object[]> rows) {
    BigIntVector k = new BigIntVector("k", allocator);
    Float8Vector d = new Float8Vector("d", allocator);
    VarCharVector s = new VarCharVector("s", allocator);
    k.allocateNew(rows.size());
    d.allocateNew(rows.size());
    s.allocateNew();
    for (int i = 0; i < rows.size(); i++) {
      Object[] row = rows.get(i);
      if (row[0] == null) k.setNull(i); else k.set(i, (Long) row[0]);
      if (row[1] == null) d.setNull(i); else d.set(i, (Double) row[1]);
      if (row[2] == null) s.setNull(i); else s.setSafe(i, ((String) row[2]).getBytes(StandardCharsets.UTF_8));
    }
    List<FieldVector> vs = List.of(k, d, s);
    for (FieldVector v : vs) v.setValueCount(rows.size());
    return new VectorSchemaRoot(vs);
  }

  private static String text(int len, Random r) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < len; i++) b.append((char) ('a' + r.nextInt(3)));
    return b.toString();
  }

  private Object[] randomRow(Random r) {
    double[] doubles = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L), 1.5, -2.25};
    return new Object[] {r.nextInt(8) == 0 ? null : (long) r.nextInt(40) - 20,
        r.nextInt(8) == 0 ? null : doubles[r.nextInt(doubles.length)],
        r.nextInt(8) == 0 ? null : text(r.nextInt(20), r)};
  }

  /** The key as the group table compares it. */
  private static List<Object> canonical(Object[] row) {
    Double d = (Double) row[1];
    Object dk = d == null ? null : d == 0.0 ? (Object) 0.0 : Double.isNaN(d) ? (Object) "NaN" : d;
    return java.util.Arrays.asList(row[0], dk, row[2]);
  }

  @Test
  void equalKeysLandInOnePartitionAcrossBatches() {
    for (int parts : new int[] {2, 3, 8}) {
      Map<List<Object>, Integer> seen = new HashMap<>();
      for (int b = 0; b < 20; b++) {
        List<Object[]> rows = new ArrayList<>();
        int n = r.nextInt(300);
        for (int i = 0; i < n; i++) rows.add(randomRow(r));
        try (VectorSchemaRoot root = batch(rows)) {
          int[] part = KeyPartitions.of(root, 3, parts);
          for (int i = 0; i < n; i++) {
            assertThat(part[i]).isBetween(0, parts - 1);
            Integer before = seen.putIfAbsent(canonical(rows.get(i)), part[i]);
            if (before != null) assertThat(part[i]).as("row %s", java.util.Arrays.toString(rows.get(i))).isEqualTo(before);
          }
        }
      }
      assertThat(seen.size()).isGreaterThan(1_000);
    }
  }

  @Test
  void distinctKeysSpreadEvenly() {
    int n = 80_000;
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) rows.add(new Object[] {(long) i, 0.0, "id" + String.format("%010d", i / 2)});
    try (VectorSchemaRoot root = batch(rows)) {
      for (int keys : new int[] {1, 3}) {
        int[] count = new int[4];
        for (int p : KeyPartitions.of(root, keys, 4)) count[p]++;
        for (int c : count) assertThat(c).isBetween(n / 4 - n / 40, n / 4 + n / 40);
      }
    }
  }
}
