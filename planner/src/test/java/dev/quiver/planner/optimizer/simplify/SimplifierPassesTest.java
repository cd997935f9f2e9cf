package dev.quiver.planner.optimizer.simplify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.planner.Cancellation;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.sql.SqlLimits;
import dev.quiver.planner.types.SqlTypes;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** The simplifier's pass count is a limit of {@link SqlLimits}, handed to it through the optimizer's context. */
class SimplifierPassesTest {
  @Test
  void passesOverOneExpressionAreBoundedByTheContext() {
    AtomicInteger calls = new AtomicInteger();
    // a rule that never settles: once per pass it wraps the one boolean literal leaf, TRUE into NOT FALSE and back
    ExprRule flipFlop = new ExprRule() {
      @Override public String name() { return "FlipFlop"; }

      @Override public Expr apply(Expr node, OptimizerContext context) {
        if (!(node instanceof Expr.Literal l) || !SqlTypes.isBoolean(l.type())) return node;
        calls.incrementAndGet();
        return new Expr.Not(Boolean.TRUE.equals(l.value()) ? Expr.Literal.FALSE : Expr.Literal.TRUE);
      }
    };
    ExprSimplifier s = new ExprSimplifier(List.of(flipFlop), List.of());
    try (RootAllocator a = new RootAllocator()) {
      s.simplify(Expr.Literal.TRUE, new OptimizerContext(a, EvalContext.utcNow()), new HashSet<>());
      assertThat(calls.get()).isEqualTo(SqlLimits.DEFAULT_MAX_SIMPLIFIER_PASSES);
      calls.set(0);
      s.simplify(Expr.Literal.TRUE, new OptimizerContext(a, EvalContext.utcNow(), Cancellation.NONE, 3), new HashSet<>());
      assertThat(calls.get()).isEqualTo(3);
    }
    assertThat(SqlLimits.DEFAULT.maxSimplifierPasses()).isEqualTo(ExprSimplifier.MAX_PASSES).isEqualTo(16);
    assertThat(SqlLimits.DEFAULT.withMaxSimplifierPasses(5).maxSimplifierPasses()).isEqualTo(5);
    assertThatThrownBy(() -> SqlLimits.DEFAULT.withMaxSimplifierPasses(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
