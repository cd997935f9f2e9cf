package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

class OptimizerTest {
  static final LogicalPlan PLAN = new LogicalPlan.Project(new LogicalPlan.OneRow(),
      List.of(new LogicalPlan.NamedExpr(new Expr.Arithmetic(Expr.ArithOp.ADD, new Expr.Literal(1L, SqlTypes.INTEGER),
          new Expr.Literal(2L, SqlTypes.INTEGER), SqlTypes.INTEGER), "x")));

  @Test
  void aRuleThatChangesTheSchemaIsAnInternalError() {
    Rule rename = new Rule() {
      public String name() { return "Rename"; }
      public Pattern pattern() { return Pattern.node(LogicalPlan.Project.class); }
      public LogicalPlan apply(LogicalPlan plan, OptimizerContext c) {
        LogicalPlan.Project p = (LogicalPlan.Project) plan;
        return new LogicalPlan.Project(p.input(), List.of(new LogicalPlan.NamedExpr(p.exprs().get(0).expr(), "y")));
      }
    };
    try (RootAllocator a = new RootAllocator()) {
      assertThatThrownBy(() -> new Optimizer(List.of(rename)).optimize(PLAN, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow())))
          .isInstanceOf(QuiverException.class)
          .satisfies(e -> assertThat(((QuiverException) e).code()).isEqualTo(ErrorCode.INTERNAL))
          .hasMessageContaining("rule Rename changed the output schema");
    }
  }

  @Test
  void passesStopAtAFixpointOrAtTheLimit() {
    AtomicInteger calls = new AtomicInteger();
    Rule flipFlop = new Rule() {
      public String name() { return "FlipFlop"; }
      public Pattern pattern() { return Pattern.node(LogicalPlan.Project.class); }
      public LogicalPlan apply(LogicalPlan plan, OptimizerContext c) {
        calls.incrementAndGet();
        LogicalPlan.Project p = (LogicalPlan.Project) plan;
        Expr e = p.exprs().get(0).expr();
        Expr other = e instanceof Expr.Arithmetic a ? a.withChildren(List.of(a.right(), a.left())) : e;
        return new LogicalPlan.Project(p.input(), List.of(new LogicalPlan.NamedExpr(other, "x")));
      }
    };
    try (RootAllocator a = new RootAllocator()) {
      Optimizer.Result r = new Optimizer(List.of(flipFlop)).optimize(PLAN, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow()));
      assertThat(calls.get()).isEqualTo(Optimizer.MAX_PASSES);
      assertThat(r.steps()).hasSize(Optimizer.MAX_PASSES);
      calls.set(0);
      Optimizer.Result three = new Optimizer(List.of(flipFlop)).withMaxPasses(3)
          .optimize(PLAN, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow()));
      assertThat(calls.get()).isEqualTo(3);
      assertThat(three.steps()).hasSize(3);
      assertThat(dev.quiver.planner.sql.SqlLimits.DEFAULT.maxOptimizerPasses()).isEqualTo(Optimizer.MAX_PASSES);
      Optimizer.Result folded = Optimizer.standard().optimize(PLAN, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow()));
      assertThat(((LogicalPlan.Project) folded.plan()).exprs().get(0).expr()).isEqualTo(new Expr.Literal(3L, SqlTypes.INTEGER));
      assertThat(folded.steps()).extracting(Optimizer.Step::rule).containsExactly("SimplifyExpressions [FoldConstants]");
    }
  }
}
