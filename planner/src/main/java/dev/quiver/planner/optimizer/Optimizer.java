package dev.quiver.planner.optimizer;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The driver of the plan rules: runs the rules in order, pass after pass, until a pass changes nothing
 * or its maximum of passes ({@link #MAX_PASSES} unless {@link #withMaxPasses set}:
 * {@code SqlLimits.maxOptimizerPasses}) is hit. In a pass each rule walks the plan once, applied at the
 * nodes its {@link Pattern} matches, in its {@link Rule.Order}; rules return the same instance when
 * they do not apply, so a change is seen by identity, not by comparing plans. Each rule that changed
 * the plan is one {@link Step} (its name and the plan after it) for EXPLAIN VERBOSE.
 * <p>Every node a rule rewrites, and so the plan, must keep its output schema (names and types): a rule
 * that changes it is a bug, reported as an internal error that fails the query.
 */
public final class Optimizer {
  /** The default maximum of passes ({@code SqlLimits.DEFAULT_MAX_OPTIMIZER_PASSES}). */
  public static final int MAX_PASSES = 8;

  /**
   * A rule that changed the plan, and the plan after it (for EXPLAIN VERBOSE); {@code rewrites}: the simplifier's
   * rewrites of predicates in that step, recorded only when the context asked ({@link OptimizerContext#rewrites()}).
   */
  public record Step(String rule, LogicalPlan plan, List<Rewrite> rewrites) {
    public Step {
      rewrites = List.copyOf(rewrites);
    }

    public Step(String rule, LogicalPlan plan) {
      this(rule, plan, List.of());
    }
  }

  /** One rewrite by one simplifier rule (its class's simple name) of (part of) a predicate: before and after. */
  public record Rewrite(String rule, dev.quiver.planner.expr.Expr before, dev.quiver.planner.expr.Expr after) {}

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

  /** The rules, in order. */
  List<Rule> rules() {
    return rules;
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
      return new Optimizer(List.of(new PushDownFilters(), new ReduceAggregateByJoinKeys(), new SingleDistinctToGroupBy(), new PushSemiJoinDown(),
          new ReorderJoins(), new PushFilterIntoScan(),
          new PruneColumns()));
    }
    return new Optimizer(List.of(new SimplifyExpressions(), new SimplifyFilterPredicate(), new RemoveTrivialFilter(),
        new PushDownFilters(), new ReduceAggregateByJoinKeys(), new SingleDistinctToGroupBy(), new PushSemiJoinDown(), new ReorderJoins(),
        new PushFilterIntoScan(), new PruneColumns()));
  }

  /**
   * Runs the rules pass after pass: in each pass every rule in turn over the whole plan ({@link #applyRule}),
   * one step recorded for each rule that changed something, until a pass changes nothing or the maximum of
   * passes is hit. The query's cancellation is checked before each rule.
   */
  public Result optimize(LogicalPlan plan, OptimizerContext context) {
    List<Step> steps = new ArrayList<>();
    for (int pass = 0; pass < maxPasses; pass++) {
      boolean changed = false;
      for (Rule rule : rules) {
        context.cancellation().check();
        int logged = context.rewrites() == null ? 0 : context.rewrites().size();
        LogicalPlan next = applyRule(rule, plan, context);
        List<Rewrite> rewrites = List.of();
        if (context.rewrites() != null) {
          List<Rewrite> tail = context.rewrites().subList(logged, context.rewrites().size());
          if (next != plan) rewrites = List.copyOf(tail);
          tail.clear(); // kept only with the step they belong to
        }
        if (next == plan) continue;
        checkSchema(rule, plan.schema(), next.schema());
        steps.add(new Step(rule.lastStepName(), next, rewrites));
        plan = next;
        changed = true;
      }
      if (!changed) break;
    }
    return new Result(plan, steps);
  }

  /**
   * One walk of {@code rule} over {@code plan}: the rule is applied once at every node its pattern matches
   * (only at the root for a root pattern), in the rule's order. A node is rebuilt only when an input
   * changed, so the result is the very same instance when the rule applied nowhere. Each rewritten node
   * must keep its output schema.
   */
  static LogicalPlan applyRule(Rule rule, LogicalPlan plan, OptimizerContext context) {
    if (rule.pattern().rootOnly()) return applyAt(rule, plan, context);
    return rule.order() == Rule.Order.TOP_DOWN ? topDown(rule, plan, context) : bottomUp(rule, plan, context);
  }

  private static LogicalPlan bottomUp(Rule rule, LogicalPlan plan, OptimizerContext context) {
    List<LogicalPlan> children = plan.children();
    List<LogicalPlan> next = null;
    for (int i = 0; i < children.size(); i++) {
      LogicalPlan c = bottomUp(rule, children.get(i), context);
      if (c != children.get(i)) {
        if (next == null) next = new ArrayList<>(children);
        next.set(i, c);
      }
    }
    if (next != null) plan = plan.withChildren(next);
    return applyAt(rule, plan, context);
  }

  private static LogicalPlan topDown(Rule rule, LogicalPlan plan, OptimizerContext context) {
    plan = applyAt(rule, plan, context);
    List<LogicalPlan> children = plan.children();
    List<LogicalPlan> next = null;
    for (int i = 0; i < children.size(); i++) {
      LogicalPlan c = topDown(rule, children.get(i), context);
      if (c != children.get(i)) {
        if (next == null) next = new ArrayList<>(children);
        next.set(i, c);
      }
    }
    return next == null ? plan : plan.withChildren(next);
  }

  private static LogicalPlan applyAt(Rule rule, LogicalPlan node, OptimizerContext context) {
    if (!rule.pattern().matches(node)) return node;
    LogicalPlan next = rule.apply(node, context);
    if (next != node) checkSchema(rule, node.schema(), next.schema());
    return next;
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
