package dev.quiver.planner.optimizer;

import dev.quiver.planner.plan.LogicalPlan;
import java.util.List;
import java.util.function.Predicate;

/**
 * What a {@link Rule} matches: nodes of some classes, optionally with a condition (e.g. "Filter over
 * TableScan"), or only the plan's root (for a rule that works on the whole plan at once). The driver
 * ({@link Optimizer}) calls a rule only on nodes its pattern matches.
 */
public final class Pattern {
  private final List<Class<? extends LogicalPlan>> types;
  private final Predicate<LogicalPlan> condition;
  private final String description;
  private final boolean rootOnly;

  private Pattern(List<Class<? extends LogicalPlan>> types, Predicate<LogicalPlan> condition, String description,
      boolean rootOnly) {
    this.types = List.copyOf(types);
    this.condition = condition;
    this.description = description;
    this.rootOnly = rootOnly;
  }

  /** Nodes of class {@code type}. */
  public static Pattern node(Class<? extends LogicalPlan> type) {
    return new Pattern(List.of(type), p -> true, type.getSimpleName(), false);
  }

  /** Nodes of any of {@code types}. */
  @SafeVarargs
  public static Pattern anyOf(Class<? extends LogicalPlan>... types) {
    StringBuilder d = new StringBuilder();
    for (Class<? extends LogicalPlan> t : types) d.append(d.length() == 0 ? "" : " | ").append(t.getSimpleName());
    return new Pattern(List.of(types), p -> true, d.toString(), false);
  }

  /** The plan's root only, whatever it is: for rules that need the whole plan (say why in the rule). */
  public static Pattern root() {
    return new Pattern(List.of(LogicalPlan.class), p -> true, "the root", true);
  }

  /** This pattern, restricted to nodes satisfying {@code c} ({@code what} describes it). */
  public Pattern with(String what, Predicate<LogicalPlan> c) {
    return new Pattern(types, condition.and(c), description + " " + what, rootOnly);
  }

  /** This pattern, restricted to nodes whose single input is of class {@code input}. */
  public Pattern withInput(Class<? extends LogicalPlan> input) {
    return with("over " + input.getSimpleName(), p -> p.children().size() == 1 && input.isInstance(p.children().get(0)));
  }

  /** Whether the rule applies only at the plan's root. */
  public boolean rootOnly() {
    return rootOnly;
  }

  /** Whether {@code node} matches (the root-only restriction is the driver's to apply). */
  public boolean matches(LogicalPlan node) {
    for (Class<? extends LogicalPlan> t : types) {
      if (t.isInstance(node)) return condition.test(node);
    }
    return false;
  }

  @Override
  public String toString() {
    return description;
  }
}
