package dev.quiver.planner.optimizer;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Runs the rules in order, pass after pass, until a pass changes nothing or its maximum of passes
 * ({@link #MAX_PASSES} unless {@link #withMaxPasses set}: {@code SqlLimits.maxOptimizerPasses}) is hit.
 * After every rule the plan's output schema (names and types) must be unchanged: a rule that changes
 * it is a bug, reported as an internal error that fails the query.
 */
public final class Optimizer {
  /** The default maximum of passes ({@code SqlLimits.DEFAULT_MAX_OPTIMIZER_PASSES}). */
  public static final int MAX_PASSES = 8;

  /** A rule that changed the plan, and the plan after it (for EXPLAIN VERBOSE). */
  public record Step(String rule, LogicalPlan plan) {}

  public record Result(LogicalPlan plan, List<Step> steps) {}

  private final List<Rule> rules;
  private final int maxPasses;

  public Optimizer(List<Rule> rules) {
    this(rules, MAX_PASSES);
  }

  private Optimizer(List<Rule> rules, int maxPasses) {
    if (maxPasses < 1) throw new IllegalArgumentException("the optimizer needs at least 1 pass, not " + maxPasses);
    this.rules = List.copyOf(rules);
    this.maxPasses = maxPasses;
  }

  /** The same rules, run for at most {@code maxPasses} passes. */
  public Optimizer withMaxPasses(int maxPasses) {
    return new Optimizer(rules, maxPasses);
  }

  public static Optimizer standard() {
    return standard(true);
  }

  /**
   * The rules in order: simplify expressions (folding, algebra, cast unwrapping) then the WHERE-context
   * pass, then pushdown and column pruning. With {@code simplify} off only pushdown and pruning run, so
   * the same query can be compared with and without the simplifier.
   */
  public static Optimizer standard(boolean simplify) {
    if (!simplify) {
      return new Optimizer(List.of(new PushDownFilters(), new ReorderJoins(), new PushFilterIntoScan(), new PruneColumns()));
    }
    return new Optimizer(List.of(new SimplifyExpressions(), new SimplifyFilterPredicate(), new RemoveTrivialFilter(),
        new PushDownFilters(), new ReorderJoins(), new PushFilterIntoScan(), new PruneColumns()));
  }

  public Result optimize(LogicalPlan plan, OptimizerContext context) {
    List<Step> steps = new ArrayList<>();
    for (int pass = 0; pass < maxPasses; pass++) {
      boolean changed = false;
      for (Rule rule : rules) {
        context.cancellation().check();
        LogicalPlan next = rule.apply(plan, context);
        if (next.equals(plan)) continue;
        checkSchema(rule, plan.schema(), next.schema());
        steps.add(new Step(rule.lastStepName(), next));
        plan = next;
        changed = true;
      }
      if (!changed) break;
    }
    return new Result(plan, steps);
  }

  static void checkSchema(Rule rule, Schema before, Schema after) {
    List<Field> a = before.getFields();
    List<Field> b = after.getFields();
    boolean same = a.size() == b.size();
    for (int i = 0; same && i < a.size(); i++) {
      same = a.get(i).getName().equals(b.get(i).getName()) && a.get(i).getType().equals(b.get(i).getType());
    }
    if (!same) {
      throw QuiverException.internal("rule " + rule.name() + " changed the output schema from " + before + " to " + after);
    }
  }
}
