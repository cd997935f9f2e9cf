package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Aggregates the whole input into one row (no GROUP BY). Integer sums that overflow BIGINT are errors. */
public final class AggregateExec extends Operator {
  private final Operator input;
  private final LogicalPlan.Aggregate plan;
  private final BufferAllocator allocator;
  private final List<PhysicalExpr> args = new ArrayList<>();
  private boolean done;

  AggregateExec(Operator input, LogicalPlan.Aggregate plan, BufferAllocator allocator, dev.quiver.planner.kernel.EvalContext ctx) {
    this.input = input;
    this.plan = plan;
    this.allocator = allocator;
    for (AggregateCall c : plan.aggregates()) {
      args.add(c.arg() == null ? null : ExprCompiler.compile(c.arg(), input.schema(), ctx));
    }
  }

  @Override public Schema schema() { return plan.schema(); }
  @Override public List<Operator> children() { return List.of(input); }

  @Override
  public String describe() {
    return "AggregateExec: " + plan.aggregates().stream().map(a -> a + " AS " + a.name()).collect(Collectors.joining(", "));
  }

  /** The running state of one aggregate. */
  private static final class Acc {
    final AggregateCall call;
    final Kernels.Family family;
    long count;
    long longSum;
    double doubleSum;
    BigDecimal decimalSum = BigDecimal.ZERO;
    long unscaledSum; // small decimals: summed as unscaled longs while they fit, then folded into decimalSum
    Object best;

    Acc(AggregateCall call) {
      this.call = call;
      this.family = call.arg() == null ? null : Kernels.family(call.arg().type());
    }
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (done) return null;
    done = true;
    List<Acc> accs = new ArrayList<>();
    for (AggregateCall c : plan.aggregates()) accs.add(new Acc(c));
    VectorSchemaRoot batch;
    while ((batch = input.next()) != null) {
      try (VectorSchemaRoot b = batch) {
        for (int a = 0; a < accs.size(); a++) accumulate(accs.get(a), args.get(a), b);
      }
    }
    List<FieldVector> out = new ArrayList<>();
    try {
      for (Acc acc : accs) {
        FieldVector v = acc.call.field().createVector(allocator);
        out.add(v);
        v.setInitialCapacity(1);
        v.allocateNew();
        Vectors.set(v, 0, result(acc));
        v.setValueCount(1);
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(plan.schema().getFields(), out, 1);
  }

  private void accumulate(Acc acc, PhysicalExpr arg, VectorSchemaRoot b) {
    int n = b.getRowCount();
    if (arg == null) {
      acc.count += n;
      return;
    }
    try (ColumnValues v = arg.eval(b, allocator)) {
      if (acc.family == Kernels.Family.DECIMAL && v.type() instanceof ArrowType.Decimal
          && (acc.call.func() == LogicalPlan.AggFunc.SUM || acc.call.func() == LogicalPlan.AggFunc.AVG)) {
        int scale = ((ArrowType.Decimal) v.type()).getScale();
        for (int i = 0; i < n; i++) {
          if (v.isNull(i)) continue;
          acc.count++;
          long x;
          try {
            x = v.getUnscaledLong(i);
          } catch (ArithmeticException wide) {
            acc.decimalSum = acc.decimalSum.add(v.getDecimal(i));
            continue;
          }
          long s = acc.unscaledSum + x;
          if (((acc.unscaledSum ^ s) & (x ^ s)) < 0) { // overflow: move the running sum into the BigDecimal
            acc.decimalSum = acc.decimalSum.add(BigDecimal.valueOf(acc.unscaledSum, scale));
            acc.unscaledSum = x;
          } else {
            acc.unscaledSum = s;
          }
        }
        acc.decimalSum = acc.decimalSum.add(BigDecimal.valueOf(acc.unscaledSum, scale));
        acc.unscaledSum = 0;
        return;
      }
      for (int i = 0; i < n; i++) {
        if (v.isNull(i)) continue;
        acc.count++;
        switch (acc.call.func()) {
          case COUNT -> { }
          case SUM, AVG -> add(acc, v, i);
          case MIN, MAX -> {
            Object x = v.getObject(i);
            if (acc.best == null) {
              acc.best = x;
            } else {
              int c = Kernels.compareObjects(acc.family, x, acc.best);
              if (acc.call.func() == LogicalPlan.AggFunc.MIN ? c < 0 : c > 0) acc.best = x;
            }
          }
        }
      }
    }
  }

  private static void add(Acc acc, ColumnValues v, int i) {
    switch (acc.family) {
      case LONG -> {
        if (acc.call.func() == LogicalPlan.AggFunc.AVG) {
          acc.decimalSum = acc.decimalSum.add(BigDecimal.valueOf(v.getLong(i)));
        } else {
          try {
            acc.longSum = Math.addExact(acc.longSum, v.getLong(i));
          } catch (ArithmeticException e) {
            throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + acc.call.arg() + ") overflows BIGINT");
          }
        }
      }
      case DOUBLE -> acc.doubleSum += v.getDouble(i);
      case DECIMAL, ULONG -> acc.decimalSum = acc.decimalSum.add(dev.quiver.planner.kernel.Casts.exact(v.getObject(i), v.type()));
      default -> throw QuiverException.internal("sum over " + v.type());
    }
  }

  private static Object result(Acc acc) {
    ArrowType t = acc.call.type();
    switch (acc.call.func()) {
      case COUNT:
        return acc.count;
      case MIN:
      case MAX:
        return acc.best;
      case SUM:
        if (acc.count == 0) return null;
        if (acc.family == Kernels.Family.LONG) return acc.longSum;
        if (acc.family == Kernels.Family.DOUBLE) return acc.doubleSum;
        BigDecimal s = acc.decimalSum.setScale(((ArrowType.Decimal) t).getScale());
        if (s.precision() > SqlTypes.MAX_DECIMAL_PRECISION) {
          throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + acc.call.arg() + ") overflows " + SqlTypes.sqlName(t));
        }
        return s;
      case AVG:
        if (acc.count == 0) return null;
        if (acc.family == Kernels.Family.DOUBLE) return acc.doubleSum / acc.count;
        return acc.decimalSum.divide(BigDecimal.valueOf(acc.count), java.math.MathContext.DECIMAL64).doubleValue();
      default:
        throw QuiverException.internal("aggregate " + acc.call.func());
    }
  }
}
