package dev.quiver.bench.jmh;

import dev.quiver.planner.QuerySettings;
import dev.quiver.planner.exec.BenchOperators;
import dev.quiver.planner.exec.Operator;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Quiver's grouped {@code AggregateExec} fed from memory, one thread, over {@link KernelBenchmark#ROWS} rows in
 * batches of the engine's default size. Columns (no NULLs), shuffled like TPC-H lineitem: {@code flag VARCHAR} of
 * 3 values, {@code status VARCHAR} of 2, {@code x BIGINT} uniform in [0, 10^6), {@code price DECIMAL(12,2)} and
 * {@code discount DECIMAL(12,2)} as in {@link KernelBenchmark}. Every score is input rows per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dio.netty.allocator.maxOrder=11", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class GroupedAggregateBenchmark {
  static final int ROWS = KernelBenchmark.ROWS;
  static final Expr FLAG = new Expr.ColumnRef("flag", ArrowType.Utf8.INSTANCE, false);
  static final Expr STATUS = new Expr.ColumnRef("status", ArrowType.Utf8.INSTANCE, false);
  static final Expr X = new Expr.ColumnRef("x", SqlTypes.BIGINT, false);

  @Param({"" + QuerySettings.DEFAULT_BATCH_ROWS})
  public int batchRows;

  BufferAllocator allocator;
  Schema schema;
  List<VectorSchemaRoot> batches;
  EvalContext ctx;
  /** TPC-H Q1's shape: GROUP BY flag, status; count(*), sum(price), sum(price * (1 - discount)), avg(discount). */
  LogicalPlan.Aggregate q1;
  /** GROUP BY x (about 10^6 groups): count(*), sum(price). */
  LogicalPlan.Aggregate manyGroups;

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    schema = new Schema(List.of(
        new Field("flag", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
        new Field("status", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
        new Field("x", FieldType.notNullable(SqlTypes.BIGINT), null),
        new Field("price", FieldType.notNullable(KernelBenchmark.D12_2), null),
        new Field("discount", FieldType.notNullable(KernelBenchmark.D12_2), null)));
    byte[][] flags = {"A".getBytes(StandardCharsets.UTF_8), "N".getBytes(StandardCharsets.UTF_8),
        "R".getBytes(StandardCharsets.UTF_8)};
    byte[][] statuses = {"F".getBytes(StandardCharsets.UTF_8), "O".getBytes(StandardCharsets.UTF_8)};
    Random r = new Random(42);
    batches = new ArrayList<>();
    for (int start = 0; start < ROWS; start += batchRows) {
      int n = Math.min(batchRows, ROWS - start);
      VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
      b.allocateNew();
      VarCharVector flag = (VarCharVector) b.getVector("flag");
      VarCharVector status = (VarCharVector) b.getVector("status");
      BigIntVector x = (BigIntVector) b.getVector("x");
      DecimalVector price = (DecimalVector) b.getVector("price");
      DecimalVector discount = (DecimalVector) b.getVector("discount");
      for (int i = 0; i < n; i++) {
        flag.setSafe(i, flags[r.nextInt(3)]);
        status.setSafe(i, statuses[r.nextInt(2)]);
        x.setSafe(i, r.nextInt(1_000_000));
        price.setSafe(i, 90_000L + r.nextInt(10_405_000));
        discount.setSafe(i, (long) r.nextInt(11));
      }
      b.setRowCount(n);
      batches.add(b);
    }
    ctx = EvalContext.now(ZoneOffset.UTC);
    LogicalPlan input = new LogicalPlan.Empty(schema);
    ArrowType d38_2 = SqlTypes.decimal(SqlTypes.MAX_DECIMAL_PRECISION, 2);
    ArrowType d38_4 = SqlTypes.decimal(SqlTypes.MAX_DECIMAL_PRECISION, 4);
    q1 = new LogicalPlan.Aggregate(input,
        List.of(new LogicalPlan.NamedExpr(FLAG, "flag"), new LogicalPlan.NamedExpr(STATUS, "status")),
        List.of(new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, "n"),
            new AggregateCall(AggFunc.SUM, KernelBenchmark.PRICE, d38_2, "sp"),
            new AggregateCall(AggFunc.SUM, KernelBenchmark.REVENUE, d38_4, "sr"),
            new AggregateCall(AggFunc.AVG, KernelBenchmark.DISCOUNT, SqlTypes.DOUBLE, "ad")));
    manyGroups = new LogicalPlan.Aggregate(input, List.of(new LogicalPlan.NamedExpr(X, "x")),
        List.of(new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, "n"),
            new AggregateCall(AggFunc.SUM, KernelBenchmark.PRICE, d38_2, "sp")));
    if (q1Grouped() != ROWS) throw new IllegalStateException("wrong result of the Q1-like aggregation");
    if (manyGroupsGrouped() != ROWS) throw new IllegalStateException("wrong result of GROUP BY x");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batches.forEach(VectorSchemaRoot::close);
    allocator.close();
  }

  /** Runs {@code plan} and sums its count(*) column (the first aggregate): the input's row count. */
  private long run(LogicalPlan.Aggregate plan, int countColumn) {
    long rows = 0;
    try (Operator a = BenchOperators.aggregate(new KernelBenchmark.BatchSource(schema, batches), plan, allocator, ctx,
        batchRows)) {
      VectorSchemaRoot b;
      while ((b = a.next()) != null) {
        try (VectorSchemaRoot out = b) {
          BigIntVector n = (BigIntVector) out.getVector(countColumn);
          for (int i = 0; i < out.getRowCount(); i++) rows += n.get(i);
        }
      }
    }
    return rows;
  }

  /** TPC-H Q1's shape: 6 groups of two one-byte strings, four aggregates (three over decimals). */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long q1Grouped() {
    return run(q1, 2);
  }

  /** GROUP BY a BIGINT of about 10^6 distinct values: count(*), sum(price). */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long manyGroupsGrouped() {
    return run(manyGroups, 1);
  }
}
