package dev.quiver.planner.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/** The string IN list's hash set against a {@link HashSet} of the same strings, probed in place in an Arrow vector. */
class BytesHashSetTest {
  private static String random(Random rnd) {
    int len = rnd.nextInt(5) == 0 ? rnd.nextInt(40) : rnd.nextInt(4); // many short (collisions of prefixes), some long
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < len; i++) b.append((char) ('a' + rnd.nextInt(3)));
    if (rnd.nextInt(10) == 0) b.append('é'); // multi-byte UTF-8
    return b.toString();
  }

  @Test
  void probesInPlaceAnswerAsAHashSetDoes() {
    Random rnd = new Random(7);
    for (int round = 0; round < 50; round++) {
      int n = round == 0 ? 0 : 1 + rnd.nextInt(round * 40);
      Set<String> expected = new HashSet<>();
      List<byte[]> items = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String s = random(rnd);
        expected.add(s);
        items.add(s.getBytes(StandardCharsets.UTF_8));
        if (rnd.nextInt(5) == 0) items.add(s.getBytes(StandardCharsets.UTF_8)); // repeated items
      }
      BytesHashSet set = new BytesHashSet(items.toArray(new byte[0][]));
      try (BufferAllocator alloc = new RootAllocator(); VarCharVector v = new VarCharVector("v", alloc)) {
        int rows = 500;
        List<String> values = new ArrayList<>();
        v.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
          String s = random(rnd);
          values.add(s);
          v.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
        }
        v.setValueCount(rows);
        long data = v.getDataBuffer().memoryAddress();
        for (int i = 0; i < rows; i++) {
          int start = v.getOffsetBuffer().getInt(4L * i);
          int len = v.getOffsetBuffer().getInt(4L * (i + 1)) - start;
          assertThat(set.containsAt(data + start, len)).as("%s in %s", values.get(i), expected)
              .isEqualTo(expected.contains(values.get(i)));
          assertThat(set.contains(values.get(i).getBytes(StandardCharsets.UTF_8))).isEqualTo(expected.contains(values.get(i)));
        }
      }
    }
  }
}
