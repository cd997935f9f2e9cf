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

  /** Project(x) over Filter(TRUE) over OneRow. */
  static final LogicalPlan THREE_NODES = new LogicalPlan.Project(new LogicalPlan.Filter(new LogicalPlan.OneRow(), Expr.Literal.TRUE),
      List.of(new LogicalPlan.NamedExpr(new Expr.Literal(1L, SqlTypes.INTEGER), "x")));

  /** A rule that records the nodes the driver gives it and changes nothing. */
  static Rule recorder(Pattern pattern, Rule.Order order, List<String> seen) {
    return new Rule() {
      public String name() { return "Recorder"; }
      public Pattern pattern() { return pattern; }
      public Order order() { return order; }
      public LogicalPlan apply(LogicalPlan plan, OptimizerContext c) {
        seen.add(plan.describe().split(":")[0]);
        return plan;
      }
    };
  }

  @Test
  void theDriverVisitsOnlyMatchingNodesInTheRulesOrder() {
    try (RootAllocator a = new RootAllocator()) {
      OptimizerContext ctx = new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow());
      List<String> up = new java.util.ArrayList<>();
      new Optimizer(List.of(recorder(Pattern.node(LogicalPlan.class), Rule.Order.BOTTOM_UP, up))).optimize(THREE_NODES, ctx);
      assertThat(up).containsExactly("OneRow", "Filter", "Projection");
      List<String> down = new java.util.ArrayList<>();
      new Optimizer(List.of(recorder(Pattern.node(LogicalPlan.class), Rule.Order.TOP_DOWN, down))).optimize(THREE_NODES, ctx);
      assertThat(down).containsExactly("Projection", "Filter", "OneRow");
      List<String> filters = new java.util.ArrayList<>();
      new Optimizer(List.of(recorder(Pattern.node(LogicalPlan.Filter.class), Rule.Order.BOTTOM_UP, filters))).optimize(THREE_NODES, ctx);
      assertThat(filters).containsExactly("Filter");
      List<String> overOneRow = new java.util.ArrayList<>();
      Pattern p = Pattern.anyOf(LogicalPlan.Filter.class, LogicalPlan.Project.class).withInput(LogicalPlan.OneRow.class);
      new Optimizer(List.of(recorder(p, Rule.Order.BOTTOM_UP, overOneRow))).optimize(THREE_NODES, ctx);
      assertThat(overOneRow).containsExactly("Filter");
      List<String> root = new java.util.ArrayList<>();
      new Optimizer(List.of(recorder(Pattern.root(), Rule.Order.BOTTOM_UP, root))).optimize(THREE_NODES, ctx);
      assertThat(root).containsExactly("Projection");
    }
  }

  @Test
  void aRuleThatReturnsTheSameNodesChangesNothingAndTheFixpointIsOnePass() {
    List<String> seen = new java.util.ArrayList<>();
    try (RootAllocator a = new RootAllocator()) {
      Optimizer.Result r = new Optimizer(List.of(recorder(Pattern.node(LogicalPlan.class), Rule.Order.BOTTOM_UP, seen)))
          .optimize(THREE_NODES, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow()));
      assertThat(r.plan()).isSameAs(THREE_NODES);
      assertThat(r.steps()).isEmpty();
      assertThat(seen).hasSize(3); // one pass
    }
  }

  @Test
  void aRewriteDeepInThePlanIsOneStepAndRebuildsOnlyItsAncestors() {
    Rule dropTrueFilter = new Rule() {
      public String name() { return "DropTrueFilter"; }
      public Pattern pattern() { return Pattern.node(LogicalPlan.Filter.class); }
      public LogicalPlan apply(LogicalPlan plan, OptimizerContext c) { return ((LogicalPlan.Filter) plan).input(); }
    };
    try (RootAllocator a = new RootAllocator()) {
      Optimizer.Result r = new Optimizer(List.of(dropTrueFilter))
          .optimize(THREE_NODES, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow()));
      assertThat(r.steps()).extracting(Optimizer.Step::rule).containsExactly("DropTrueFilter");
      assertThat(r.plan()).isInstanceOf(LogicalPlan.Project.class);
      assertThat(r.plan().children().get(0)).isSameAs(THREE_NODES.children().get(0).children().get(0));
    }
  }

  @Test
  void aNodeWhoseSchemaChangesDeepInThePlanIsAnInternalError() {
    // the root's schema would not show it: the projection under the filter is renamed
    LogicalPlan inner = new LogicalPlan.Project(new LogicalPlan.OneRow(),
        List.of(new LogicalPlan.NamedExpr(new Expr.Literal(1L, SqlTypes.INTEGER), "x")));
    LogicalPlan plan = new LogicalPlan.Aggregate(inner, List.of(), List.of());
    Rule renameLeaf = new Rule() {
      public String name() { return "RenameLeaf"; }
      public Pattern pattern() { return Pattern.node(LogicalPlan.Project.class).withInput(LogicalPlan.OneRow.class); }
      public LogicalPlan apply(LogicalPlan p, OptimizerContext c) {
        LogicalPlan.Project pr = (LogicalPlan.Project) p;
        return new LogicalPlan.Project(pr.input(), List.of(new LogicalPlan.NamedExpr(pr.exprs().get(0).expr(), "y")));
      }
    };
    try (RootAllocator a = new RootAllocator()) {
      assertThatThrownBy(() -> new Optimizer(List.of(renameLeaf)).optimize(plan, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow())))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("rule RenameLeaf changed the output schema");
    }
  }

  @Test
  void cancellationIsCheckedBetweenRules() {
    AtomicInteger checks = new AtomicInteger();
    List<String> seen = new java.util.ArrayList<>();
    dev.quiver.planner.Cancellation cancelSecond = () -> {
      if (checks.incrementAndGet() == 2) throw new IllegalStateException("cancelled by the test");
    };
    Rule first = recorder(Pattern.root(), Rule.Order.BOTTOM_UP, seen);
    Rule second = recorder(Pattern.root(), Rule.Order.BOTTOM_UP, seen);
    try (RootAllocator a = new RootAllocator()) {
      assertThatThrownBy(() -> new Optimizer(List.of(first, second))
          .optimize(THREE_NODES, new OptimizerContext(a, dev.quiver.planner.kernel.EvalContext.utcNow(), cancelSecond)))
          .hasMessageContaining("cancelled by the test");
      assertThat(seen).hasSize(1); // the second rule never ran
    }
  }

  @Test
  void everyPlanRuleIsRegisteredAndHasItsOwnTest() {
    java.util.Set<String> registered = new java.util.TreeSet<>();
    for (Rule r : Optimizer.standard().rules()) registered.add(r.getClass().getSimpleName());
    assertThat(RuleClasses.implementing(Optimizer.class, Rule.class)).as("rule classes that Optimizer.standard() never runs")
        .isEqualTo(registered);
    for (String rule : registered) {
      assertThat(getClass().getClassLoader().getResource("dev/quiver/planner/optimizer/" + rule + "Test.class"))
          .as("a test class " + rule + "Test").isNotNull();
    }
    java.util.Set<String> withoutSimplifier = new java.util.TreeSet<>();
    for (Rule r : Optimizer.standard(false).rules()) withoutSimplifier.add(r.getClass().getSimpleName());
    assertThat(registered).containsAll(withoutSimplifier);
  }
}
