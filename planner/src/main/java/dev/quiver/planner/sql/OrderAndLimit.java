package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.SortKey;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * ORDER BY, LIMIT and OFFSET: their constants and positions, and the sort and limit of a set operation or
 * parenthesized query, which may name only its output columns (by position or output name).
 */
final class OrderAndLimit {
  private OrderAndLimit() {}

  /** ORDER BY / LIMIT of a set operation or parenthesized query: over its output columns only. */
  static Rel outputs(Rel r, Select s, BindingContext cx) {
    LogicalPlan plan = r.plan();
    long[] lo = limitOffset(s, cx);
    List<SortKey> keys = sortKeys(r, s, cx);
    if (!keys.isEmpty()) plan = new LogicalPlan.Sort(plan, keys, lo[0] < 0 ? -1 : saturatedAdd(lo[0], lo[1]));
    return new Rel(limit(plan, lo), r.visible());
  }

  /** The ORDER BY of a set operation or parenthesized query as sort keys over its output columns (none without one). */
  static List<SortKey> sortKeys(Rel r, Select s, BindingContext cx) {
    List<OrderByElement> order = s instanceof ParenthesedSelect ? null : s.getOrderByElements();
    LogicalPlan plan = r.plan();
    List<SortKey> keys = new ArrayList<>();
    if (order != null && !order.isEmpty()) {
      List<Field> fields = plan.schema().getFields();
      for (OrderByElement o : order) {
        int index = -1;
        Expression e = o.getExpression();
        if (e instanceof LongValue l) {
          index = position(l) - 1;
        } else if (e instanceof net.sf.jsqlparser.schema.Column c) {
          for (int i = 0; i < r.visible().size(); i++) {
            if (r.visible().get(i).equalsIgnoreCase(ExprBinder.unquote(c.getColumnName()))) index = i;
          }
        }
        if (index < 0 || index >= fields.size()) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "ORDER BY of a set operation must name an output column: "
              + SqlPositions.snippet(e) + cx.at(e.toString()));
        }
        keys.add(sortKey(o, new Expr.ColumnRef(fields.get(index).getName(), fields.get(index).getType(), fields.get(index).isNullable())));
      }
    }
    return keys;
  }

  /** An ORDER BY / GROUP BY output position, or 0 when it is beyond any select list. */
  static int position(LongValue l) {
    if (l.getStringValue().length() > 12) return 0;
    java.math.BigInteger v = l.getBigIntegerValue();
    return v.bitLength() < 32 ? v.intValue() : 0;
  }

  static long saturatedAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }

  static LogicalPlan limit(LogicalPlan plan, long[] lo) {
    if (lo[0] < 0 && lo[1] == 0) return plan;
    return new LogicalPlan.Limit(plan, lo[0] < 0 ? Long.MAX_VALUE : lo[0], lo[1]);
  }

  /** {limit or -1, offset}. */
  static long[] limitOffset(Select ps, BindingContext cx) {
    long limit = -1;
    long offset = 0;
    if (ps.getLimit() != null) {
      if (ps.getLimit().getOffset() != null) offset = constant(ps.getLimit().getOffset(), "OFFSET", cx);
      if (ps.getLimit().getRowCount() != null && !ps.getLimit().isLimitAll() && !ps.getLimit().isLimitNull()) {
        limit = constant(ps.getLimit().getRowCount(), "LIMIT", cx);
      }
    }
    if (ps.getOffset() != null) offset = constant(ps.getOffset().getOffset(), "OFFSET", cx);
    if (ps.getFetch() != null) throw QuiverException.unsupported("FETCH FIRST (use LIMIT)");
    return new long[] {limit, offset};
  }

  private static long constant(Expression e, String what, BindingContext cx) {
    if (e instanceof LongValue l && Literals.integerValue(l).bitLength() < 64) return l.getValue();
    throw new QuiverException(ErrorCode.INVALID_QUERY, what + " must be a non-negative integer constant, not "
        + SqlPositions.snippet(e) + SqlPositions.suffix(cx.sql(), what));
  }

  static SortKey sortKey(OrderByElement o, Expr e) {
    boolean asc = o.isAsc();
    boolean nullsFirst = o.getNullOrdering() == OrderByElement.NullOrdering.NULLS_FIRST;
    return new SortKey(e, asc, nullsFirst);
  }
}
