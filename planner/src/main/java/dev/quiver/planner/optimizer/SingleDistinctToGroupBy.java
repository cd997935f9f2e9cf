package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An aggregation whose aggregates are all DISTINCT over one argument becomes two: the distinct (groups, argument)
 * pairs first, then the aggregates, no longer DISTINCT, over those pairs. Before: {@code Aggregate(X, groups G,
 * f1(DISTINCT x), …, fn(DISTINCT x))}; after: {@code Aggregate(Aggregate(X, groups G ∪ {x AS d}), groups G, f1(d), …,
 * fn(d))} ({@code min}/{@code max} of {@code x} may be among them without DISTINCT: duplicates do not change them),
 * the outer groups reading the inner's columns by the same names. The inner aggregation has no aggregate at
 * all, so it splits like any other: each scan task removes its row group's duplicates, and the DISTINCT no longer
 * runs on one thread over every row (DataFusion's {@code SingleDistinctToGroupBy}).
 * <p>Legal because {@code f(DISTINCT x)} over a group's rows is {@code f} over the set of the group's distinct non-NULL
 * values of {@code x}, and the inner aggregation's rows of one group G are exactly that set (plus one row for NULL,
 * which every f here ignores), each value once; DISTINCT equality and GROUP BY equality are the same (NULLs, NaN,
 * {@code -0.0}). Without groups, an empty input still gives one row: the outer aggregation has no groups either.
 * Only for count, sum, avg, min and max of one argument (no ORDER BY, no second argument), and not over grouping
 * sets (their empty-input rows are the aggregation's own).
 */
public final class SingleDistinctToGroupBy implements Rule {
  @Override
  public String name() {
    return "SingleDistinctToGroupBy";
  }

  private static final Pattern AGGREGATE = Pattern.node(LogicalPlan.Aggregate.class)
      .with("aggregates all DISTINCT over one argument", p -> applies((LogicalPlan.Aggregate) p));

  @Override
  public Pattern pattern() {
    return AGGREGATE;
  }

  static boolean applies(LogicalPlan.Aggregate a) {
    if (a.aggregates().isEmpty() || a.input() instanceof LogicalPlan.Expand) return false;
    Expr arg = a.aggregates().get(0).arg();
    boolean anyDistinct = false;
    for (AggregateCall c : a.aggregates()) {
      boolean minMax = c.func() == AggFunc.MIN || c.func() == AggFunc.MAX; // blind to duplicates: DISTINCT or not
      boolean plain = c.func() == AggFunc.COUNT || c.func() == AggFunc.SUM || c.func() == AggFunc.AVG || minMax;
      if (!(c.distinct() || minMax) || !plain || c.arg() == null || !c.arg().equals(arg) || c.arg2() != null
          || !c.orderBy().isEmpty() || c.quantile() != null) {
        return false;
      }
      anyDistinct |= c.distinct();
    }
    return anyDistinct;
  }

  @Override
  public LogicalPlan apply(LogicalPlan node, OptimizerContext context) {
    LogicalPlan.Aggregate a = (LogicalPlan.Aggregate) node;
    Expr arg = a.aggregates().get(0).arg();
    Set<String> taken = new HashSet<>();
    for (var f : a.input().schema().getFields()) taken.add(f.getName());
    for (NamedExpr g : a.groups()) taken.add(g.name());
    for (AggregateCall c : a.aggregates()) taken.add(c.name());
    String d = "__distinct";
    for (int k = 1; taken.contains(d); k++) d = "__distinct" + k;
    List<NamedExpr> innerGroups = new ArrayList<>(a.groups());
    innerGroups.add(new NamedExpr(arg, d));
    LogicalPlan inner = new LogicalPlan.Aggregate(a.input(), innerGroups, List.of());
    List<NamedExpr> outerGroups = new ArrayList<>();
    for (NamedExpr g : a.groups()) {
      outerGroups.add(new NamedExpr(new Expr.ColumnRef(g.name(), g.expr().type(), g.expr().nullable()), g.name()));
    }
    Expr.ColumnRef value = new Expr.ColumnRef(d, arg.type(), arg.nullable());
    List<AggregateCall> outerCalls = new ArrayList<>();
    for (AggregateCall c : a.aggregates()) {
      outerCalls.add(new AggregateCall(c.func(), value, c.type(), c.name(), false, c.separator(), c.orderBy(), null,
          null));
    }
    return new LogicalPlan.Aggregate(inner, outerGroups, outerCalls);
  }
}
