package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.QuiverException;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.VectorValues;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * AggregateExec's grouped aggregation (group ids per batch, per-group typed state) against the row-at-a-time
 * algorithm it replaced, run here over the same batches: a hash map from {@link Keys#row} to one {@link Accumulator}
 * per aggregate per group. Random data with many groups, NULL keys, NaN / -0.0 keys, empty and one-byte and longer
 * string keys, decimals whose sums leave a long, and batch sizes from 1 row to more than one chunk; groups must come
 * out in the same order (first appearance) with the same values.
 */
class GroupedAggregationTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final EvalContext ctx = EvalContext.now(ZoneOffset.UTC);

  static final ArrowType D12_2 = SqlTypes.decimal(12, 2);
  static final ArrowType D18_0 = SqlTypes.decimal(18, 0);
  static final ArrowType D30_2 = SqlTypes.decimal(30, 2);
  static final Schema SCHEMA = new Schema(List.of(
      field("k", SqlTypes.BIGINT), field("i", new ArrowType.Int(32, true)), field("f", SqlTypes.DOUBLE),
      field("s", ArrowType.Utf8.INSTANCE), field("d", D12_2), field("e", D18_0), field("w", D30_2),
      field("x", SqlTypes.BIGINT), field("y", SqlTypes.DOUBLE), field("b", ArrowType.Bool.INSTANCE),
      field("h", SqlTypes.REAL)));

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  private static Expr col(String name) {
    return new Expr.ColumnRef(name, SCHEMA.findField(name).getType(), true);
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private static List<Object[]> rows(Random r, int n, int keyDomain) {
    String[] strings = {"", "A", "N", "R", "F", "O", "ab", "abc", "a longer string key", "\u00e9t\u00e9"};
    double[] doubles = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L), 1.5, -2.25,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
    List<Object[]> rows = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      Object[] row = new Object[11];
      row[0] = r.nextInt(20) == 0 ? null : (long) r.nextInt(keyDomain) - keyDomain / 2;
      row[1] = r.nextInt(20) == 0 ? null : (long) r.nextInt(5);
      row[2] = r.nextInt(20) == 0 ? null : r.nextBoolean() ? doubles[r.nextInt(doubles.length)] : (double) r.nextInt(keyDomain);
      row[3] = r.nextInt(20) == 0 ? null : r.nextBoolean() ? strings[r.nextInt(strings.length)] : "s" + r.nextInt(keyDomain);
      row[4] = r.nextInt(10) == 0 ? null : BigDecimal.valueOf(r.nextInt(2_000_000) - 1_000_000, 2);
      row[5] = r.nextInt(10) == 0 ? null : BigDecimal.valueOf(r.nextLong() % 900_000_000_000_000_000L, 0);
      row[6] = r.nextInt(10) == 0 ? null : new BigDecimal(new java.math.BigInteger(90, r), 2).multiply(
          BigDecimal.valueOf(r.nextBoolean() ? 1 : -1));
      row[7] = r.nextInt(10) == 0 ? null : r.nextLong() >> 20;
      row[8] = r.nextInt(10) == 0 ? null : r.nextInt(8) == 0 ? doubles[r.nextInt(doubles.length)] : r.nextDouble();
      row[9] = r.nextInt(10) == 0 ? null : r.nextBoolean();
      row[10] = r.nextInt(10) == 0 ? null : (double) (float) (r.nextGaussian() * 1000); // REAL, as a double
      rows.add(row);
    }
    return rows;
  }

  /** The rows in batches of random sizes up to {@code maxBatch}. */
  private List<VectorSchemaRoot> batches(List<Object[]> rows, Random r, int maxBatch) {
    return RowBatches.of(SCHEMA, rows, r, maxBatch, allocator);
  }

  private static List<AggregateCall> calls() {
    ArrowType d38_2 = SqlTypes.decimal(38, 2);
    ArrowType d38_0 = SqlTypes.decimal(38, 0);
    return List.of(
        new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, "cs"),
        new AggregateCall(AggFunc.COUNT, col("y"), SqlTypes.BIGINT, "cy"),
        new AggregateCall(AggFunc.SUM, col("x"), SqlTypes.BIGINT, "sx"),
        new AggregateCall(AggFunc.SUM, col("i"), SqlTypes.BIGINT, "si"),
        new AggregateCall(AggFunc.AVG, col("x"), SqlTypes.DOUBLE, "ax"),
        new AggregateCall(AggFunc.SUM, col("y"), SqlTypes.DOUBLE, "sy"),
        new AggregateCall(AggFunc.AVG, col("y"), SqlTypes.DOUBLE, "ay"),
        new AggregateCall(AggFunc.SUM, col("h"), SqlTypes.DOUBLE, "sh"),
        new AggregateCall(AggFunc.AVG, col("h"), SqlTypes.DOUBLE, "ah"),
        new AggregateCall(AggFunc.SUM, col("d"), d38_2, "sd"),
        new AggregateCall(AggFunc.AVG, col("d"), SqlTypes.DOUBLE, "ad"),
        new AggregateCall(AggFunc.SUM, col("e"), d38_0, "se"),
        new AggregateCall(AggFunc.AVG, col("e"), SqlTypes.DOUBLE, "ae"),
        new AggregateCall(AggFunc.SUM, col("w"), d38_2, "sw"),
        new AggregateCall(AggFunc.MIN, col("y"), SqlTypes.DOUBLE, "mny"),
        new AggregateCall(AggFunc.MAX, col("s"), ArrowType.Utf8.INSTANCE, "mxs"),
        new AggregateCall(AggFunc.COUNT, col("k"), SqlTypes.BIGINT, "cdk", true),
        new AggregateCall(AggFunc.SUM, col("x"), SqlTypes.BIGINT, "sdx", true),
        new AggregateCall(AggFunc.BOOL_OR, col("b"), ArrowType.Bool.INSTANCE, "bo"),
        new AggregateCall(AggFunc.MIN, col("x"), SqlTypes.BIGINT, "mnx"),
        new AggregateCall(AggFunc.MAX, col("x"), SqlTypes.BIGINT, "mxx"),
        new AggregateCall(AggFunc.MAX, col("y"), SqlTypes.DOUBLE, "mxy"),
        new AggregateCall(AggFunc.MIN, col("f"), SqlTypes.DOUBLE, "mnf"),
        new AggregateCall(AggFunc.MAX, col("i"), new ArrowType.Int(32, true), "mxi"),
        new AggregateCall(AggFunc.COUNT, col("s"), SqlTypes.BIGINT, "cds", true),
        new AggregateCall(AggFunc.COUNT, col("f"), SqlTypes.BIGINT, "cdf", true),
        new AggregateCall(AggFunc.SUM, col("y"), SqlTypes.DOUBLE, "sdy", true),
        new AggregateCall(AggFunc.AVG, col("d"), SqlTypes.DOUBLE, "adp", true),
        new AggregateCall(AggFunc.MAX, col("s"), ArrowType.Utf8.INSTANCE, "mxds", true),
        // typed in GroupedAccumulator (GroupedVariance, Percentiles): the same values as one Accumulator a group
        new AggregateCall(AggFunc.STDDEV_SAMP, col("y"), SqlTypes.DOUBLE, "sdy2"),
        new AggregateCall(AggFunc.VAR_POP, col("x"), SqlTypes.DOUBLE, "vpx"),
        new AggregateCall(AggFunc.STDDEV_POP, col("i"), SqlTypes.DOUBLE, "spi"),
        new AggregateCall(AggFunc.VAR_SAMP, col("f"), SqlTypes.DOUBLE, "vsf"),
        new AggregateCall(AggFunc.MEDIAN, col("y"), SqlTypes.DOUBLE, "mdy"),
        new AggregateCall(AggFunc.MEDIAN, col("f"), SqlTypes.DOUBLE, "mdf"),
        new AggregateCall(AggFunc.PERCENTILE_DISC, col("x"), SqlTypes.BIGINT, "pdx"),
        new AggregateCall(AggFunc.PERCENTILE_DISC, col("y"), SqlTypes.DOUBLE, "pdy"));
  }

  private LogicalPlan.Aggregate plan(List<String> keys, List<AggregateCall> calls) {
    List<LogicalPlan.NamedExpr> groups = new ArrayList<>();
    for (String k : keys) groups.add(new LogicalPlan.NamedExpr(col(k), k));
    return new LogicalPlan.Aggregate(new LogicalPlan.Empty(SCHEMA), groups, calls);
  }

  /** AggregateExec's output rows, in order. */
  private List<List<Object>> actual(LogicalPlan.Aggregate p, List<VectorSchemaRoot> batches) {
    List<List<Object>> out = new ArrayList<>();
    try (Operator a = PhysicalPlanner.aggregate(new RowBatches.Source(SCHEMA, batches), p, allocator, ctx, 1000)) {
      VectorSchemaRoot b;
      while ((b = a.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          for (int i = 0; i < batch.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (int c = 0; c < batch.getFieldVectors().size(); c++) {
              row.add(new VectorValues(batch.getVector(c), false).getObject(i));
            }
            out.add(row);
          }
        }
      }
    }
    return out;
  }

  /** The row-at-a-time reference: {@link Keys#row} into a map of per-group accumulators, first appearance order. */
  private List<List<Object>> expected(LogicalPlan.Aggregate p, List<VectorSchemaRoot> batches) {
    MemoryReservation memory = new MemoryReservation(allocator, "the test");
    Map<Object, Object[]> groups = new LinkedHashMap<>();
    List<PhysicalExpr> keys = new ArrayList<>();
    for (LogicalPlan.NamedExpr g : p.groups()) keys.add(ExprCompiler.compile(g.expr(), SCHEMA, ctx));
    List<PhysicalExpr> args = new ArrayList<>();
    for (AggregateCall c : p.aggregates()) args.add(c.arg() == null ? null : ExprCompiler.compile(c.arg(), SCHEMA, ctx));
    try {
      for (VectorSchemaRoot b : batches) {
        try (b) {
          List<ColumnValues> kv = new ArrayList<>();
          List<ColumnValues> av = new ArrayList<>();
          for (PhysicalExpr k : keys) kv.add(k.eval(b, allocator));
          for (PhysicalExpr a : args) av.add(a == null ? null : a.eval(b, allocator));
          for (int i = 0; i < b.getRowCount(); i++) {
            Object key = Keys.row(kv, i);
            int row = i;
            Object[] g = groups.computeIfAbsent(key, k -> {
              Object[] state = new Object[2];
              Object[] values = new Object[kv.size()];
              for (int c = 0; c < values.length; c++) values[c] = kv.get(c).getObject(row);
              Accumulator[] accs = new Accumulator[p.aggregates().size()];
              for (int a = 0; a < accs.length; a++) accs[a] = Accumulator.create(p.aggregates().get(a), memory);
              state[0] = values;
              state[1] = accs;
              return state;
            });
            Accumulator[] accs = (Accumulator[]) g[1];
            for (int a = 0; a < accs.length; a++) accs[a].add(av.get(a), i);
          }
          kv.forEach(ColumnValues::close);
          for (ColumnValues v : av) if (v != null) v.close();
        }
      }
      List<List<Object>> out = new ArrayList<>();
      for (Object[] g : groups.values()) {
        List<Object> row = new ArrayList<>();
        for (Object o : (Object[]) g[0]) row.add(o);
        for (Accumulator a : (Accumulator[]) g[1]) row.add(a.result());
        out.add(row);
      }
      return out;
    } finally {
      memory.close();
    }
  }

  private void check(List<String> keys, List<Object[]> rows, long seed, int maxBatch) {
    LogicalPlan.Aggregate p = plan(keys, calls());
    List<List<Object>> want = expected(p, batches(rows, new Random(seed), maxBatch));
    List<List<Object>> got = actual(p, batches(rows, new Random(seed), maxBatch));
    assertThat(got).as("GROUP BY %s, batches up to %d rows", keys, maxBatch).hasSize(want.size());
    for (int r = 0; r < want.size(); r++) {
      assertThat(got.get(r).toString()).as("GROUP BY %s, group %d", keys, r).isEqualTo(want.get(r).toString());
    }
  }

  @Test
  void groupedAggregationMatchesTheRowAtATimeAlgorithm() {
    List<List<String>> groupings = List.<List<String>>of(List.of(), List.of("k"), List.of("i"), List.of("f"), List.of("s"), List.of("d"),
        List.of("b"), List.of("s", "i"), List.of("i", "s"), List.of("k", "f", "s"), List.of("f", "b", "d", "i"));
    Random r = new Random(14);
    for (int round = 0; round < 3; round++) {
      int domain = round == 0 ? 4 : round == 1 ? 300 : 5000;
      List<Object[]> rows = rows(r, 1500, domain);
      for (List<String> g : groupings) {
        if (round == 1 && g.size() > 1) check(g, rows, r.nextLong(), 1);
        check(g, rows, r.nextLong(), 37);
        check(g, rows, r.nextLong(), 1500);
      }
    }
  }

  @Test
  void batchesLongerThanOneChunk() {
    List<Object[]> rows = rows(new Random(15), 20_000, 15_000);
    for (List<String> g : List.<List<String>>of(List.of(), List.of("k"), List.of("s", "f"))) check(g, rows, 1, 20_000);
  }

  @Test
  void anIntegerSumIsJudgedOnItsTotalNotOnARunningTotal() {
    // the running total leaves BIGINT after the second row and comes back with the third: the sum fits, in any order
    long half = Long.MAX_VALUE / 2;
    List<Object[]> rows = rows(new Random(17), 3, 2);
    long[] xs = {half + 1, half + 1, -half};
    for (int i = 0; i < 3; i++) {
      rows.get(i)[0] = 1L;
      rows.get(i)[7] = xs[i];
    }
    LogicalPlan.Aggregate p = plan(List.of("k"), List.of(new AggregateCall(AggFunc.SUM, col("x"), SqlTypes.BIGINT, "sx")));
    assertThat(actual(p, batches(rows, new Random(1), 3))).containsExactly(List.of(1L, half + 2));
    LogicalPlan.Aggregate total = plan(List.of(), List.of(new AggregateCall(AggFunc.SUM, col("x"), SqlTypes.BIGINT, "sx")));
    assertThat(actual(total, batches(rows, new Random(1), 1))).containsExactly(List.of(half + 2));
  }

  @Test
  void groupedIntegerSumOverflowIsAnError() {
    List<Object[]> rows = rows(new Random(16), 10, 2);
    for (Object[] row : rows) {
      row[0] = 1L;
      row[7] = Long.MAX_VALUE / 4;
    }
    LogicalPlan.Aggregate p = plan(List.of("k"), List.of(new AggregateCall(AggFunc.SUM, col("x"), SqlTypes.BIGINT, "sx")));
    assertThatThrownBy(() -> actual(p, batches(rows, new Random(1), 3)))
        .isInstanceOf(QuiverException.class).hasMessageContaining("sum(x) overflows BIGINT");
  }
}
