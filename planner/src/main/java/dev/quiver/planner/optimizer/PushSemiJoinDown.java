package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A semi or anti join (EXISTS, IN, NOT EXISTS, NOT IN) moves below what its left input is made of, towards the
 * relation whose columns its condition reads: below a projection that passes those columns on (on the way to a join),
 * and into the side of a join that holds them when the join's other side is not filtered ({@link #filtered}); not
 * below a filter (filters go down on their own, and the two would trade places forever). TPC-H q18's
 * {@code o_orderkey IN (…57 keys…)} then filters orders before orders meets lineitem and customer, instead of after
 * six million joined rows.
 * <p>Before: {@code Semi(Inner(A, B, c), S, k)} with {@code k} reading only A's columns (and S's); after:
 * {@code Inner(Semi(A, S, k), B, c)}. Likewise into B when {@code k} reads only B; into the left of a LEFT or
 * semi/anti join and the right of a RIGHT join (never into a side whose rows are kept unmatched, where the filter
 * would turn dropped rows into NULL-padded ones); {@code Semi(Project(X), S, k)} to {@code Project(Semi(X, S, k))} when every column {@code k} reads from the left
 * is a column of X that the projection passes on under its own name.
 * <p>Legal because a semi or anti join (NULL-aware or not) is a filter on its left rows: it keeps a row or not by
 * the values of the columns its condition reads, which are the same in the row of A, or of X, as in the joined,
 * filtered or projected row made from it; and the join above keeps or pads rows of the other side the same way
 * whether A's rows were filtered before or after. The output columns, in order, are unchanged.
 */
public final class PushSemiJoinDown implements Rule {
  @Override
  public String name() {
    return "PushSemiJoinDown";
  }

  private static final Pattern SEMI = Pattern.node(LogicalPlan.Join.class)
      .with("a semi or anti join", p -> ((LogicalPlan.Join) p).type().leftOnly() && ((LogicalPlan.Join) p).condition() != null);

  @Override
  public Pattern pattern() {
    return SEMI;
  }

  @Override
  public Order order() {
    return Order.TOP_DOWN;
  }

  @Override
  public LogicalPlan apply(LogicalPlan node, OptimizerContext context) {
    LogicalPlan.Join semi = (LogicalPlan.Join) node;
    Set<String> subqueryNames = names(semi.right());
    // the condition's columns from the left input
    Set<String> reads = new HashSet<>(Exprs.columns(semi.condition()));
    reads.removeAll(subqueryNames);
    LogicalPlan input = semi.left();
    // below a projection only on the way to a join (else it would only trade places with it)
    if (input instanceof LogicalPlan.Project p && passesOn(p, reads)
        && (p.input() instanceof LogicalPlan.Join || p.input() instanceof LogicalPlan.Project)) {
      return p.withChildren(java.util.List.of(below(semi, p.input())));
    }
    if (input instanceof LogicalPlan.Join j) {
      boolean intoLeft = j.type() == JoinType.INNER || j.type() == JoinType.LEFT || j.type().leftOnly();
      boolean intoRight = j.type() == JoinType.INNER || j.type() == JoinType.RIGHT;
      if (intoLeft && names(j.left()).containsAll(reads) && disjoint(names(j.left()), subqueryNames)
          && !filtered(j.right())) {
        return new LogicalPlan.Join(below(semi, j.left()), j.right(), j.type(), j.condition());
      }
      if (intoRight && names(j.right()).containsAll(reads) && disjoint(names(j.right()), subqueryNames)
          && !filtered(j.left())) {
        return new LogicalPlan.Join(j.left(), below(semi, j.right()), j.type(), j.condition());
      }
    }
    return node;
  }

  /**
   * Whether {@code p} filters its rows somewhere (a filter, a scan with a predicate, a semi or anti join, a limit):
   * joined to it, the other side then likely loses rows, and the semi join is cheaper applied after that join, on
   * fewer rows (TPC-H q21's EXISTS over lineitem stays above the joins with one nation's suppliers). Only a cost
   * choice: the rewrite is legal either way.
   */
  static boolean filtered(LogicalPlan p) {
    if (p instanceof LogicalPlan.Filter || p instanceof LogicalPlan.Limit) return true;
    if (p instanceof LogicalPlan.TableScan s) return s.predicate() != null || s.residual() != null || !s.exact().isEmpty();
    if (p instanceof LogicalPlan.Join j && j.type().leftOnly()) return true;
    for (LogicalPlan c : p.children()) if (filtered(c)) return true;
    return false;
  }

  /** The semi join over {@code left} instead of its own left input. */
  private static LogicalPlan below(LogicalPlan.Join semi, LogicalPlan left) {
    return new LogicalPlan.Join(left, semi.right(), semi.type(), semi.condition());
  }

  /** Whether {@code p} outputs each of {@code columns} as that same column of its input. */
  private static boolean passesOn(LogicalPlan.Project p, Set<String> columns) {
    Set<String> input = names(p.input());
    for (String c : columns) {
      boolean found = false;
      for (LogicalPlan.NamedExpr e : p.exprs()) {
        if (e.name().equals(c) && e.expr() instanceof Expr.ColumnRef r && r.name().equals(c) && input.contains(c)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }

  private static boolean disjoint(Set<String> a, Set<String> b) {
    for (String s : b) if (a.contains(s)) return false;
    return true;
  }

  private static Set<String> names(LogicalPlan p) {
    Set<String> s = new HashSet<>();
    for (Field f : p.schema().getFields()) s.add(f.getName());
    return s;
  }
}
