package dev.quiver.planner.sql;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.BoundKind;
import dev.quiver.planner.plan.LogicalPlan.Exclude;
import dev.quiver.planner.plan.LogicalPlan.Frame;
import dev.quiver.planner.plan.LogicalPlan.FrameBound;
import dev.quiver.planner.plan.LogicalPlan.FrameUnit;
import dev.quiver.planner.plan.LogicalPlan.SortKey;
import dev.quiver.planner.plan.LogicalPlan.WindowCall;
import dev.quiver.planner.plan.LogicalPlan.WindowFunc;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.AnalyticType;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.WindowDefinition;
import net.sf.jsqlparser.expression.WindowElement;
import net.sf.jsqlparser.expression.WindowOffset;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.statement.select.OrderByElement;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Binds window function calls ({@code f(...) OVER (...)} or {@code OVER w} of a named window): the function, its
 * arguments, partition, order and frame, checked and typed; equal calls share one output, named uniquely in the
 * statement, and the call is replaced by a reference to that output. Calls are collected into the binder's
 * {@link ExprBinder#windowCalls}, which is null where window functions are not allowed (WHERE, GROUP BY, HAVING).
 */
final class WindowBinder {
  private final ExprBinder binder;

  WindowBinder(ExprBinder binder) {
    this.binder = binder;
  }

  /** The window functions that are not aggregates, by name. */
  static WindowFunc windowFunction(String name) {
    return switch (name) {
      case "row_number" -> WindowFunc.ROW_NUMBER;
      case "rank" -> WindowFunc.RANK;
      case "dense_rank" -> WindowFunc.DENSE_RANK;
      case "percent_rank" -> WindowFunc.PERCENT_RANK;
      case "cume_dist" -> WindowFunc.CUME_DIST;
      case "ntile" -> WindowFunc.NTILE;
      case "lag" -> WindowFunc.LAG;
      case "lead" -> WindowFunc.LEAD;
      case "first_value" -> WindowFunc.FIRST_VALUE;
      case "last_value" -> WindowFunc.LAST_VALUE;
      case "nth_value" -> WindowFunc.NTH_VALUE;
      default -> null;
    };
  }

  private String at(String word) {
    return SqlPositions.suffix(binder.sql, word);
  }

  /**
   * Marks that {@link SqlText} appends to a window function's (or a named window's) name for what JSqlParser cannot
   * parse: a GROUPS frame (written as RANGE) and its EXCLUDE clause (blanked).
   */
  static final String GROUPS_MARK = "__qgroups";
  static final String EXCLUDE_MARK = "__qexclude_";

  private boolean groups;
  private Exclude exclude;

  /** {@code name} without the marks, which set {@link #groups} and {@link #exclude}. */
  private String unmark(String name) {
    int g = name.toLowerCase(Locale.ROOT).indexOf(GROUPS_MARK);
    if (g >= 0) {
      groups = true;
      name = name.substring(0, g) + name.substring(g + GROUPS_MARK.length());
    }
    int x = name.toLowerCase(Locale.ROOT).indexOf(EXCLUDE_MARK);
    if (x >= 0) {
      String kind = name.substring(x + EXCLUDE_MARK.length()).toUpperCase(Locale.ROOT);
      exclude = Exclude.valueOf(kind);
      name = name.substring(0, x);
    }
    return name;
  }

  Expr window(AnalyticExpression a) {
    groups = false;
    exclude = null;
    String name = unmark(a.getName()).toLowerCase(Locale.ROOT);
    if (a.getType() != AnalyticType.OVER) {
      throw QuiverException.unsupported(a.getType().toString().replace('_', ' ') + " on " + name, at(a.getName()));
    }
    if (binder.windowCalls == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "window function " + name
          + " is not allowed here (only in the select list, QUALIFY and ORDER BY)" + at(a.getName()));
    }
    if (binder.insideAggregate) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a window function cannot be inside an aggregate function: "
          + SqlPositions.snippet(a) + at(a.getName()));
    }
    if (binder.insideWindow) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "window function calls cannot be nested: " + SqlPositions.snippet(a)
          + at(a.getName()));
    }
    if (a.isIgnoreNulls() || a.isIgnoreNullsOutside() || a.getNullHandling() != null) {
      throw QuiverException.unsupported("IGNORE NULLS / RESPECT NULLS in a window function" + at(a.getName()));
    }
    if (a.getKeep() != null || a.getFilterExpression() != null || a.getHavingClause() != null || a.getLimit() != null
        || a.getFuncOrderBy() != null && !a.getFuncOrderBy().isEmpty()) {
      throw QuiverException.unsupported("the window call " + SqlPositions.snippet(a) + at(a.getName()));
    }
    // the window: inline, or named in the WINDOW clause
    ExpressionList<?> partition = a.getPartitionExpressionList();
    List<OrderByElement> order = a.getOrderByElements();
    WindowElement element = a.getWindowElement();
    if (a.getWindowName() != null) {
      String w = ExprBinder.unquote(a.getWindowName());
      WindowDefinition def = binder.namedWindows == null ? null : binder.namedWindows.get(w.toLowerCase(Locale.ROOT));
      if (def == null) {
        throw new QuiverException(ErrorCode.NOT_FOUND, "window " + w + " does not exist (no WINDOW " + w
            + " AS (...) in this SELECT)" + at(w));
      }
      unmark(def.getWindowName());
      partition = def.getPartitionExpressionList();
      order = def.getOrderByElements();
      element = def.getWindowElement();
    }
    WindowFunc func = windowFunction(name);
    AggFunc agg = func == null ? AggregateBinder.aggregateFunction(name) : null;
    if (func == null && agg == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name
          + " is not a window function or an aggregate, so it cannot have OVER" + at(a.getName()));
    }
    if (agg != null && !agg.inWindows()) {
      throw QuiverException.unsupported(name + " as a window function (OVER)", at(a.getName()));
    }
    if (agg != null) func = WindowFunc.AGGREGATE;
    if (a.isDistinct() && func != WindowFunc.AGGREGATE) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "DISTINCT is only allowed in an aggregate: " + SqlPositions.snippet(a));
    }

    // arguments (an aggregate's may read aggregates of the GROUP BY: sum(sum(x)) OVER (...))
    List<Expression> raw = new ArrayList<>();
    boolean star = a.isAllColumns() || a.getExpression() instanceof net.sf.jsqlparser.statement.select.AllColumns;
    if (a.getExpression() != null && !star) raw.add(a.getExpression());
    if (a.getOffset() != null) raw.add(a.getOffset());
    if (a.getDefaultValue() != null) raw.add(a.getDefaultValue());
    if (star && agg != AggFunc.COUNT) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, name + "(*) is not valid; only count(*) is" + at(a.getName()));
    }
    int[] arity = switch (func) {
      case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST -> new int[] {0, 0};
      case NTILE, FIRST_VALUE, LAST_VALUE -> new int[] {1, 1};
      case LAG, LEAD -> new int[] {1, 3};
      case NTH_VALUE -> new int[] {2, 2};
      case AGGREGATE -> star ? new int[] {0, 0} : agg == AggFunc.STRING_AGG ? new int[] {1, 2} : new int[] {1, 1};
    };
    if (raw.size() < arity[0] || raw.size() > arity[1]) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "window function " + name + " takes "
          + (arity[0] == arity[1] ? String.valueOf(arity[0]) : arity[0] + ".." + arity[1]) + " argument"
          + (arity[1] == 1 ? "" : "s") + ": " + SqlPositions.snippet(a) + at(a.getName()));
    }
    List<Expr> args = new ArrayList<>();
    List<Expr> partitionBy = new ArrayList<>();
    List<SortKey> orderBy = new ArrayList<>();
    binder.insideWindow = true;
    try {
      for (Expression x : raw) args.add(ExprBinder.settleParameters(binder.bind(x)));
      if (partition != null) {
        for (Object o : partition) partitionBy.add(typedNull(ExprBinder.settleParameters(binder.bind((Expression) o))));
      }
      if (order != null) {
        for (OrderByElement o : order) {
          orderBy.add(OrderAndLimit.sortKey(o, typedNull(ExprBinder.settleParameters(binder.bind(o.getExpression())))));
        }
      }
    } finally {
      binder.insideWindow = false;
    }

    ArrowType type;
    boolean nullable = true;
    switch (func) {
      case ROW_NUMBER, RANK, DENSE_RANK -> {
        type = SqlTypes.BIGINT;
        nullable = false;
      }
      case PERCENT_RANK, CUME_DIST -> {
        type = SqlTypes.DOUBLE;
        nullable = false;
      }
      case NTILE -> {
        args.set(0, positiveCount(args.get(0), name, raw.get(0)));
        type = SqlTypes.BIGINT;
        nullable = args.get(0).nullable();
      }
      case NTH_VALUE -> {
        args.set(0, typedNull(args.get(0)));
        args.set(1, positiveCount(args.get(1), name, raw.get(1)));
        type = args.get(0).type();
      }
      case FIRST_VALUE, LAST_VALUE -> {
        args.set(0, typedNull(args.get(0)));
        type = args.get(0).type();
      }
      case LAG, LEAD -> {
        if (args.size() > 1) args.set(1, integerArg(args.get(1), name + " offset", raw.get(1)));
        ArrowType t = args.get(0).type();
        if (args.size() > 2) {
          t = Coercion.settled(Coercion.common(t, args.get(2).type(), a));
        } else if (SqlTypes.isNull(t)) {
          t = SqlTypes.INTEGER;
        }
        ArrowType common = SqlTypes.isNull(t) ? SqlTypes.INTEGER : t;
        args.set(0, Coercion.coerce(args.get(0), common));
        if (args.size() > 2) args.set(2, Coercion.coerce(args.get(2), common));
        type = common;
      }
      default -> { // AGGREGATE
        if (agg == AggFunc.STRING_AGG) {
          // the value as VARCHAR, then the separator: a string constant (',' when left out)
          if (args.size() == 2 && !(args.get(1) instanceof Expr.Literal l && l.value() instanceof String)) {
            throw QuiverException.unsupported(name + " with a separator that is not a string constant", at(a.getName()));
          }
          if (args.size() == 1) args.add(new Expr.Literal(",", SqlTypes.VARCHAR));
          if (args.get(0).type() instanceof ArrowType.Binary || !dev.quiver.planner.kernel.Casts.castable(args.get(0).type(), SqlTypes.VARCHAR)) {
            throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " is not defined for "
                + SqlTypes.sqlName(args.get(0).type()) + ": " + SqlPositions.snippet(a));
          }
          args.set(0, Coercion.coerce(args.get(0), SqlTypes.VARCHAR));
        }
        Expr arg = args.isEmpty() ? null : args.get(0);
        type = AggregateBinder.aggregateType(agg, arg, a);
        if (arg != null && agg != AggFunc.COUNT && SqlTypes.isNull(arg.type())) args.set(0, Coercion.coerce(arg, type));
        nullable = agg != AggFunc.COUNT;
      }
    }
    boolean framed = func == WindowFunc.AGGREGATE || func == WindowFunc.FIRST_VALUE || func == WindowFunc.LAST_VALUE
        || func == WindowFunc.NTH_VALUE;
    Frame frame = frame(element, orderBy);
    if (!framed) frame = null;
    boolean distinct = a.isDistinct() && agg != AggFunc.MIN && agg != AggFunc.MAX;
    for (WindowCall existing : binder.windowCalls) {
      WindowCall same = new WindowCall(func, agg, distinct, args, partitionBy, orderBy, frame, type, nullable, existing.name());
      if (same.equals(existing)) return new Expr.ColumnRef(existing.name(), type, nullable);
    }
    String internal = binder.names != null ? binder.names.fresh("__win") : "__win" + binder.windowCalls.size();
    binder.windowCalls.add(new WindowCall(func, agg, distinct, args, partitionBy, orderBy, frame, type, nullable, internal));
    return new Expr.ColumnRef(internal, type, nullable);
  }

  /** The frame of {@code element}, or the standard's default without one. */
  private Frame frame(WindowElement element, List<SortKey> orderBy) {
    if (element == null) {
      return exclude == null ? Frame.DEFAULT : new Frame(Frame.DEFAULT.unit(), Frame.DEFAULT.start(), Frame.DEFAULT.end(), exclude);
    }
    FrameUnit unit = element.getType() == WindowElement.Type.ROWS ? FrameUnit.ROWS
        : groups ? FrameUnit.GROUPS : FrameUnit.RANGE;
    FrameBound start;
    FrameBound end;
    if (element.getRange() != null) {
      start = bound(element.getRange().getStart(), unit, orderBy);
      end = bound(element.getRange().getEnd(), unit, orderBy);
    } else {
      start = bound(element.getOffset(), unit, orderBy);
      end = new FrameBound(BoundKind.CURRENT_ROW, null);
    }
    String text = groups ? element.toString().replaceFirst("^RANGE", "GROUPS") : element.toString();
    if (start.kind() == BoundKind.UNBOUNDED_FOLLOWING) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a frame cannot start at UNBOUNDED FOLLOWING: " + text + at("UNBOUNDED"));
    }
    if (end.kind() == BoundKind.UNBOUNDED_PRECEDING) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a frame cannot end at UNBOUNDED PRECEDING: " + text + at("UNBOUNDED"));
    }
    if (start.kind() == BoundKind.CURRENT_ROW && end.kind() == BoundKind.PRECEDING
        || start.kind() == BoundKind.FOLLOWING && (end.kind() == BoundKind.PRECEDING || end.kind() == BoundKind.CURRENT_ROW)) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a frame starting at " + start.kind() + " cannot end at "
          + end.kind() + ": " + text + at(unit.toString()));
    }
    if (unit != FrameUnit.ROWS && orderBy.isEmpty() && (start.offset() != null || end.offset() != null)) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, unit + " with an offset PRECEDING or FOLLOWING needs an ORDER BY in the window: "
          + text + at(unit.toString()));
    }
    if (unit == FrameUnit.RANGE && (start.offset() != null || end.offset() != null)) {
      ArrowType key = orderBy.size() == 1 ? orderBy.get(0).expr().type() : null;
      if (key == null || !SqlTypes.isNumeric(key) || key instanceof ArrowType.Int i && !i.getIsSigned() && i.getBitWidth() == 64) {
        throw QuiverException.unsupported("RANGE with an offset other than over one numeric ORDER BY key: " + text
            + at(unit.toString()));
      }
    }
    return new Frame(unit, start, end, exclude == null ? Exclude.NO_OTHERS : exclude);
  }

  private FrameBound bound(WindowOffset o, FrameUnit unit, List<SortKey> orderBy) {
    if (o.getType() == WindowOffset.Type.CURRENT) return new FrameBound(BoundKind.CURRENT_ROW, null);
    boolean preceding = o.getType() == WindowOffset.Type.PRECEDING;
    if (o.getType() != WindowOffset.Type.PRECEDING && o.getType() != WindowOffset.Type.FOLLOWING) {
      throw QuiverException.unsupported("the frame bound " + o);
    }
    if (o.getExpression() == null) {
      return new FrameBound(preceding ? BoundKind.UNBOUNDED_PRECEDING : BoundKind.UNBOUNDED_FOLLOWING, null);
    }
    Expression x = o.getExpression();
    Expr e = binder.bind(x);
    String text = SqlPositions.snippet(x);
    Object v = e instanceof Expr.Literal l ? l.value() : null;
    if (e instanceof Expr.Literal l && l.value() == null || v == null && !(e instanceof Expr.Literal)) {
      if (e.toString().startsWith("-") || text.startsWith("-")) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "a frame offset must not be negative: " + text + " " + o.getType()
            + at(text));
      }
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a frame offset must be a constant number, not " + text + at(text));
    }
    if (!SqlTypes.isNumeric(e.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a frame offset must be a number, not " + SqlTypes.sqlName(e.type())
          + ": " + text + at(text));
    }
    BigDecimal d = v instanceof BigDecimal b ? b : v instanceof Double dd ? BigDecimal.valueOf(dd) : BigDecimal.valueOf((Long) v);
    if (d.signum() < 0) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a frame offset must not be negative: " + text + " " + o.getType() + at(text));
    }
    if (unit != FrameUnit.RANGE && (!SqlTypes.isInteger(e.type()))) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, unit + " frame offsets must be integers, not " + text + at(text));
    }
    Expr.Literal lit = (Expr.Literal) e;
    if (unit == FrameUnit.RANGE) {
      // the offset in the ORDER BY key's type, so that key ± offset is computed in it
      ArrowType keyType = orderBy.isEmpty() ? e.type() : orderBy.get(0).expr().type();
      if (SqlTypes.isFloat(keyType)) lit = new Expr.Literal(d.doubleValue(), SqlTypes.DOUBLE);
      else if (SqlTypes.isDecimal(keyType)) lit = new Expr.Literal(d, SqlTypes.decimal(38, Math.max(0, d.scale())));
      else if (d.stripTrailingZeros().scale() > 0) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "a RANGE offset over an integer ORDER BY key must be an integer, not "
            + text + at(text));
      } else lit = new Expr.Literal(d.longValueExact(), SqlTypes.BIGINT);
    } else {
      lit = new Expr.Literal(d.longValueExact(), SqlTypes.BIGINT);
    }
    return new FrameBound(preceding ? BoundKind.PRECEDING : BoundKind.FOLLOWING, lit);
  }

  /** ntile's bucket count and nth_value's n: BIGINT, greater than zero when constant (else checked per row). */
  private Expr positiveCount(Expr e, String name, Expression text) {
    Expr c = integerArg(e, name + " argument", text);
    if (e instanceof Expr.Literal l && l.value() instanceof Number n && n.longValue() <= 0) {
      long v = n.longValue();
      throw new QuiverException(ErrorCode.INVALID_QUERY, "argument of " + name + " must be greater than zero, not " + v
          + at(name));
    }
    return c;
  }

  private Expr integerArg(Expr e, String what, Expression text) {
    if (SqlTypes.isNull(e.type())) return Coercion.coerce(e, SqlTypes.BIGINT);
    if (!SqlTypes.isInteger(e.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, what + " must be an integer, not " + SqlTypes.sqlName(e.type()) + ": "
          + SqlPositions.snippet(text));
    }
    return Coercion.coerce(e, SqlTypes.BIGINT);
  }

  private static Expr typedNull(Expr e) {
    return SqlTypes.isNull(e.type()) ? Coercion.coerce(e, SqlTypes.INTEGER) : e;
  }

  /** The named windows of a SELECT's WINDOW clause, by lower-case name. */
  static Map<String, WindowDefinition> named(List<WindowDefinition> defs) {
    Map<String, WindowDefinition> m = new java.util.HashMap<>();
    if (defs == null) return m;
    for (WindowDefinition d : defs) {
      String n = ExprBinder.unquote(d.getWindowName()).toLowerCase(Locale.ROOT);
      int mark = n.indexOf("__q");
      if (mark > 0) n = n.substring(0, mark);
      if (m.put(n, d) != null) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "window " + n + " is defined twice in the WINDOW clause");
      }
    }
    return m;
  }
}
