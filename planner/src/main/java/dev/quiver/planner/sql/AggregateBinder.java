package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Binds aggregate function calls: where they are allowed, not nested, their argument and result type; equal calls
 * share one output, named uniquely in the statement, and the call is replaced by a reference to that output.
 */
final class AggregateBinder {
  private final ExprBinder binder;

  AggregateBinder(ExprBinder binder) {
    this.binder = binder;
  }

  /** An aggregate call: collected into the statement's binder.aggregates once, replaced by a reference to its output. */
  Expr aggregate(Function f, String name, AggFunc agg) {
    if (!binder.allowAggregates) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "aggregate function " + name + " is not allowed here"
          + SqlPositions.suffix(binder.sql, f.getName()));
    }
    if (binder.insideAggregate) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "aggregate function calls cannot be nested: " + SqlPositions.snippet(f));
    }
    if (agg == AggFunc.STRING_AGG) return stringAgg(f, name);
    Expr arg = null;
    // JSqlParser's isAllColumns() is the ALL set quantifier (min(ALL x) is min(x)), not a star
    boolean star = f.getParameters() != null && f.getParameters().size() == 1
        && f.getParameters().get(0) instanceof net.sf.jsqlparser.statement.select.AllColumns;
    if (star) {
      if (agg != AggFunc.COUNT) throw new QuiverException(ErrorCode.INVALID_QUERY, name + "(*) is not valid; only count(*) is");
    } else {
      if (f.getParameters() == null || f.getParameters().size() != 1) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " takes exactly one argument: " + SqlPositions.snippet(f));
      }
      binder.insideAggregate = true;
      try {
        arg = binder.bind(f.getParameters().get(0));
      } finally {
        binder.insideAggregate = false;
      }
    }
    ArrowType type = aggregateType(agg, arg, f);
    if (arg != null && agg != AggFunc.COUNT && SqlTypes.isNull(arg.type())) arg = Coercion.coerce(arg, type);
    boolean distinct = f.isDistinct() && agg != AggFunc.MIN && agg != AggFunc.MAX;
    if (f.isDistinct() && star) throw new QuiverException(ErrorCode.INVALID_QUERY, "count(DISTINCT *) is not valid: " + SqlPositions.snippet(f));
    return collect(new AggregateCall(agg, arg, type, null, distinct));
  }

  /** {@code call} (unnamed) collected once: a reference to its output, shared with an equal call's. */
  private Expr collect(AggregateCall call) {
    boolean nullable = call.func() != AggFunc.COUNT;
    for (AggregateCall existing : binder.aggregates) {
      if (existing.func() == call.func() && java.util.Objects.equals(existing.arg(), call.arg())
          && existing.distinct() == call.distinct() && java.util.Objects.equals(existing.separator(), call.separator())
          && existing.orderBy().equals(call.orderBy())) {
        return new Expr.ColumnRef(existing.name(), call.type(), nullable);
      }
    }
    String internal = binder.names != null ? binder.names.fresh("__agg") : "__agg" + binder.aggregates.size();
    binder.aggregates.add(new AggregateCall(call.func(), call.arg(), call.type(), internal, call.distinct(),
        call.separator(), call.orderBy()));
    return new Expr.ColumnRef(internal, call.type(), nullable);
  }

  /**
   * {@code string_agg(x [, separator] [ORDER BY ...])} (also spelled listagg): the non-NULL values of x as VARCHAR,
   * joined with the separator (a constant; ',' when left out), in the ORDER BY's order (else the input's); NULL for
   * a group without any.
   */
  private Expr stringAgg(Function f, String name) {
    List<Expression> params = f.getParameters() == null ? List.of() : List.copyOf(f.getParameters());
    if (params.isEmpty() || params.size() > 2 || params.get(0) instanceof net.sf.jsqlparser.statement.select.AllColumns) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " takes a value and a separator: "
          + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
    }
    Expr arg;
    Expr sep = null;
    List<LogicalPlan.SortKey> order = new ArrayList<>();
    binder.insideAggregate = true;
    try {
      arg = binder.bind(params.get(0));
      if (params.size() == 2) sep = ExprBinder.settleParameters(binder.bind(params.get(1)));
      if (f.getOrderByElements() != null) {
        for (net.sf.jsqlparser.statement.select.OrderByElement o : f.getOrderByElements()) {
          order.add(OrderAndLimit.sortKey(o, ExprBinder.settleParameters(binder.bind(o.getExpression()))));
        }
      }
    } finally {
      binder.insideAggregate = false;
    }
    String separator = ",";
    if (sep != null) {
      if (!(sep instanceof Expr.Literal l) || !(l.value() instanceof String text)) {
        throw QuiverException.unsupported(name + " with a separator that is not a string constant",
            SqlPositions.suffix(binder.sql, f.getName()));
      }
      separator = text;
    }
    if (f.isDistinct() && !order.isEmpty()) {
      throw QuiverException.unsupported(name + "(DISTINCT ... ORDER BY ...)", SqlPositions.suffix(binder.sql, f.getName()));
    }
    if (arg.type() instanceof ArrowType.Binary || !Casts.castable(arg.type(), SqlTypes.VARCHAR)) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " is not defined for "
          + SqlTypes.sqlName(arg.type()) + ": " + SqlPositions.snippet(f));
    }
    arg = Coercion.coerce(ExprBinder.settleParameters(arg), SqlTypes.VARCHAR);
    return collect(new AggregateCall(AggFunc.STRING_AGG, arg, SqlTypes.VARCHAR, null, f.isDistinct(), separator, order));
  }

  /**
   * A {@code grouping(a, b, ...)} call: its bound arguments (each must be a GROUP BY expression, checked once GROUP
   * BY is bound), the name of the column that carries its value per grouping set, and the call, for messages.
   */
  record GroupingCall(List<Expr> args, String name, Function call) {
    GroupingCall {
      args = List.copyOf(args);
    }
  }

  /**
   * {@code grouping(a, b, ...)}: a bit mask over the arguments, the leftmost the most significant, a bit 1 where the
   * row's grouping set leaves that expression out (it was aggregated away). Collected into binder.groupingCalls
   * once per distinct argument list and replaced by a reference to the BIGINT column that carries it.
   */
  Expr grouping(Function f, String name) {
    if (!binder.allowAggregates || binder.groupingCalls == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, name + "() is only allowed in the select list, HAVING and ORDER BY"
          + " of a query with GROUP BY: " + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
    }
    if (binder.insideAggregate) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, name + "() cannot be inside an aggregate function: "
          + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
    }
    List<Expression> params = f.getParameters() == null ? List.of() : List.copyOf(f.getParameters());
    if (params.isEmpty() || params.stream().anyMatch(p -> p instanceof net.sf.jsqlparser.statement.select.AllColumns)
        || f.isDistinct() || params.size() > 62) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, name + "() takes 1 to 62 GROUP BY expressions: "
          + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
    }
    List<Expr> args = new ArrayList<>();
    binder.insideAggregate = true;
    try {
      for (Expression p : params) args.add(binder.bind(p));
    } finally {
      binder.insideAggregate = false;
    }
    for (GroupingCall g : binder.groupingCalls) {
      if (g.args().equals(args)) return new Expr.ColumnRef(g.name(), SqlTypes.BIGINT, false);
    }
    String internal = binder.names != null ? binder.names.fresh("__grouping") : "__grouping" + binder.groupingCalls.size();
    binder.groupingCalls.add(new GroupingCall(args, internal, f));
    return new Expr.ColumnRef(internal, SqlTypes.BIGINT, false);
  }

  /** The aggregate function a call of {@code name} (lower case) is, or null for a scalar function. */
  static AggFunc aggregateFunction(String name) {
    return switch (name) {
      case "count" -> AggFunc.COUNT; case "sum" -> AggFunc.SUM; case "min" -> AggFunc.MIN;
      case "max" -> AggFunc.MAX; case "avg" -> AggFunc.AVG;
      case "bool_and", "every" -> AggFunc.BOOL_AND; case "bool_or" -> AggFunc.BOOL_OR;
      case "stddev", "stddev_samp" -> AggFunc.STDDEV_SAMP; case "stddev_pop" -> AggFunc.STDDEV_POP;
      case "variance", "var_samp" -> AggFunc.VAR_SAMP; case "var_pop" -> AggFunc.VAR_POP;
      case "string_agg", "listagg" -> AggFunc.STRING_AGG;
      default -> null;
    };
  }

  static ArrowType aggregateType(AggFunc agg, Expr arg, Object f) {
    if (agg == AggFunc.COUNT) return SqlTypes.BIGINT;
    ArrowType t = arg.type();
    if (SqlTypes.isNull(t)) {
      return switch (agg) {
        case AVG, STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP -> SqlTypes.DOUBLE;
        case BOOL_AND, BOOL_OR -> SqlTypes.BOOLEAN;
        default -> SqlTypes.BIGINT;
      };
    }
    switch (agg) {
      case STRING_AGG:
        return SqlTypes.VARCHAR;
      case SUM:
        if (t instanceof ArrowType.Int i) return i.getBitWidth() == 64 && !i.getIsSigned() ? SqlTypes.decimal(38, 0) : SqlTypes.BIGINT;
        if (t instanceof ArrowType.Decimal d) return SqlTypes.decimal(SqlTypes.MAX_DECIMAL_PRECISION, d.getScale());
        if (SqlTypes.isFloat(t)) return SqlTypes.DOUBLE;
        break;
      case AVG, STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP:
        if (SqlTypes.isNumeric(t)) return SqlTypes.DOUBLE;
        break;
      case BOOL_AND, BOOL_OR:
        if (SqlTypes.isBoolean(t)) return t;
        break;
      default:
        if (!(t instanceof ArrowType.Binary)) return t;
    }
    throw new QuiverException(ErrorCode.INVALID_QUERY,
        "function " + agg.name().toLowerCase(Locale.ROOT) + " is not defined for " + SqlTypes.sqlName(t) + ": " + SqlPositions.snippet(f));
  }
}
