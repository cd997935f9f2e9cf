package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.StringValue;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Binds calls: CAST, the scalar functions of {@link dev.quiver.planner.kernel.Functions} with their arguments coerced
 * as each function types them (and the SQL spellings that map to them), and the special time keywords; an aggregate
 * function's call goes to the {@link AggregateBinder}.
 */
final class CallBinder {
  private final ExprBinder binder;

  /** Quiver's version, as {@code version()} answers it (the server's SqlInfo says the same). */
  static final String VERSION = "0.1.0";

  CallBinder(ExprBinder binder) {
    this.binder = binder;
  }

  Expr cast(CastExpression c) {
    if (c.isImplicitCast() && c.getLeftExpression() instanceof StringValue text) return Literals.typedLiteral(c, text.getValue(), binder.sql);
    Expr input = binder.bind(c.getLeftExpression());
    ArrowType target = SqlTypes.parse(c.getColDataType().getDataType(),
        c.getColDataType().getArgumentsStringList() == null ? List.of() : c.getColDataType().getArgumentsStringList());
    if (!Casts.castable(input.type(), target)) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot cast " + SqlTypes.sqlName(input.type()) + " to "
          + SqlTypes.sqlName(target) + ": " + SqlPositions.snippet(c));
    }
    boolean safe = c.keyword != null && c.keyword.equalsIgnoreCase("TRY_CAST");
    return new Expr.Cast(input, target, safe);
  }

  Expr timeKey(TimeKeyExpression t) {
    String k = t.getStringValue().toUpperCase(Locale.ROOT).replace("()", "");
    return switch (k) {
      case "CURRENT_DATE" -> call("current_date", List.of(), k);
      case "CURRENT_TIMESTAMP", "NOW", "LOCALTIMESTAMP" -> call("now", List.of(), k);
      default -> throw QuiverException.unsupported(k);
    };
  }

  /** A call of a registered scalar function, with its arguments coerced as the function types them. */
  Expr call(String name, List<Expr> args, Object text) {
    dev.quiver.planner.kernel.Functions.Def def = dev.quiver.planner.kernel.Functions.lookup(name);
    if (def == null) {
      java.util.Set<String> known = new java.util.TreeSet<>(dev.quiver.planner.kernel.Functions.names());
      known.removeIf(n -> n.endsWith("_op") || n.startsWith("__"));
      throw new QuiverException(ErrorCode.NOT_FOUND, "function " + SqlPositions.snippet(name) + " does not exist"
          + Suggestions.didYouMean(name, known) + SqlPositions.suffix(binder.sql, name));
    }
    if (args.size() < def.minArgs() || args.size() > def.maxArgs()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " takes "
          + (def.minArgs() == def.maxArgs() ? def.minArgs() : def.minArgs() + ".." + def.maxArgs()) + " arguments: "
          + SqlPositions.snippet(text));
    }
    List<Expr> coerced = new ArrayList<>(args);
    switch (def.name()) {
      case "concat_op" -> coerced.replaceAll(a -> Coercion.coerce(a, SqlTypes.VARCHAR));
      case "regexp_like", "lower", "upper", "length", "trim", "strpos" -> coerced.replaceAll(a -> Coercion.coerce(a, SqlTypes.VARCHAR));
      case "substring", "round" -> {
        for (int i = 1; i < coerced.size(); i++) coerced.set(i, Coercion.coerce(coerced.get(i), SqlTypes.BIGINT));
        if (def.name().equals("substring")) coerced.set(0, Coercion.coerce(coerced.get(0), SqlTypes.VARCHAR));
        else coerced.set(0, Coercion.coerce(coerced.get(0), SqlTypes.signedView(coerced.get(0).type())));
      }
      case "abs" -> coerced.set(0, Coercion.coerce(coerced.get(0), SqlTypes.signedView(coerced.get(0).type())));
      case "pow" -> {
        for (Expr a : coerced) {
          if (!SqlTypes.isNumeric(a.type()) && !SqlTypes.isNull(a.type())) {
            throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " is not defined for "
                + SqlTypes.sqlName(a.type()) + ": " + SqlPositions.snippet(text));
          }
        }
        coerced.replaceAll(a -> Coercion.coerce(a, SqlTypes.DOUBLE));
      }
      case "date_trunc", "date_part" -> {
        coerced.set(0, Coercion.coerce(coerced.get(0), SqlTypes.VARCHAR));
        if (!SqlTypes.isTemporal(coerced.get(1).type())) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " needs a DATE or TIMESTAMP, not "
              + SqlTypes.sqlName(coerced.get(1).type()) + ": " + SqlPositions.snippet(text));
        }
      }
      case "coalesce", "nullif" -> {
        ArrowType t = coerced.get(0).type();
        for (Expr a : coerced) t = Coercion.common(t, a.type(), text);
        ArrowType common = Coercion.settled(t);
        coerced.replaceAll(a -> Coercion.coerce(a, common));
      }
      default -> { }
    }
    List<ArrowType> types = coerced.stream().map(Expr::type).toList();
    ArrowType type = def.typer().resultType(types);
    boolean nullable = switch (def.name()) {
      case "coalesce" -> coerced.stream().allMatch(Expr::nullable);
      case "nullif" -> true;
      case "now", "current_date", "random" -> false;
      default -> coerced.stream().anyMatch(Expr::nullable);
    };
    return new Expr.Call(def.name(), coerced, type, nullable, def.volatility());
  }

  Expr function(Function f) {
    String name = f.getName().toLowerCase(Locale.ROOT);
    AggFunc agg = AggregateBinder.aggregateFunction(name);
    if (name.equals("grouping") || name.equals("grouping_id")) return binder.aggregateCalls.grouping(f, name);
    if (agg == null && WindowBinder.windowFunction(name) != null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "window function " + name + " needs an OVER clause: "
          + SqlPositions.snippet(f) + SqlPositions.suffix(binder.sql, f.getName()));
    }
    boolean noArgs = f.getParameters() == null || f.getParameters().isEmpty();
    if (noArgs && f.getNamedParameters() == null) {
      // the session's facts, as constants: what BI tools and newcomers ask first
      switch (name) {
        case "version" -> { return new Expr.Literal("Quiver " + VERSION, SqlTypes.VARCHAR); }
        case "current_schema" -> { return new Expr.Literal("main", SqlTypes.VARCHAR); }
        case "current_database", "current_catalog" -> { return new Expr.Literal("quiver", SqlTypes.VARCHAR); }
        default -> { }
      }
    }
    if (agg == null) {
      List<Expr> args = new ArrayList<>();
      if (f.getParameters() != null) for (Expression x : f.getParameters()) args.add(binder.bind(x));
      if (f.getNamedParameters() != null) {
        // SQL-standard keyword arguments: substring(s FROM i FOR n), position(x IN s)
        List<String> kw = new ArrayList<>();
        for (Object n : f.getNamedParameters().getNames()) kw.add(n == null ? "" : n.toString().toLowerCase(Locale.ROOT));
        for (Object x : f.getNamedParameters().getExpressions()) args.add(binder.bind((Expression) x));
        if (name.equals("position") && kw.equals(List.of("", "in"))) return call("strpos", List.of(args.get(1), args.get(0)), f);
        boolean substringForm = (name.equals("substring") || name.equals("substr"))
            && (kw.equals(List.of("", "from")) || kw.equals(List.of("", "from", "for")));
        if (!substringForm) throw QuiverException.unsupported("the call " + SqlPositions.snippet(f));
      }
      if (name.equals("position") && args.size() == 2) return call("strpos", List.of(args.get(1), args.get(0)), f);
      String n = switch (name) {
        case "current_timestamp" -> "now";
        case "datepart" -> "date_part";
        case "substr" -> "substring";
        case "regexp_matches" -> "regexp_like";
        case "concat" -> "concat_op";
        case "power" -> "pow";
        default -> name;
      };
      if (n.equals("concat_op") && args.size() != 2) {
        Expr acc = args.isEmpty() ? new Expr.Literal("", SqlTypes.VARCHAR) : args.get(0);
        for (int i = 1; i < args.size(); i++) acc = call("concat_op", List.of(acc, args.get(i)), f);
        return acc;
      }
      return call(n, args, f);
    }
    return binder.aggregateCalls.aggregate(f, name, agg);
  }
}
