package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.ArithOp;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.ExtractExpression;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.operators.arithmetic.Concat;
import net.sf.jsqlparser.expression.operators.relational.IsBooleanExpression;
import net.sf.jsqlparser.expression.operators.relational.IsDistinctExpression;
import net.sf.jsqlparser.expression.operators.relational.IsUnknownExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Modulo;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Binds JSqlParser expressions to the typed {@link Expr} IR: resolves column names against a
 * {@link Scope}, types literals, and inserts the implicit CASTs of type coercion. Aggregate calls are
 * collected into {@link #aggregates()} and replaced by references to their output column.
 * This class walks the tree and resolves names; by kind, the nodes are bound by {@link Literals},
 * {@link ArithmeticBinder}, {@link PredicateBinder}, {@link CallBinder} and {@link AggregateBinder}, with the
 * types met by {@link Coercion}.
 */
public final class ExprBinder {
  final String sql;
  private final Scope scope;
  final boolean allowAggregates;
  final List<AggregateCall> aggregates;
  private final List<String> bareColumns = new ArrayList<>();
  boolean insideAggregate;
  boolean constantsTakeOtherSideType;
  private Parameters parameters;
  Names names;
  private Subqueries subqueries;
  SqlLimits limits = SqlLimits.DEFAULT;
  final ArithmeticBinder arithmetic = new ArithmeticBinder(this);
  final PredicateBinder predicates = new PredicateBinder(this);
  final CallBinder calls = new CallBinder(this);
  final AggregateBinder aggregateCalls = new AggregateBinder(this);
  final WindowBinder windows = new WindowBinder(this);
  /** Where window calls are collected; null where they are not allowed. */
  List<dev.quiver.planner.plan.LogicalPlan.WindowCall> windowCalls;
  /** Where grouping() calls are collected (the select list, HAVING and ORDER BY); null where they are not allowed. */
  List<AggregateBinder.GroupingCall> groupingCalls;
  /** The WINDOW clause's named windows, by lower-case name. */
  java.util.Map<String, net.sf.jsqlparser.expression.WindowDefinition> namedWindows;
  boolean insideWindow;
  /** Select-list aliases a name may also mean when it is no column (QUALIFY), by lower-case alias; or null. */
  java.util.Map<String, Expr> outputAliases;
  /** The nesting depth of the statement's expressions and subqueries (one tracker per statement). */
  private NestingDepth depth;

  /** Plans subqueries met inside expressions (scalar subqueries); without it they are unsupported. */
  interface Subqueries {
    /** A scalar subquery's value: a reference to the column that carries it. */
    Expr scalar(Select subquery);

    /** {@code [NOT] EXISTS (subquery)} as a value (not an AND-term of WHERE, which becomes a semi/anti join). */
    Expr exists(net.sf.jsqlparser.expression.operators.relational.ExistsExpression exists);

    /** {@code value IN (subquery)} as a three-valued value (not an AND-term of WHERE); {@code written} for messages. */
    Expr in(Expr value, Select subquery, Expression written);

    /**
     * Whether the next subquery is met inside an aggregate function's argument: its join then comes before the
     * aggregation (the others' after it, where they read group keys and aggregates).
     */
    default void insideAggregate(boolean inside) {
    }

    /** {@code value op ANY|SOME|ALL (subquery)} as a three-valued value. */
    Expr any(Expr.CmpOp op, Expr value, Select subquery, boolean all, Expression written);
  }

  /** The subquery planner of this binder, checked for use here. */
  Subqueries subqueries(Expression where) {
    if (subqueries == null) throw QuiverException.unsupported("a subquery here: " + SqlPositions.snippet(where));
    subqueries.insideAggregate(insideAggregate);
    return subqueries;
  }

  /**
   * {@code agg(x) FILTER (WHERE c)} as {@code agg(CASE WHEN c THEN x END)} ({@code count(*)}: {@code count(CASE WHEN c
   * THEN 1 END)}): exact for every aggregate Quiver has, since each skips NULL inputs and rows the filter rejects
   * become NULL inputs; with DISTINCT too, as rejected rows add no value.
   */
  private static Function filtered(net.sf.jsqlparser.expression.AnalyticExpression a) {
    Expression value = a.isAllColumns() || a.getExpression() == null
        || a.getExpression() instanceof net.sf.jsqlparser.statement.select.AllColumns
        ? new net.sf.jsqlparser.expression.LongValue(1) : a.getExpression();
    net.sf.jsqlparser.expression.CaseExpression when = new net.sf.jsqlparser.expression.CaseExpression(
        new net.sf.jsqlparser.expression.WhenClause(a.getFilterExpression(), value));
    Function f = new Function();
    f.setName(a.getName());
    // string_agg's separator and ORDER BY come along
    f.setParameters(a.getOffset() == null ? new net.sf.jsqlparser.expression.operators.relational.ExpressionList<>(when)
        : new net.sf.jsqlparser.expression.operators.relational.ExpressionList<>(when, a.getOffset()));
    if (a.getFuncOrderBy() != null) f.setOrderByElements(a.getFuncOrderBy());
    f.setDistinct(a.isDistinct());
    return f;
  }

  /** Names aggregate outputs uniquely in the statement. */
  ExprBinder withNames(Names n) {
    this.names = n;
    return this;
  }

  /** Binds within {@code l}, counting nesting in {@code nesting} (one per statement, across subqueries). */
  ExprBinder withLimits(SqlLimits l, NestingDepth nesting) {
    this.limits = l;
    this.depth = nesting;
    return this;
  }

  ExprBinder withSubqueries(Subqueries s) {
    this.subqueries = s;
    return this;
  }

  /** Binds {@code ?} markers through {@code p} (without it, a {@code ?} is an error). */
  ExprBinder withParameters(Parameters p) {
    this.parameters = p;
    return this;
  }

  /** {@code e} with every parameter that got no type from its context bound as VARCHAR. */
  static Expr settleParameters(Expr e) {
    return dev.quiver.planner.expr.Exprs.transformUp(e, x -> Parameters.isMarker(x) ? Coercion.coerce(x, SqlTypes.VARCHAR) : x);
  }

  ExprBinder(String sql, Scope scope, boolean allowAggregates, List<AggregateCall> aggregates) {
    this.sql = sql;
    this.scope = scope;
    this.allowAggregates = allowAggregates;
    this.aggregates = aggregates;
    this.depth = new NestingDepth(limits, sql);
  }

  /**
   * A binder for a stand-alone predicate over {@code scope}. With {@code constantsTakeOtherSideType},
   * a constant compared with (or listed against) a non-constant expression is cast to that
   * expression's type instead of the two meeting at a common type: the literal typing of the
   * simplifier's conformance table ("a plain literal has already been coerced exactly to T").
   */
  public static ExprBinder forPredicate(String sql, Scope scope, boolean constantsTakeOtherSideType) {
    ExprBinder b = new ExprBinder(sql, scope, false, List.of());
    b.constantsTakeOtherSideType = constantsTakeOtherSideType;
    return b;
  }

  /** Binds a predicate: it must be BOOLEAN (an untyped NULL becomes a BOOLEAN NULL). */
  public Expr bindPredicate(Expression e) {
    Expr b = bind(e);
    if (SqlTypes.isNull(b.type())) return Coercion.coerce(b, SqlTypes.BOOLEAN);
    if (!SqlTypes.isBoolean(b.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY,
          "WHERE must be a BOOLEAN expression, not " + SqlTypes.sqlName(b.type()) + ": " + SqlPositions.snippet(e));
    }
    return b;
  }


  /** Columns referenced outside of any aggregate call. */
  List<String> bareColumns() {
    return bareColumns;
  }

  Expr bind(Expression e) {
    if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) return bind(p.get(0));
    // every walk of the bound tree recurses: bound its depth before one of them overflows the stack
    depth.enter();
    try {
      return bindNode(e);
    } catch (QuiverException q) {
      throw positioned(q, e);
    } finally {
      depth.exit();
    }
  }

  private static final java.util.regex.Pattern POSITIONED = java.util.regex.Pattern.compile("\\d+:\\d+\\)?$|\\d+:\\d+[:,) ]");

  /**
   * {@code q} with the {@code line:column} of the innermost expression whose text is found in the statement, when
   * its message names no position yet ("cannot compare DATE with INTEGER: l_shipdate < 5" had none).
   */
  private QuiverException positioned(QuiverException q, Expression e) {
    String m = q.getMessage();
    boolean bindError = q.code() == ErrorCode.INVALID_QUERY || q.code() == ErrorCode.NOT_FOUND
        || q.code() == ErrorCode.UNSUPPORTED;
    if (!bindError || m == null || POSITIONED.matcher(m).find()) return q;
    String at = SqlPositions.located(sql, e);
    return at.isEmpty() ? q : new QuiverException(q.code(), m + at, q);
  }

  private Expr bindNode(Expression e) {
    if (e instanceof Column c) return column(c);
    if (e instanceof LongValue l) return Literals.integer(Literals.integerValue(l));
    if (e instanceof DoubleValue d) return Literals.decimalLiteral(d.toString());
    if (e instanceof StringValue s) return new Expr.Literal(s.getValue().replace("''", "'"), SqlTypes.VARCHAR);
    if (e instanceof NullValue) return Expr.Literal.nullOf(SqlTypes.NULL);
    if (e instanceof BooleanValue b) return b.getValue() ? Expr.Literal.TRUE : Expr.Literal.FALSE;
    if (e instanceof DateTimeLiteralExpression d) return Literals.dateTimeLiteral(d, sql);
    if (e instanceof SignedExpression s) return arithmetic.signed(s);
    if (e instanceof Addition a) return arithmetic.arithmetic(ArithOp.ADD, a);
    if (e instanceof Subtraction a) return arithmetic.arithmetic(ArithOp.SUBTRACT, a);
    if (e instanceof Multiplication a) return arithmetic.arithmetic(ArithOp.MULTIPLY, a);
    if (e instanceof Division a) return arithmetic.arithmetic(ArithOp.DIVIDE, a);
    if (e instanceof Modulo a) return arithmetic.arithmetic(ArithOp.MODULO, a);
    if (e instanceof EqualsTo c) return predicates.comparison(CmpOp.EQ, c);
    if (e instanceof NotEqualsTo c) return predicates.comparison(CmpOp.NE, c);
    if (e instanceof MinorThan c) return predicates.comparison(CmpOp.LT, c);
    if (e instanceof MinorThanEquals c) return predicates.comparison(CmpOp.LE, c);
    if (e instanceof GreaterThan c) return predicates.comparison(CmpOp.GT, c);
    if (e instanceof GreaterThanEquals c) return predicates.comparison(CmpOp.GE, c);
    if (e instanceof AndExpression || e instanceof OrExpression) return chain(e);
    if (e instanceof NotExpression n) return new Expr.Not(bool(n.getExpression(), "NOT"));
    if (e instanceof IsNullExpression n) return new Expr.IsNull(bind(n.getLeftExpression()), n.isNot());
    if (e instanceof InExpression in) return predicates.in(in);
    if (e instanceof Between b) return predicates.between(b);
    if (e instanceof CastExpression c) return calls.cast(c);
    if (e instanceof Function f) return calls.function(f);
    if (e instanceof net.sf.jsqlparser.expression.AnalyticExpression a) {
      if (a.getType() == net.sf.jsqlparser.expression.AnalyticType.FILTER_ONLY) return bind(filtered(a));
      if (a.getType() == net.sf.jsqlparser.expression.AnalyticType.WITHIN_GROUP) return aggregateCalls.withinGroup(a);
      return windows.window(a);
    }
    if (e instanceof IsDistinctExpression d) return predicates.distinct(d);
    if (e instanceof LikeExpression l) return predicates.like(l);
    if (e instanceof ExtractExpression x) {
      return calls.call("date_part", List.of(new Expr.Literal(x.getName().toLowerCase(Locale.ROOT), SqlTypes.VARCHAR),
          bind(x.getExpression())), x);
    }
    if (e instanceof TimeKeyExpression t) return calls.timeKey(t);
    if (e instanceof net.sf.jsqlparser.expression.TrimFunction t && t.getTrimSpecification() == null
        && (t.getExpression() == null) != (t.getFromExpression() == null)) {
      // trim(s): JSqlParser parses it as its own node, not as a Function (trim(chars FROM s) is not supported)
      return calls.call("trim", List.of(bind(t.getExpression() != null ? t.getExpression() : t.getFromExpression())), t);
    }
    if (e instanceof CaseExpression c) return predicates.caseWhen(c);
    if (e instanceof Concat c) return calls.call("concat_op", List.of(bind(c.getLeftExpression()), bind(c.getRightExpression())), c);
    if (e instanceof IsBooleanExpression b) {
      // x IS [NOT] TRUE/FALSE is null-safe equality with the boolean
      Expr x = bool(b.getLeftExpression(), "IS " + (b.isTrue() ? "TRUE" : "FALSE"));
      return new Expr.DistinctFrom(x, b.isTrue() ? Expr.Literal.TRUE : Expr.Literal.FALSE, !b.isNot());
    }
    if (e instanceof IsUnknownExpression u) {
      return new Expr.IsNull(bool(u.getLeftExpression(), "IS UNKNOWN"), u.isNot());
    }
    if (e instanceof JdbcParameter p) {
      if (parameters == null) throw QuiverException.unsupported("a '?' parameter here", SqlPositions.suffix(sql, "?"));
      return parameters.placeholder(p.getIndex());
    }
    if (e instanceof Select sub) {
      if (subqueries == null) throw QuiverException.unsupported("a subquery here", SqlPositions.located(sql, sub));
      subqueries.insideAggregate(insideAggregate);
      return subqueries.scalar(sub);
    }
    if (e instanceof net.sf.jsqlparser.expression.operators.relational.ExistsExpression x) {
      return subqueries(x).exists(x);
    }
    if (e instanceof net.sf.jsqlparser.expression.IntervalExpression iv) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "an INTERVAL can only be added to or subtracted from a DATE or TIMESTAMP: " + SqlPositions.snippet(iv));
    }
    throw QuiverException.unsupported(describe(e));
  }

  /** An AND / OR chain, walked without recursion along its spine and bound as a balanced tree. */
  private Expr chain(Expression e) {
    boolean and = e instanceof AndExpression;
    Class<?> kind = e.getClass();
    List<Expr> terms = new ArrayList<>();
    java.util.ArrayDeque<Expression> stack = new java.util.ArrayDeque<>();
    stack.push(e);
    while (!stack.isEmpty()) {
      Expression x = stack.pop();
      if (x.getClass() == kind) {
        BinaryExpression b = (BinaryExpression) x;
        stack.push(b.getRightExpression());
        stack.push(b.getLeftExpression());
      } else {
        terms.add(bool(x, and ? "AND" : "OR"));
      }
    }
    return dev.quiver.planner.expr.Exprs.chain(and, terms);
  }

  private static String describe(Expression e) {
    String kind = e.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    return "the expression '" + SqlPositions.snippet(e) + "' (" + kind + ")";
  }

  private Expr column(Column c) {
    String name = c.getColumnName();
    String qualifier = c.getTable() == null ? null : c.getTable().getFullyQualifiedName();
    if (qualifier == null && (name.equalsIgnoreCase("true") || name.equalsIgnoreCase("false"))) {
      return Boolean.parseBoolean(name.toLowerCase(Locale.ROOT)) ? Expr.Literal.TRUE : Expr.Literal.FALSE;
    }
    Expr.ColumnRef ref;
    try {
      ref = scope.resolve(qualifier, unquote(name), sql);
    } catch (QuiverException notFound) {
      Expr alias = qualifier == null && outputAliases != null ? outputAliases.get(unquote(name).toLowerCase(Locale.ROOT)) : null;
      if (alias == null) throw notFound;
      return alias;
    }
    if (!insideAggregate) bareColumns.add(ref.name());
    return ref;
  }

  static String unquote(String name) {
    if (name == null) return ""; // JSqlParser gives no name for some quoted dots, e.g. FROM ".."
    if (name.length() >= 2 && (name.startsWith("\"") && name.endsWith("\"") || name.startsWith("`") && name.endsWith("`"))) {
      return name.substring(1, name.length() - 1);
    }
    return name;
  }


  Expr bool(Expression e, String op) {
    Expr b = bind(e);
    if (SqlTypes.isNull(b.type())) return Coercion.coerce(b, SqlTypes.BOOLEAN);
    if (!SqlTypes.isBoolean(b.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY,
          "argument of " + op + " must be BOOLEAN, not " + SqlTypes.sqlName(b.type()) + ": " + SqlPositions.snippet(e));
    }
    return b;
  }
}
