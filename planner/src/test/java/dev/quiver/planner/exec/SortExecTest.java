package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.VectorValues;
import dev.quiver.planner.types.SqlTypes;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SortExec without a fetch against a brute-force stable sort of the same rows: integer, double (NaN, -0.0, the
 * infinities), INT32 and string keys (empty, NUL bytes, multi-byte UTF-8, 7-byte prefixes shared by longer values)
 * with NULLs and many ties, one key or several, every direction and NULL
 * placement; the same sorts cut into stretches sorted on three threads and merged. Each row carries a unique id, so
 * the order of tied rows (input order) is checked too.
 */
class SortExecTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final EvalContext ctx = EvalContext.now(ZoneOffset.UTC);

  static final Schema SCHEMA = new Schema(List.of(field("id", SqlTypes.BIGINT), field("k", SqlTypes.BIGINT),
      field("d", SqlTypes.DOUBLE), field("i", new ArrowType.Int(32, true)), field("s", ArrowType.Utf8.INSTANCE)));
  static final Kernels.Family[] FAMILIES = {Kernels.Family.LONG, Kernels.Family.LONG, Kernels.Family.DOUBLE,
      Kernels.Family.LONG, Kernels.Family.BYTES};

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  static List<Object[]> rows(Random r, int n) {
    double[] doubles = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L), 1.5, -2.25,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MAX_VALUE};
    long[] longs = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1};
    // strings sorted by a 7-byte prefix and their length, then (8 bytes and more) by the whole value
    String[] strings = {"", "a", "ab", "ab\u0000", "abcdefg", "abcdefgh", "abcdefg\u0000", "abcdefghij", "abcdefgz",
        "\u00e9t\u00e9", "\u00e9t\u00e9 long enough", "zzzzzzzzzz", "\uffff"};
    List<Object[]> rows = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      Object[] row = new Object[5];
      row[0] = (long) j;
      row[1] = r.nextInt(12) == 0 ? null : r.nextInt(5) == 0 ? longs[r.nextInt(longs.length)] : (long) r.nextInt(50) - 25;
      row[2] = r.nextInt(12) == 0 ? null : r.nextInt(3) == 0 ? doubles[r.nextInt(doubles.length)] : r.nextInt(40) / 4.0;
      row[3] = r.nextInt(12) == 0 ? null : (long) r.nextInt(7) - 3;
      int shape = r.nextInt(12);
      row[4] = shape == 0 ? null : shape < 5 ? "s" + r.nextInt(30)
          : shape < 7 ? (r.nextBoolean() ? "qrstuvwx" : "qrstuvwa") // exactly 8 bytes, alike in their first 7
          : strings[r.nextInt(strings.length)] + (r.nextBoolean() ? "" : Integer.toString(r.nextInt(20)));
      rows.add(row);
    }
    return rows;
  }

  private List<VectorSchemaRoot> batches(List<Object[]> rows, Random r) {
    return RowBatches.of(SCHEMA, rows, r, 700, allocator);
  }

  /** A sort key in the test: column, direction, NULL placement. */
  record Spec(int column, boolean ascending, boolean nullsFirst) {}

  private static int compareValues(Kernels.Family f, Object a, Object b) {
    return switch (f) {
      case LONG -> Long.compare((Long) a, (Long) b);
      case DOUBLE -> Kernels.compareDouble((Double) a, (Double) b);
      default -> java.util.Arrays.compareUnsigned(a.toString().getBytes(StandardCharsets.UTF_8),
          b.toString().getBytes(StandardCharsets.UTF_8));
    };
  }

  /** The ids of the rows, stably sorted by {@code specs} (List.sort is stable: ties keep input order). */
  static List<Long> expected(List<Object[]> rows, List<Spec> specs) {
    Comparator<Object[]> cmp = (x, y) -> {
      for (Spec s : specs) {
        Object a = x[s.column()];
        Object b = y[s.column()];
        if (a == null || b == null) {
          if (a == null && b == null) continue;
          return (a == null) == s.nullsFirst() ? -1 : 1;
        }
        int c = compareValues(FAMILIES[s.column()], a, b);
        if (c != 0) return s.ascending() ? c : -c;
      }
      return 0;
    };
    List<Object[]> sorted = new ArrayList<>(rows);
    sorted.sort(cmp);
    return sorted.stream().map(row -> (Long) row[0]).toList();
  }

  /** Three threads (the test's and two workers) sorting stretches of at least 32 rows, merged. */
  private final java.util.concurrent.ExecutorService workers = java.util.concurrent.Executors.newFixedThreadPool(2);

  @AfterEach
  void stopWorkers() {
    workers.shutdownNow();
  }

  private List<Long> actual(List<VectorSchemaRoot> batches, List<Spec> specs) {
    return actual(batches, specs, false);
  }

  private List<Long> actual(List<VectorSchemaRoot> batches, List<Spec> specs, boolean parallel) {
    List<SortExec.Key> keys = new ArrayList<>();
    for (Spec s : specs) {
      Field f = SCHEMA.getFields().get(s.column());
      Expr col = new Expr.ColumnRef(f.getName(), f.getType(), true);
      keys.add(new SortExec.Key(ExprCompiler.compile(col, SCHEMA, ctx), FAMILIES[s.column()], s.ascending(),
          s.nullsFirst()));
    }
    List<Long> ids = new ArrayList<>();
    try (SortExec sort = parallel
        ? new SortExec(new RowBatches.Source(SCHEMA, batches), keys, -1, "sort", allocator, 1000, workers, 3, 64)
        : new SortExec(new RowBatches.Source(SCHEMA, batches), keys, -1, "sort", allocator, 1000)) {
      VectorSchemaRoot b;
      while ((b = sort.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          VectorValues id = new VectorValues(batch.getVector(0), false);
          for (int i = 0; i < batch.getRowCount(); i++) ids.add((Long) id.getObject(i));
        }
      }
    }
    return ids;
  }

  @Test
  void sortsAsAStableSortOfTheRowsDoes() {
    Random r = new Random(27);
    List<List<Spec>> shapes = new ArrayList<>();
    for (int column : new int[] {1, 2, 3, 4}) {
      for (boolean asc : new boolean[] {true, false}) {
        for (boolean nullsFirst : new boolean[] {true, false}) {
          shapes.add(List.of(new Spec(column, asc, nullsFirst)));
          // a second key decides the first key's ties (also among the NULLs), and a third
          shapes.add(List.of(new Spec(column, asc, nullsFirst), new Spec(1 + r.nextInt(4), r.nextBoolean(),
              r.nextBoolean()), new Spec(2, r.nextBoolean(), r.nextBoolean())));
        }
      }
    }
    // a first key without NULLs (the radix sort's longs lead the merge as they are), then one with
    shapes.add(List.of(new Spec(0, false, true)));
    shapes.add(List.of(new Spec(0, true, false), new Spec(1, true, true)));
    for (int n : new int[] {0, 1, 63, 5_000}) {
      List<Object[]> rows = rows(r, n);
      for (List<Spec> shape : shapes) {
        List<Long> expected = expected(rows, shape);
        assertThat(actual(batches(rows, r), shape)).as("%d rows by %s", n, shape).isEqualTo(expected);
        // cut into stretches sorted on three threads and merged: the same order, ties included
        assertThat(actual(batches(rows, r), shape, true)).as("%d rows by %s, in parallel", n, shape).isEqualTo(expected);
      }
    }
  }

  /**
   * A parallel sort closed after its first batch, with later batches gathered ahead on the workers: every batch built
   * is released (the allocator holds nothing). Whether a worker is still gathering at the close is left to timing
   * here; {@link OutputAheadTest} holds one mid-batch.
   */
  @Test
  void closedEarlyWhileGatheringAheadReleasesEverything() {
    Random r = new Random(3);
    List<Object[]> rows = rows(r, 5_000);
    Field f = SCHEMA.getFields().get(1);
    List<SortExec.Key> keys = List.of(new SortExec.Key(ExprCompiler.compile(new Expr.ColumnRef(f.getName(), f.getType(),
        true), SCHEMA, ctx), Kernels.Family.LONG, true, true));
    for (int round = 0; round < 30; round++) {
      try (SortExec sort = new SortExec(new RowBatches.Source(SCHEMA, batches(rows, r)), keys, -1, "sort", allocator, 50,
          workers, 3, 64)) {
        sort.next().close();
      }
      assertThat(allocator.getAllocatedMemory()).as("round %d", round).isZero();
    }
  }
}
