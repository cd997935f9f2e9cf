package dev.quiver.bench.jmh;

import dev.quiver.planner.QuerySettings;
import dev.quiver.planner.exec.BenchOperators;
import dev.quiver.planner.exec.Operator;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
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
 * Quiver's filter and aggregate kernels on decoded data, one thread: {@link #ROWS} rows held in Arrow
 * batches of the engine's default size (as the scan hands them out), expressions compiled with
 * {@link ExprCompiler} and evaluated batch by batch, and the real {@code FilterExec} / {@code
 * AggregateExec} operators fed from memory. Columns (no NULLs): {@code x BIGINT} uniform in [0, 10^6),
 * {@code y DOUBLE} uniform in [0, 1), {@code price DECIMAL(12,2)} in [900, 104,950) and {@code discount
 * DECIMAL(12,2)} in [0.00, 0.10] (like TPC-H lineitem). Comparisons keep about half the rows (the
 * hardest case for branchy code). Two plain Java loops over the same Arrow buffers show the ceiling.
 * Every score is rows per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dio.netty.allocator.maxOrder=11", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class KernelBenchmark {
  public static final int ROWS = 4_194_304;

  static final ArrowType D12_2 = SqlTypes.decimal(12, 2);
  static final ArrowType D13_2 = SqlTypes.decimal(13, 2);
  static final ArrowType D25_4 = SqlTypes.decimal(25, 4);
  static final long X_LIMIT = 500_000L;

  static final Expr X = new Expr.ColumnRef("x", SqlTypes.BIGINT, false);
  static final Expr Y = new Expr.ColumnRef("y", SqlTypes.DOUBLE, false);
  static final Expr PRICE = new Expr.ColumnRef("price", D12_2, false);
  static final Expr DISCOUNT = new Expr.ColumnRef("discount", D12_2, false);
  /** {@code x < 500000}. */
  static final Expr X_LT = new Expr.Comparison(Expr.CmpOp.LT, X, new Expr.Literal(X_LIMIT, SqlTypes.BIGINT));
  /** {@code y < 0.5}. */
  static final Expr Y_LT = new Expr.Comparison(Expr.CmpOp.LT, Y, new Expr.Literal(0.5, SqlTypes.DOUBLE));
  /** {@code discount < 0.06}, as the analyzer types it: both sides DECIMAL(12,2). */
  static final Expr DISCOUNT_LT = new Expr.Comparison(Expr.CmpOp.LT, DISCOUNT,
      new Expr.Literal(new BigDecimal("0.06"), D12_2));
  /** {@code price * (1 - discount)} (TPC-H Q1's {@code sum_disc_price} input) with the analyzer's types. */
  static final Expr REVENUE = new Expr.Arithmetic(Expr.ArithOp.MULTIPLY, PRICE,
      new Expr.Arithmetic(Expr.ArithOp.SUBTRACT, new Expr.Literal(BigDecimal.ONE, SqlTypes.decimal(10, 0)), DISCOUNT, D13_2),
      D25_4);

  /** Rows per batch; the engine's default ({@code quiver.batch_rows}). */
  @Param({"" + QuerySettings.DEFAULT_BATCH_ROWS})
  public int batchRows;

  BufferAllocator allocator;
  Schema schema;
  List<VectorSchemaRoot> batches;
  EvalContext ctx;
  PhysicalExpr xLt;
  PhysicalExpr yLt;
  PhysicalExpr discountLt;
  PhysicalExpr revenue;
  LogicalPlan.Aggregate sumX;
  LogicalPlan.Aggregate sumRevenue;
  long expectedSumX;
  long expectedXLt;

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    schema = new Schema(List.of(
        new Field("x", FieldType.notNullable(SqlTypes.BIGINT), null),
        new Field("y", FieldType.notNullable(SqlTypes.DOUBLE), null),
        new Field("price", FieldType.notNullable(D12_2), null),
        new Field("discount", FieldType.notNullable(D12_2), null)));
    Random r = new Random(42);
    batches = new ArrayList<>();
    for (int start = 0; start < ROWS; start += batchRows) {
      int n = Math.min(batchRows, ROWS - start);
      VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
      b.allocateNew();
      BigIntVector x = (BigIntVector) b.getVector("x");
      Float8Vector y = (Float8Vector) b.getVector("y");
      DecimalVector price = (DecimalVector) b.getVector("price");
      DecimalVector discount = (DecimalVector) b.getVector("discount");
      for (int i = 0; i < n; i++) {
        long xv = r.nextInt(1_000_000);
        x.setSafe(i, xv);
        y.setSafe(i, r.nextDouble());
        price.setSafe(i, 90_000L + r.nextInt(10_405_000));
        discount.setSafe(i, (long) r.nextInt(11));
        expectedSumX += xv;
        if (xv < X_LIMIT) expectedXLt++;
      }
      b.setRowCount(n);
      batches.add(b);
    }
    ctx = EvalContext.now(ZoneOffset.UTC);
    xLt = ExprCompiler.compile(X_LT, schema, ctx);
    yLt = ExprCompiler.compile(Y_LT, schema, ctx);
    discountLt = ExprCompiler.compile(DISCOUNT_LT, schema, ctx);
    revenue = ExprCompiler.compile(REVENUE, schema, ctx);
    LogicalPlan input = new LogicalPlan.Empty(schema);
    sumX = new LogicalPlan.Aggregate(input, List.of(new LogicalPlan.AggregateCall(LogicalPlan.AggFunc.SUM, X,
        SqlTypes.BIGINT, "s")));
    sumRevenue = new LogicalPlan.Aggregate(input, List.of(new LogicalPlan.AggregateCall(LogicalPlan.AggFunc.SUM, REVENUE,
        SqlTypes.decimal(SqlTypes.MAX_DECIMAL_PRECISION, 4), "s")));
    // the kernels compute what they should
    check(sumBigintAggregate() == expectedSumX, "sum(x)");
    check(filterBigintOperator() == expectedXLt, "FilterExec x < 500000");
    check(loopCompareBigint() == expectedXLt, "loop x < 500000");
    check(loopSumBigint() == expectedSumX, "loop sum(x)");
    check(countTrue(xLt) == expectedXLt, "x < 500000");
    check(sumRevenueAggregate().signum() > 0, "sum(price * (1 - discount))");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batches.forEach(VectorSchemaRoot::close);
    allocator.close();
  }

  private static void check(boolean ok, String what) {
    if (!ok) throw new IllegalStateException("wrong result of " + what);
  }

  private long countTrue(PhysicalExpr e) {
    long n = 0;
    for (VectorSchemaRoot b : batches) {
      try (ColumnValues m = e.eval(b, allocator)) {
        for (int i = 0; i < b.getRowCount(); i++) if (!m.isNull(i) && m.getBool(i)) n++;
      }
    }
    return n;
  }

  private long evalAll(PhysicalExpr e) {
    long n = 0;
    for (VectorSchemaRoot b : batches) {
      try (ColumnValues v = e.eval(b, allocator)) {
        n += v.vector().getValueCount();
      }
    }
    return n;
  }

  /** {@code x < 500000} over every batch: the filter mask (a BOOLEAN vector) per batch. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long compareBigint() {
    return evalAll(xLt);
  }

  /** {@code y < 0.5}: the filter mask. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long compareDouble() {
    return evalAll(yLt);
  }

  /** {@code discount < 0.06} on DECIMAL(12,2): the filter mask. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long compareDecimal() {
    return evalAll(discountLt);
  }

  /** {@code price * (1 - discount)}: the DECIMAL(25,4) result vector per batch. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long arithmeticDecimal() {
    return evalAll(revenue);
  }

  /** {@code FilterExec(x < 500000)}: the mask, the selection vector and the copy of the kept rows (all 4 columns). */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long filterBigintOperator() {
    long rows = 0;
    try (Operator f = BenchOperators.filter(new BatchSource(schema, batches), X_LT, allocator, ctx)) {
      VectorSchemaRoot b;
      while ((b = f.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          rows += batch.getRowCount();
        }
      }
    }
    return rows;
  }

  /** {@code AggregateExec: sum(x)} without GROUP BY. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long sumBigintAggregate() {
    try (Operator a = BenchOperators.aggregate(new BatchSource(schema, batches), sumX, allocator, ctx, batchRows);
        VectorSchemaRoot out = a.next()) {
      return ((BigIntVector) out.getVector(0)).get(0);
    }
  }

  /** {@code AggregateExec: sum(price * (1 - discount))} without GROUP BY (the product, then the sum). */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public BigDecimal sumRevenueAggregate() {
    try (Operator a = BenchOperators.aggregate(new BatchSource(schema, batches), sumRevenue, allocator, ctx, batchRows);
        VectorSchemaRoot out = a.next()) {
      return ((DecimalVector) out.getVector(0)).getObject(0);
    }
  }

  /** Reference: a plain loop computing {@code x < 500000} into a bitmap from the same Arrow buffers. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long loopCompareBigint() {
    long count = 0;
    long[] bits = new long[(batchRows + 63) / 64];
    for (VectorSchemaRoot b : batches) {
      ArrowBuf data = ((BigIntVector) b.getVector(0)).getDataBuffer();
      int n = b.getRowCount();
      for (int w = 0; w * 64 < n; w++) {
        long word = 0;
        int end = Math.min(64, n - w * 64);
        for (int k = 0; k < end; k++) {
          long v = data.getLong((long) (w * 64 + k) * 8);
          word |= (v < X_LIMIT ? 1L : 0L) << k;
        }
        bits[w] = word;
        count += Long.bitCount(word);
      }
    }
    return count;
  }

  /** Reference: a plain loop summing {@code x} from the same Arrow buffers. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long loopSumBigint() {
    long sum = 0;
    for (VectorSchemaRoot b : batches) {
      ArrowBuf data = ((BigIntVector) b.getVector(0)).getDataBuffer();
      int n = b.getRowCount();
      for (int i = 0; i < n; i++) sum += data.getLong((long) i * 8);
    }
    return sum;
  }

  /** Hands out the batches again and again: each call a zero-copy slice the consumer may close. */
  static final class BatchSource extends Operator {
    private final Schema schema;
    private final List<VectorSchemaRoot> batches;
    private int next;

    BatchSource(Schema schema, List<VectorSchemaRoot> batches) {
      this.schema = schema;
      this.batches = batches;
    }

    @Override public Schema schema() { return schema; }
    @Override public List<Operator> children() { return List.of(); }
    @Override public String describe() { return "BatchSource"; }

    @Override
    protected VectorSchemaRoot produce() {
      if (next >= batches.size()) return null;
      VectorSchemaRoot b = batches.get(next++);
      return b.slice(0, b.getRowCount()); // buffers shared (reference counted), not copied
    }
  }
}
