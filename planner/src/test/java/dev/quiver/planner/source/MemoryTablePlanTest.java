package dev.quiver.planner.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.Cancellation;
import dev.quiver.planner.exec.Operator;
import dev.quiver.planner.exec.PhysicalPlanner;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.optimizer.Optimizer;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.plan.LogicalPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Plans over a table in memory, no files: the optimizer's rules and the operators run on a {@link MemoryTable} as
 * on Parquet (the filter moves into the scan as exact conjuncts, the scan applies them), and the rows are those a
 * brute-force evaluation of the same predicate keeps.
 */
class MemoryTablePlanTest {
  static final ArrowType BIGINT = new ArrowType.Int(64, true);
  static final ArrowType DOUBLE = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  @Test
  void aFilterOverAMemoryTableIsPushedIntoItsScanAndAnswersAsABruteForceEvaluation() {
    Random random = new Random(42);
    Double[] doubles = {null, Double.NaN, -0.0, 0.0, 0.5, 1.0, 1.5, 7.25, Double.POSITIVE_INFINITY};
    List<List<Object>> rows = new ArrayList<>();
    for (long k = 0; k < 1000; k++) {
      rows.add(Arrays.asList(k % 17 == 0 ? null : k, doubles[random.nextInt(doubles.length)], "s" + (k % 7)));
    }
    MemoryTable table = new MemoryTable("m", new Schema(List.of(Field.nullable("k", BIGINT), Field.nullable("x", DOUBLE),
        Field.nullable("s", new ArrowType.Utf8()))), rows);
    Expr k = new Expr.ColumnRef("k", BIGINT, true);
    Expr x = new Expr.ColumnRef("x", DOUBLE, true);
    Expr condition = new Expr.And(new Expr.Comparison(Expr.CmpOp.LT, k, new Expr.Literal(500L, BIGINT)),
        new Expr.Comparison(Expr.CmpOp.GT, x, new Expr.Literal(1.0, DOUBLE)));
    LogicalPlan plan = new LogicalPlan.Project(
        new LogicalPlan.Filter(new LogicalPlan.TableScan(table, List.of("k", "x", "s"), null, null), condition),
        List.of(new LogicalPlan.NamedExpr(new Expr.ColumnRef("s", new ArrowType.Utf8(), true), "s"),
            new LogicalPlan.NamedExpr(k, "k")));

    List<List<Object>> got = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      LogicalPlan optimized = Optimizer.standard().optimize(plan, new OptimizerContext(allocator, EvalContext.utcNow())).plan();
      String text = String.join("\n", dev.quiver.planner.QueryEngine.render(optimized));
      assertThat(text).doesNotContain("Filter").contains("exact=[k < 500, x > 1.0]").contains("projection=[k, s]");
      try (Operator root = new PhysicalPlanner(allocator, EvalContext.utcNow(), Cancellation.NONE, 64, true).plan(optimized)) {
        for (VectorSchemaRoot next = root.next(); next != null; next = root.next()) {
          try (VectorSchemaRoot b = next) {
            for (int i = 0; i < b.getRowCount(); i++) {
              got.add(Arrays.asList(String.valueOf(b.getVector(0).getObject(i)), b.getVector(1).getObject(i)));
            }
          }
        }
      }
    }
    List<List<Object>> expected = new ArrayList<>();
    for (List<Object> r : rows) {
      Long kv = (Long) r.get(0);
      Double xv = (Double) r.get(1);
      // SQL: NULL drops the row; NaN is above every number in Quiver's order
      if (kv != null && kv < 500 && xv != null && (Double.isNaN(xv) || xv > 1.0)) expected.add(Arrays.asList(r.get(2), kv));
    }
    assertThat(expected).isNotEmpty();
    assertThat(got).isEqualTo(expected);
  }
}
