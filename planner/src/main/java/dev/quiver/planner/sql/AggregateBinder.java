package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.Locale;
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
    AggregateCall call = new AggregateCall(agg, arg, type, null, distinct);
    for (AggregateCall existing : binder.aggregates) {
      if (existing.func() == agg && java.util.Objects.equals(existing.arg(), arg) && existing.distinct() == distinct) {
        return new Expr.ColumnRef(existing.name(), type, agg != AggFunc.COUNT);
      }
    }
    String internal = binder.names != null ? binder.names.fresh("__agg") : "__agg" + binder.aggregates.size();
    binder.aggregates.add(new AggregateCall(call.func(), arg, type, internal, distinct));
    return new Expr.ColumnRef(internal, type, agg != AggFunc.COUNT);
  }

  /** The aggregate function a call of {@code name} (lower case) is, or null for a scalar function. */
  static AggFunc aggregateFunction(String name) {
    return switch (name) {
      case "count" -> AggFunc.COUNT; case "sum" -> AggFunc.SUM; case "min" -> AggFunc.MIN;
      case "max" -> AggFunc.MAX; case "avg" -> AggFunc.AVG;
      case "bool_and", "every" -> AggFunc.BOOL_AND; case "bool_or" -> AggFunc.BOOL_OR;
      case "stddev", "stddev_samp" -> AggFunc.STDDEV_SAMP; case "stddev_pop" -> AggFunc.STDDEV_POP;
      case "variance", "var_samp" -> AggFunc.VAR_SAMP; case "var_pop" -> AggFunc.VAR_POP;
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
