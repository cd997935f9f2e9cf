package dev.quiver.planner.sql;

import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.scan.table.Catalog;
import java.util.List;

/**
 * What every binder of one statement shares: the catalog, the statement's text (for messages and their
 * positions), its parameters, the internal names given so far (unique in the statement, see {@link Names}), the
 * limits it keeps to and the nesting depth reached. One per statement, created by the {@link Analyzer}.
 */
record BindingContext(Catalog catalog, String sql, Parameters parameters, Names names, SqlLimits limits,
    NestingDepth nesting) {

  BindingContext(Catalog catalog, String sql, Parameters parameters, SqlLimits limits) {
    this(catalog, sql, parameters, new Names(), limits, new NestingDepth(limits, sql));
  }

  /** An expression binder over {@code scope}, without scalar subqueries (see {@link Block#binder}). */
  ExprBinder binder(Scope scope, boolean allowAggregates, List<AggregateCall> aggregates) {
    return new ExprBinder(sql, scope, allowAggregates, aggregates).withParameters(parameters).withNames(names)
        .withLimits(limits, nesting);
  }

  /** The position suffix of a message about {@code word} (see {@link SqlPositions#suffix}). */
  String at(String word) {
    return SqlPositions.suffix(sql, word);
  }
}
