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
    allowed(f, name, f.getName());
    if (agg == AggFunc.STRING_AGG) return stringAgg(f, name);
    if (agg == AggFunc.PERCENTILE_CONT || agg == AggFunc.PERCENTILE_DISC) return quantile(f, name, agg);
    if (agg.twoArguments()) return twoArguments(f, name, agg);
    Expr arg = null;
    // JSqlParser's isAllColumns() is the ALL set quantifier (min(ALL x) is min(x)), not a star
    boolean star = f.getParameters() != null && f.getParameters().size() == 1
        && f.getParameters().get(0) instanceof net.sf.jsqlparser.statement.select.AllColumns;
    if (star) {
      if (agg != AggFunc.COUNT) throw new QuiverException(ErrorCode.INVALID_QUERY, name + "(*) is not valid; only count(*) is");
    } else {
      if (f.getParameters() == null || f.getParameters().size() != 1) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " takes exactly one argument: "
            + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
      }
      binder.insideAggregate = true;
      try {
        arg = binder.bind(f.getParameters().get(0));
      } finally {
        binder.insideAggregate = false;
      }
    }
    ArrowType type = aggregateType(agg, arg, f);
    if (arg != null && !agg.countsRows() && SqlTypes.isNull(arg.type())) arg = Coercion.coerce(arg, type);
    if (agg == AggFunc.MEDIAN) arg = Coercion.coerce(arg, SqlTypes.DOUBLE); // interpolated in DOUBLE
    // min, max and approx_count_distinct are the same over the distinct values
    boolean distinct = f.isDistinct() && agg != AggFunc.MIN && agg != AggFunc.MAX && agg != AggFunc.APPROX_COUNT_DISTINCT;
    if (f.isDistinct() && star) throw new QuiverException(ErrorCode.INVALID_QUERY, "count(DISTINCT *) is not valid: " + SqlPositions.snippet(f));
    return collect(new AggregateCall(agg, arg, type, null, distinct));
  }

  /** Fails an aggregate call where aggregates are not allowed, or inside another's argument. */
  private void allowed(Object call, String name, String written) {
    if (!binder.allowAggregates) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "aggregate function " + name + " is not allowed here"
          + SqlPositions.suffix(binder.sql, written));
    }
    if (binder.insideAggregate) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "aggregate function calls cannot be nested: "
          + SqlPositions.snippet(call) + SqlPositions.suffix(binder.sql, written));
    }
  }

  /** The arguments of {@code f} (no star), bound inside an aggregate; {@code count} of them, else an error. */
  private List<Expr> arguments(Function f, String name, int count, String what) {
    List<Expression> params = f.getParameters() == null ? List.of() : List.copyOf(f.getParameters());
    if (params.size() != count || params.stream().anyMatch(p -> p instanceof net.sf.jsqlparser.statement.select.AllColumns)) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " takes " + what + ": "
          + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
    }
    List<Expr> args = new ArrayList<>();
    for (Expression p : params) args.add(bindArgument(p));
    return args;
  }

  /**
   * A two-argument aggregate: {@code corr(y, x)}, {@code covar_pop}, {@code covar_samp}, {@code regr_*(y, x)} over
   * numbers (read as DOUBLE), and {@code arg_min(arg, val)} / {@code arg_max} (arg of any type, val of one that
   * orders).
   */
  private Expr twoArguments(Function f, String name, AggFunc agg) {
    List<Expr> args = arguments(f, name, 2, "exactly two arguments");
    if (f.isDistinct()) {
      throw QuiverException.unsupported(name + "(DISTINCT ...)", SqlPositions.suffix(binder.sql, f.getName()));
    }
    Expr first = args.get(0);
    Expr second = args.get(1);
    ArrowType type;
    if (agg == AggFunc.ARG_MIN || agg == AggFunc.ARG_MAX) {
      if (second.type() instanceof ArrowType.Binary) throw notDefined(name, second.type(), f);
      if (SqlTypes.isNull(first.type())) first = Coercion.coerce(first, SqlTypes.BIGINT);
      if (SqlTypes.isNull(second.type())) second = Coercion.coerce(second, SqlTypes.BIGINT);
      type = first.type();
    } else {
      for (Expr a : args) {
        if (!SqlTypes.isNumeric(a.type()) && !SqlTypes.isNull(a.type())) throw notDefined(name, a.type(), f);
      }
      first = Coercion.coerce(first, SqlTypes.DOUBLE);
      second = Coercion.coerce(second, SqlTypes.DOUBLE);
      type = agg == AggFunc.REGR_COUNT ? SqlTypes.BIGINT : SqlTypes.DOUBLE;
    }
    return collect(new AggregateCall(agg, first, type, null, false, null, List.of(), second, null));
  }

  /**
   * {@code quantile_cont(x, f)} / {@code quantile_disc(x, f)} (DuckDB's spellings; also {@code quantile},
   * {@code approx_quantile} and {@code approx_percentile}, computed exactly as quantile_disc):
   * percentile_cont / percentile_disc of x at the constant fraction f.
   */
  private Expr quantile(Function f, String name, AggFunc agg) {
    if (name.startsWith("percentile_")) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, name + " needs WITHIN GROUP (ORDER BY ...): " + SqlPositions.snippet(f)
          + " (or quantile_" + name.substring("percentile_".length()) + "(x, fraction))" + SqlPositions.suffix(binder.sql, f.getName()));
    }
    List<Expression> params = f.getParameters() == null ? List.of() : List.copyOf(f.getParameters());
    if (params.size() != 2) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " takes a value and a fraction: "
          + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
    }
    LogicalPlan.Quantile q = fraction(params.get(1), false, name, f.getName());
    return percentile(agg, bindArgument(params.get(0)), q, f.isDistinct(), name, f);
  }

  /** {@code percentile_cont(f) WITHIN GROUP (ORDER BY x [DESC])}, {@code percentile_disc(...)}. */
  Expr withinGroup(net.sf.jsqlparser.expression.AnalyticExpression a) {
    String name = a.getName().toLowerCase(Locale.ROOT);
    allowed(a, name, a.getName());
    AggFunc agg = aggregateFunction(name);
    if (!name.equals("percentile_cont") && !name.equals("percentile_disc")) {
      throw QuiverException.unsupported("WITHIN GROUP on " + name + " (only percentile_cont and percentile_disc take it)",
          SqlPositions.suffix(binder.sql, a.getName()));
    }
    List<net.sf.jsqlparser.statement.select.OrderByElement> order = a.getOrderByElements();
    if (a.getExpression() == null || a.getOffset() != null || order == null || order.size() != 1 || a.isDistinct()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, name + " takes one fraction and WITHIN GROUP (ORDER BY one value): "
          + SqlPositions.snippet(a) + SqlPositions.suffix(binder.sql, a.getName()));
    }
    LogicalPlan.Quantile q = fraction(a.getExpression(), !order.get(0).isAsc(), name, a.getName());
    return percentile(agg, bindArgument(order.get(0).getExpression()), q, false, name, a);
  }

  /** {@code e} bound as an aggregate's argument. */
  private Expr bindArgument(Expression e) {
    binder.insideAggregate = true;
    try {
      return ExprBinder.settleParameters(binder.bind(e));
    } finally {
      binder.insideAggregate = false;
    }
  }

  private Expr percentile(AggFunc agg, Expr arg, LogicalPlan.Quantile q, boolean distinct, String name, Object call) {
    ArrowType type = aggregateType(agg, arg, call);
    arg = Coercion.coerce(arg, agg == AggFunc.PERCENTILE_CONT ? SqlTypes.DOUBLE : type);
    return collect(new AggregateCall(agg, arg, type, null, distinct, null, List.of(), null, q));
  }

  /**
   * A percentile's fraction: a numeric constant from 0 to 1, kept exact when written as an exact number (0.25, 1)
   * and as a DOUBLE otherwise (2.5e-1).
   */
  private LogicalPlan.Quantile fraction(Expression text, boolean descending, String name, String written) {
    Expr e = ExprBinder.settleParameters(binder.bind(text));
    Object v = null;
    if (e instanceof Expr.Literal l) {
      v = l.value();
    } else if (e instanceof Expr.Cast c && c.input() instanceof Expr.Literal l && l.value() != null
        && !Parameters.isMarker(l) && SqlTypes.isNumeric(l.type())) {
      v = Casts.cast(l.value(), l.type(), c.type());
    }
    Number f = !SqlTypes.isNumeric(e.type()) ? null : v instanceof java.math.BigDecimal b ? b
        : v instanceof Long x ? java.math.BigDecimal.valueOf(x) : v instanceof Double d ? d : null;
    boolean inRange = f instanceof java.math.BigDecimal b ? b.signum() >= 0 && b.compareTo(java.math.BigDecimal.ONE) <= 0
        : f != null && f.doubleValue() >= 0 && f.doubleValue() <= 1;
    if (!inRange) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the fraction of " + name + " must be a constant from 0 to 1, not "
          + SqlPositions.snippet(text) + SqlPositions.suffix(binder.sql, written));
    }
    return new LogicalPlan.Quantile(f, descending);
  }

  private QuiverException notDefined(String name, ArrowType t, Object call) {
    return new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " is not defined for " + SqlTypes.sqlName(t)
        + ": " + SqlPositions.snippet(call));
  }

  /** {@code call} (unnamed) collected once: a reference to its output, shared with an equal call's. */
  private Expr collect(AggregateCall call) {
    boolean nullable = !call.func().countsRows();
    for (AggregateCall existing : binder.aggregates) {
      if (existing.withName(null).equals(call)) return new Expr.ColumnRef(existing.name(), call.type(), nullable);
    }
    String internal = binder.names != null ? binder.names.fresh("__agg") : "__agg" + binder.aggregates.size();
    binder.aggregates.add(call.withName(internal));
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
      case "median" -> AggFunc.MEDIAN;
      case "percentile_cont", "quantile_cont" -> AggFunc.PERCENTILE_CONT;
      // the approximate percentiles are computed exactly, as the discrete percentile (a value of the data)
      case "percentile_disc", "quantile_disc", "quantile", "approx_quantile", "approx_percentile" -> AggFunc.PERCENTILE_DISC;
      case "approx_count_distinct" -> AggFunc.APPROX_COUNT_DISTINCT;
      case "arg_min", "argmin", "min_by" -> AggFunc.ARG_MIN;
      case "arg_max", "argmax", "max_by" -> AggFunc.ARG_MAX;
      case "corr" -> AggFunc.CORR; case "covar_pop" -> AggFunc.COVAR_POP; case "covar_samp" -> AggFunc.COVAR_SAMP;
      case "regr_slope" -> AggFunc.REGR_SLOPE; case "regr_intercept" -> AggFunc.REGR_INTERCEPT;
      case "regr_r2" -> AggFunc.REGR_R2; case "regr_count" -> AggFunc.REGR_COUNT;
      case "regr_avgx" -> AggFunc.REGR_AVGX; case "regr_avgy" -> AggFunc.REGR_AVGY;
      case "regr_sxx" -> AggFunc.REGR_SXX; case "regr_syy" -> AggFunc.REGR_SYY; case "regr_sxy" -> AggFunc.REGR_SXY;
      default -> null;
    };
  }

  static ArrowType aggregateType(AggFunc agg, Expr arg, Object f) {
    if (agg == AggFunc.COUNT || agg == AggFunc.APPROX_COUNT_DISTINCT) return SqlTypes.BIGINT;
    ArrowType t = arg.type();
    if (SqlTypes.isNull(t)) {
      return switch (agg) {
        case AVG, STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP, MEDIAN, PERCENTILE_CONT -> SqlTypes.DOUBLE;
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
      case AVG, STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP, MEDIAN, PERCENTILE_CONT:
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
