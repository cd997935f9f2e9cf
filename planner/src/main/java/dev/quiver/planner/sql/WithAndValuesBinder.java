package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.select.WithItem;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * WITH and VALUES. The common table expressions in scope form a stack of maps, one per WITH clause, innermost
 * first; a name resolves to the innermost definition. A CTE's body is analyzed where it is used, seeing only
 * the CTEs defined before it (WITH RECURSIVE is refused). VALUES rows are typed column by column at the common
 * type of their values, an all-NULL column as INTEGER.
 */
final class WithAndValuesBinder {
  private final BindingContext cx;
  private final Deque<Map<String, WithItem<?>>> ctes = new ArrayDeque<>();

  WithAndValuesBinder(BindingContext cx) {
    this.cx = cx;
  }

  /** Brings the WITH items of {@code s} into scope; true when it had some (then {@link #pop()} after). */
  boolean push(Select s) {
    if (s.getWithItemsList() == null || s.getWithItemsList().isEmpty()) return false;
    Map<String, WithItem<?>> m = new LinkedHashMap<>();
    for (WithItem<?> w : s.getWithItemsList()) {
      if (w.isRecursive()) throw QuiverException.unsupported("WITH RECURSIVE", cx.at("RECURSIVE"));
      m.put(ExprBinder.unquote(w.getAliasName()).toLowerCase(Locale.ROOT), w);
    }
    ctes.push(m);
    return true;
  }

  void pop() {
    ctes.pop();
  }

  Rel values(Values v) {
    List<List<Expression>> rows = new ArrayList<>();
    ExpressionList<?> list = v.getExpressions();
    for (Expression e : list) {
      if (e instanceof ParenthesedExpressionList<?> p) rows.add(new ArrayList<>(p));
      else if (e instanceof net.sf.jsqlparser.expression.RowConstructor<?> rc) rows.add(new ArrayList<>(rc));
      else rows.add(List.of(e));
    }
    if (rows.isEmpty()) throw new QuiverException(ErrorCode.INVALID_QUERY, "VALUES needs at least one row");
    int width = rows.get(0).size();
    List<List<Expr>> bound = new ArrayList<>();
    ExprBinder binder = cx.binder(Scope.none(), false, List.of());
    for (List<Expression> row : rows) {
      if (row.size() != width) throw new QuiverException(ErrorCode.INVALID_QUERY, "VALUES rows must all have "
          + width + " values: " + SqlPositions.snippet(row));
      List<Expr> b = new ArrayList<>();
      for (Expression e : row) b.add(ExprBinder.settleParameters(binder.bind(e)));
      bound.add(b);
    }
    List<String> visible = new ArrayList<>();
    List<String> internal = new ArrayList<>();
    for (int c = 0; c < width; c++) {
      visible.add("column" + (c + 1));
      internal.add(cx.names().unique("column" + (c + 1), "values"));
    }
    List<ArrowType> types = new ArrayList<>();
    for (int c = 0; c < width; c++) {
      ArrowType t = SqlTypes.NULL;
      for (List<Expr> row : bound) {
        ArrowType x = row.get(c).type();
        ArrowType m = SqlTypes.isNull(t) ? x : SqlTypes.isNull(x) ? t : SqlTypes.comparisonCommon(t, x);
        if (m == null) throw new QuiverException(ErrorCode.INVALID_QUERY, "VALUES column " + (c + 1) + " mixes "
            + SqlTypes.sqlName(t) + " and " + SqlTypes.sqlName(x));
        t = m;
      }
      types.add(SqlTypes.isNull(t) ? SqlTypes.INTEGER : t);
    }
    List<LogicalPlan> inputs = new ArrayList<>();
    for (List<Expr> row : bound) {
      List<NamedExpr> out = new ArrayList<>();
      for (int c = 0; c < width; c++) out.add(new NamedExpr(Coercion.coerce(row.get(c), types.get(c)), internal.get(c)));
      inputs.add(new LogicalPlan.Project(new LogicalPlan.OneRow(), out));
    }
    return new Rel(inputs.size() == 1 ? inputs.get(0) : new LogicalPlan.Union(inputs), visible);
  }

  WithItem<?> cte(String name) {
    for (Map<String, WithItem<?>> m : ctes) {
      WithItem<?> w = m.get(name.toLowerCase(Locale.ROOT));
      if (w != null) return w;
    }
    return null;
  }

  /** Runs {@code body} with CTE {@code name} hidden (a CTE's own body cannot refer to itself). */
  <T> T withoutCte(String name, java.util.function.Supplier<T> body) {
    Map<String, WithItem<?>> hidden = new HashMap<>();
    hidden.put(name.toLowerCase(Locale.ROOT), null);
    // a map with a null value shadows outer definitions: look-ups stop at the first map that has the key
    Deque<Map<String, WithItem<?>>> saved = new ArrayDeque<>(ctes);
    List<Map<String, WithItem<?>>> inner = new ArrayList<>();
    for (Map<String, WithItem<?>> m : saved) {
      if (m.containsKey(name.toLowerCase(Locale.ROOT))) break;
      inner.add(m);
    }
    // the CTE's body sees the CTEs defined before it at its own level and the outer ones
    try {
      ctes.clear();
      boolean past = false;
      for (Map<String, WithItem<?>> m : saved) {
        if (!past && m.containsKey(name.toLowerCase(Locale.ROOT))) {
          Map<String, WithItem<?>> before = new LinkedHashMap<>();
          for (var e : m.entrySet()) {
            if (e.getKey().equals(name.toLowerCase(Locale.ROOT))) break;
            before.put(e.getKey(), e.getValue());
          }
          ctes.addLast(before);
          past = true;
        } else if (past) {
          ctes.addLast(m);
        }
      }
      return body.get();
    } finally {
      ctes.clear();
      ctes.addAll(saved);
    }
  }
}
