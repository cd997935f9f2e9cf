package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;

/** The correlated predicates found in a subquery's WHERE, and for SCALAR the join keys. */
final class Correlation {
  /** How a subquery's correlated predicates are taken out of it. */
  enum Mode { NONE, EXISTS, IN, SCALAR, DOMAIN }

  final Mode mode;
  final List<Expr> conjuncts = new ArrayList<>();
  /** The text of each conjunct as the user wrote it, for messages (bound ones carry internal names). */
  final List<Expression> written = new ArrayList<>();
  final List<Expr> innerKeys = new ArrayList<>();
  final List<Expr> outerKeys = new ArrayList<>();
  final List<String> keyNames = new ArrayList<>();
  /** SCALAR: the aggregate calls of the subquery's own aggregation (its select list and HAVING). */
  final List<dev.quiver.planner.plan.LogicalPlan.AggregateCall> aggregates = new ArrayList<>();

  /**
   * SCALAR: the enclosing block's plan when the subquery was met — the source of the outer values a correlation
   * other than equalities is evaluated for (see {@link SubqueryDecorrelator#correlate}).
   */
  dev.quiver.planner.plan.LogicalPlan outerPlan;
  /** SCALAR, set by {@link SubqueryDecorrelator#correlate}: the distinct outer values joined into the subquery, or null. */
  dev.quiver.planner.plan.LogicalPlan domain;
  /**
   * DOMAIN (see {@link SubqueryDecorrelator#dependent}): the subquery reads the enclosing query's columns anywhere,
   * renamed to the columns {@code domainKeys} of {@link #domain}, the distinct outer values, which is joined into its
   * FROM; it is grouped by them as well when it aggregates, and returns them after its own columns.
   */
  final List<String> domainKeys = new ArrayList<>();
  /** Whether the join back to the outer rows must match NULL keys (IS NOT DISTINCT FROM). */
  boolean nullSafeKeys;

  Correlation(Mode mode) { this.mode = mode; }
}
