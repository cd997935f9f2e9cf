package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.ArithOp;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.math.BigInteger;
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
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
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
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Binds JSqlParser expressions to the typed {@link Expr} IR: resolves column names against a
 * {@link Scope}, types literals, and inserts the implicit CASTs of type coercion. Aggregate calls are
 * collected into {@link #aggregates()} and replaced by references to their output column.
 */
public final class ExprBinder {
  private final String sql;
  private final Scope scope;
  private final boolean allowAggregates;
  private final List<AggregateCall> aggregates;
  private final List<String> bareColumns = new ArrayList<>();
  private boolean insideAggregate;
  private boolean constantsTakeOtherSideType;
  private Parameters parameters;
  private Names names;
  private Subqueries subqueries;
  private SqlLimits limits = SqlLimits.DEFAULT;
  /** The nesting depth of the statement's expressions and subqueries (one tracker per statement). */
  private NestingDepth depth;

  /** Plans subqueries met inside expressions (scalar subqueries); without it they are unsupported. */
  interface Subqueries {
    /** A scalar subquery's value: a reference to the column that carries it. */
    Expr scalar(Select subquery);
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
    return dev.quiver.planner.expr.Exprs.transformUp(e, x -> Parameters.isMarker(x) ? coerce(x, SqlTypes.VARCHAR) : x);
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
    if (SqlTypes.isNull(b.type())) return coerce(b, SqlTypes.BOOLEAN);
    if (!SqlTypes.isBoolean(b.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY,
          "WHERE must be a BOOLEAN expression, not " + SqlTypes.sqlName(b.type()) + ": " + SqlPositions.snippet(e));
    }
    return b;
  }

  /** Whether {@code e} reads no column and calls nothing volatile. */
  public static boolean isConstant(Expr e) {
    if (e instanceof Expr.ColumnRef) return false;
    if (e instanceof Expr.Call c && c.volatility() == Expr.Volatility.VOLATILE) return false;
    for (Expr c : e.children()) if (!isConstant(c)) return false;
    return true;
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
    } finally {
      depth.exit();
    }
  }

  private Expr bindNode(Expression e) {
    if (e instanceof Column c) return column(c);
    if (e instanceof LongValue l) return integer(integerValue(l));
    if (e instanceof DoubleValue d) return decimalLiteral(d.toString());
    if (e instanceof StringValue s) return new Expr.Literal(s.getValue().replace("''", "'"), SqlTypes.VARCHAR);
    if (e instanceof NullValue) return Expr.Literal.nullOf(SqlTypes.NULL);
    if (e instanceof BooleanValue b) return b.getValue() ? Expr.Literal.TRUE : Expr.Literal.FALSE;
    if (e instanceof DateTimeLiteralExpression d) return dateTimeLiteral(d);
    if (e instanceof SignedExpression s) return signed(s);
    if (e instanceof Addition a) return arithmetic(ArithOp.ADD, a);
    if (e instanceof Subtraction a) return arithmetic(ArithOp.SUBTRACT, a);
    if (e instanceof Multiplication a) return arithmetic(ArithOp.MULTIPLY, a);
    if (e instanceof Division a) return arithmetic(ArithOp.DIVIDE, a);
    if (e instanceof Modulo a) return arithmetic(ArithOp.MODULO, a);
    if (e instanceof EqualsTo c) return comparison(CmpOp.EQ, c);
    if (e instanceof NotEqualsTo c) return comparison(CmpOp.NE, c);
    if (e instanceof MinorThan c) return comparison(CmpOp.LT, c);
    if (e instanceof MinorThanEquals c) return comparison(CmpOp.LE, c);
    if (e instanceof GreaterThan c) return comparison(CmpOp.GT, c);
    if (e instanceof GreaterThanEquals c) return comparison(CmpOp.GE, c);
    if (e instanceof AndExpression || e instanceof OrExpression) return chain(e);
    if (e instanceof NotExpression n) return new Expr.Not(bool(n.getExpression(), "NOT"));
    if (e instanceof IsNullExpression n) return new Expr.IsNull(bind(n.getLeftExpression()), n.isNot());
    if (e instanceof InExpression in) return in(in);
    if (e instanceof Between b) return between(b);
    if (e instanceof CastExpression c) return cast(c);
    if (e instanceof Function f) return function(f);
    if (e instanceof IsDistinctExpression d) return distinct(d);
    if (e instanceof LikeExpression l) return like(l);
    if (e instanceof ExtractExpression x) {
      return call("date_part", List.of(new Expr.Literal(x.getName().toLowerCase(Locale.ROOT), SqlTypes.VARCHAR),
          bind(x.getExpression())), x);
    }
    if (e instanceof TimeKeyExpression t) return timeKey(t);
    if (e instanceof net.sf.jsqlparser.expression.TrimFunction t && t.getTrimSpecification() == null
        && (t.getExpression() == null) != (t.getFromExpression() == null)) {
      // trim(s): JSqlParser parses it as its own node, not as a Function (trim(chars FROM s) is not supported)
      return call("trim", List.of(bind(t.getExpression() != null ? t.getExpression() : t.getFromExpression())), t);
    }
    if (e instanceof CaseExpression c) return caseWhen(c);
    if (e instanceof Concat c) return call("concat_op", List.of(bind(c.getLeftExpression()), bind(c.getRightExpression())), c);
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
      if (subqueries == null) throw QuiverException.unsupported("a subquery here");
      // its join would come after the aggregation that needs its value
      if (insideAggregate) throw QuiverException.unsupported("a subquery inside an aggregate function");
      return subqueries.scalar(sub);
    }
    if (e instanceof net.sf.jsqlparser.expression.operators.relational.ExistsExpression x) {
      throw QuiverException.unsupported("EXISTS other than as an AND-term of WHERE: " + SqlPositions.snippet(x));
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
    Expr.ColumnRef ref = scope.resolve(qualifier, unquote(name), sql);
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

  /** Numeric literals longer than this are refused unread: parsing digits is quadratic (a million: 14 s). */
  static final int MAX_NUMBER_CHARS = 1_000;

  /** The value of an integer literal, refused before it is parsed when it has too many digits. */
  static BigInteger integerValue(LongValue l) {
    String text = l.getStringValue();
    if (text.length() > MAX_NUMBER_CHARS) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "integer literal of " + text.length() + " digits is too large");
    }
    return l.getBigIntegerValue();
  }

  static Expr.Literal integer(BigInteger v) {
    if (v.bitLength() < 32) return new Expr.Literal(v.longValue(), SqlTypes.INTEGER);
    if (v.bitLength() < 64) return new Expr.Literal(v.longValue(), SqlTypes.BIGINT);
    BigDecimal d = new BigDecimal(v);
    if (d.precision() > SqlTypes.MAX_DECIMAL_PRECISION) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "integer literal " + SqlPositions.snippet(v) + " is too large");
    }
    return new Expr.Literal(d, SqlTypes.decimal(d.precision(), 0));
  }

  private static Expr.Literal decimalLiteral(String text) {
    if (text.length() > MAX_NUMBER_CHARS) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "numeric literal of " + text.length() + " characters is too long");
    }
    if (text.toLowerCase(Locale.ROOT).contains("e")) {
      return new Expr.Literal(Double.parseDouble(text), SqlTypes.DOUBLE);
    }
    BigDecimal d = new BigDecimal(text);
    if (d.scale() < 0) d = d.setScale(0);
    int precision = Math.max(d.precision(), d.scale());
    if (precision > SqlTypes.MAX_DECIMAL_PRECISION) return new Expr.Literal(d.doubleValue(), SqlTypes.DOUBLE);
    return new Expr.Literal(d, SqlTypes.decimal(precision, d.scale()));
  }

  private Expr dateTimeLiteral(DateTimeLiteralExpression d) {
    String raw = d.getValue();
    String text = raw.length() >= 2 && raw.startsWith("'") && raw.endsWith("'") ? raw.substring(1, raw.length() - 1) : raw;
    ArrowType type = switch (d.getType()) {
      case DATE -> SqlTypes.DATE;
      case TIMESTAMP, DATETIME -> SqlTypes.TIMESTAMP;
      case TIMESTAMPTZ -> SqlTypes.TIMESTAMPTZ;
      default -> throw QuiverException.unsupported("the " + d.getType() + " literal", SqlPositions.suffix(sql, d.getType().name()));
    };
    try {
      return new Expr.Literal(Casts.cast(text, SqlTypes.VARCHAR, type), type);
    } catch (QuiverException e) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, e.getMessage() + SqlPositions.suffix(sql, d.getType().name()));
    }
  }

  private Expr signed(SignedExpression s) {
    Expression inner = s.getExpression();
    if (s.getSign() == '+') return numeric(bind(inner), "unary +");
    if (inner instanceof LongValue l) return integer(integerValue(l).negate());
    if (inner instanceof DoubleValue d) {
      Expr.Literal lit = decimalLiteral(d.toString());
      return lit.value() instanceof BigDecimal b ? new Expr.Literal(b.negate(), lit.type())
          : new Expr.Literal(-(Double) lit.value(), lit.type());
    }
    Expr e = numeric(bind(inner), "unary -");
    ArrowType t = SqlTypes.signedView(e.type());
    return new Expr.Negate(coerce(e, t));
  }

  private Expr numeric(Expr e, String op) {
    if (SqlTypes.isNull(e.type())) return coerce(e, SqlTypes.INTEGER);
    if (!SqlTypes.isNumeric(e.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "operator " + op + " is not defined for " + SqlTypes.sqlName(e.type()));
    }
    return e;
  }

  private Expr bool(Expression e, String op) {
    Expr b = bind(e);
    if (SqlTypes.isNull(b.type())) return coerce(b, SqlTypes.BOOLEAN);
    if (!SqlTypes.isBoolean(b.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY,
          "argument of " + op + " must be BOOLEAN, not " + SqlTypes.sqlName(b.type()) + ": " + SqlPositions.snippet(e));
    }
    return b;
  }

  /** {@code e} as type {@code t}: itself if it already is, else an implicit CAST. */
  static Expr coerce(Expr e, ArrowType t) {
    if (e instanceof Expr.Literal l && l.value() instanceof Parameters.Marker m) {
      return m.owner().resolve(m.index(), SqlTypes.isNull(t) ? SqlTypes.VARCHAR : t);
    }
    return e.type().equals(t) ? e : new Expr.Cast(e, t, false);
  }

  private Expr arithmetic(ArithOp op, BinaryExpression b) {
    if (b.getRightExpression() instanceof net.sf.jsqlparser.expression.IntervalExpression iv
        && (op == ArithOp.ADD || op == ArithOp.SUBTRACT)) {
      return interval(bind(b.getLeftExpression()), iv, op == ArithOp.SUBTRACT, b);
    }
    if (b.getLeftExpression() instanceof net.sf.jsqlparser.expression.IntervalExpression iv && op == ArithOp.ADD) {
      return interval(bind(b.getRightExpression()), iv, false, b);
    }
    Expr l = bind(b.getLeftExpression());
    Expr r = bind(b.getRightExpression());
    if (SqlTypes.isNull(l.type()) && SqlTypes.isNull(r.type())) {
      l = coerce(l, SqlTypes.INTEGER);
      r = coerce(r, SqlTypes.INTEGER);
    } else if (SqlTypes.isNull(l.type())) {
      l = coerce(l, r.type());
    } else if (SqlTypes.isNull(r.type())) {
      r = coerce(r, l.type());
    }
    if (!SqlTypes.isNumeric(l.type()) || !SqlTypes.isNumeric(r.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "operator " + op.symbol + " is not defined for "
          + SqlTypes.sqlName(l.type()) + " and " + SqlTypes.sqlName(r.type()) + ": " + SqlPositions.snippet(b));
    }
    ArrowType common = SqlTypes.numericCommon(l.type(), r.type());
    if (common instanceof ArrowType.Decimal) {
      if (op == ArithOp.DIVIDE) {
        return new Expr.Arithmetic(op, coerce(l, SqlTypes.DOUBLE), coerce(r, SqlTypes.DOUBLE), SqlTypes.DOUBLE);
      }
      ArrowType.Decimal x = SqlTypes.asDecimal(SqlTypes.signedView(l.type()));
      ArrowType.Decimal y = SqlTypes.asDecimal(SqlTypes.signedView(r.type()));
      Expr lx = coerce(l, x);
      Expr ry = coerce(r, y);
      ArrowType result = switch (op) {
        case ADD, SUBTRACT -> {
          int s = Math.max(x.getScale(), y.getScale());
          int p = Math.max(x.getPrecision() - x.getScale(), y.getPrecision() - y.getScale()) + s + 1;
          yield SqlTypes.decimal(Math.min(SqlTypes.MAX_DECIMAL_PRECISION, p), s);
        }
        case MULTIPLY -> {
          int p = Math.min(SqlTypes.MAX_DECIMAL_PRECISION, x.getPrecision() + y.getPrecision());
          yield SqlTypes.decimal(p, Math.min(p, x.getScale() + y.getScale()));
        }
        default -> common;
      };
      return new Expr.Arithmetic(op, lx, ry, result);
    }
    return new Expr.Arithmetic(op, coerce(l, common), coerce(r, common), common);
  }

  /**
   * {@code temporal ± INTERVAL 'n' unit}: a call of {@code add_interval(t, months, micros)}. Year and
   * month intervals add calendar months (the day is clamped to the month's end); day and smaller units add
   * a fixed duration. A DATE plus a whole number of days or months stays a DATE; plus hours or smaller it
   * becomes a TIMESTAMP.
   */
  private Expr interval(Expr t, net.sf.jsqlparser.expression.IntervalExpression iv, boolean subtract, BinaryExpression b) {
    if (!SqlTypes.isTemporal(t.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "an INTERVAL can only be added to or subtracted from a DATE or "
          + "TIMESTAMP, not " + SqlTypes.sqlName(t.type()) + ": " + SqlPositions.snippet(b));
    }
    String text = iv.getParameter();
    String unit = iv.getIntervalType();
    if (text == null && iv.getExpression() != null) text = iv.getExpression().toString();
    if (text == null) throw QuiverException.unsupported("the interval " + SqlPositions.snippet(iv));
    text = text.replace("'", "").trim();
    if (unit == null) {
      String[] parts = text.split("\\s+");
      if (parts.length != 2) throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot read the interval " + SqlPositions.snippet(iv));
      text = parts[0];
      unit = parts[1];
    }
    long n;
    try {
      n = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the interval amount must be an integer: " + SqlPositions.snippet(iv));
    }
    if (subtract) n = -n;
    String u = unit.toUpperCase(Locale.ROOT);
    if (u.endsWith("S")) u = u.substring(0, u.length() - 1);
    long months = 0;
    long micros = 0;
    try {
      switch (u) {
        case "YEAR" -> months = Math.multiplyExact(n, 12);
        case "MONTH" -> months = n;
        case "WEEK" -> micros = Math.multiplyExact(n, 7 * 86_400_000_000L);
        case "DAY" -> micros = Math.multiplyExact(n, 86_400_000_000L);
        case "HOUR" -> micros = Math.multiplyExact(n, 3_600_000_000L);
        case "MINUTE" -> micros = Math.multiplyExact(n, 60_000_000L);
        case "SECOND" -> micros = Math.multiplyExact(n, 1_000_000L);
        default -> throw QuiverException.unsupported("the interval unit " + unit + " in " + SqlPositions.snippet(iv));
      }
    } catch (ArithmeticException e) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the interval is out of range: " + SqlPositions.snippet(iv));
    }
    if (t.type() instanceof ArrowType.Date && micros % 86_400_000_000L != 0) t = coerce(t, SqlTypes.TIMESTAMP);
    return call("add_interval", List.of(t, new Expr.Literal(months, SqlTypes.BIGINT), new Expr.Literal(micros, SqlTypes.BIGINT)),
        b);
  }

  private Expr comparison(CmpOp op, BinaryExpression b) {
    return compare(op, bind(b.getLeftExpression()), bind(b.getRightExpression()), b);
  }

  /** A parameter compared with {@code other} becomes a literal of its wire type; anything else stays. */
  private static Expr materialize(Expr e, Expr other) {
    if (e instanceof Expr.Literal l && l.value() instanceof Parameters.Marker m) {
      return m.owner().literal(m.index(), Parameters.isMarker(other) ? SqlTypes.VARCHAR : other.type());
    }
    return e;
  }

  private Expr compare(CmpOp op, Expr l0, Expr r0, Object text) {
    Expr l = materialize(l0, r0);
    Expr r = materialize(r0, l);
    ArrowType t = meet(l, r, text);
    return new Expr.Comparison(op, coerce(l, t), coerce(r, t));
  }

  /** The type two compared operands are coerced to. */
  private ArrowType meet(Expr l, Expr r, Object text) {
    if (constantsTakeOtherSideType) {
      boolean lc = isConstant(l);
      boolean rc = isConstant(r);
      if (rc && !lc && castableTo(r, l.type())) return l.type();
      if (lc && !rc && castableTo(l, r.type())) return r.type();
    }
    return commonOrFail(l.type(), r.type(), text);
  }

  private static boolean castableTo(Expr constant, ArrowType t) {
    return SqlTypes.isNull(constant.type()) || SqlTypes.comparisonCommon(constant.type(), t) != null;
  }

  private static ArrowType commonOrFail(ArrowType a, ArrowType b, Object text) {
    ArrowType t = common(a, b, text);
    return SqlTypes.isNull(t) ? SqlTypes.BOOLEAN : t;
  }

  /**
   * The type {@code a} and {@code b} meet at, or fails; two untyped NULLs stay untyped (NULL), so that a NULL
   * folded in before a typed value takes that value's type: {@code NULL IN (NULL, 1)} is INTEGER.
   */
  private static ArrowType common(ArrowType a, ArrowType b, Object text) {
    ArrowType t = SqlTypes.comparisonCommon(a, b);
    if (t == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY,
          "cannot compare " + SqlTypes.sqlName(a) + " with " + SqlTypes.sqlName(b) + ": " + SqlPositions.snippet(text));
    }
    return t;
  }

  /** {@code t}, or BOOLEAN when nothing gave a type (every operand an untyped NULL). */
  private static ArrowType settled(ArrowType t) {
    return SqlTypes.isNull(t) ? SqlTypes.BOOLEAN : t;
  }

  private Expr in(InExpression in) {
    Expression right = in.getRightExpression();
    if (right instanceof AndExpression || right instanceof OrExpression) {
      // JSqlParser 5.3 parses "x IN (a, b) OR y" as "x IN ((a, b) OR y)": IN binds tighter, so
      // re-associate by moving the IN onto the leftmost operand of the AND/OR chain.
      BinaryExpression b = (BinaryExpression) right;
      while (b.getLeftExpression() instanceof AndExpression || b.getLeftExpression() instanceof OrExpression) {
        b = (BinaryExpression) b.getLeftExpression();
      }
      InExpression inner = new InExpression(in.getLeftExpression(), b.getLeftExpression());
      inner.setNot(in.isNot());
      b.setLeftExpression(inner);
      return bind(right);
    }
    if (!(right instanceof ExpressionList<?> list)) {
      throw QuiverException.unsupported("IN (subquery) other than as an AND-term of WHERE: " + SqlPositions.snippet(in));
    }
    if (list.size() > limits.maxInListItems()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "an IN list of " + list.size() + " items is over the limit of "
          + limits.maxInListItems() + " items" + SqlPositions.suffix(sql, "IN"));
    }
    Expr bound = bind(in.getLeftExpression());
    List<Expr> raw = new ArrayList<>();
    for (Expression x : list) raw.add(bind(x));
    Expr value = Parameters.isMarker(bound)
        ? materialize(bound, raw.stream().filter(x -> !Parameters.isMarker(x)).findFirst().orElse(bound)) : bound;
    List<Expr> items = new ArrayList<>();
    for (Expr x : raw) items.add(materialize(x, value));
    ArrowType t = value.type();
    boolean adopt = constantsTakeOtherSideType && !isConstant(value)
        && items.stream().allMatch(i -> isConstant(i) && castableTo(i, value.type()));
    if (!adopt) {
      for (Expr item : items) t = common(t, item.type(), in);
      t = settled(t);
    }
    List<Expr> coerced = new ArrayList<>();
    for (Expr item : items) coerced.add(coerceItem(item, t));
    return new Expr.InList(coerce(value, t), coerced, in.isNot());
  }

  /**
   * An IN item as type {@code t}: an integer literal converted now (a list of 100,000 items would otherwise
   * fold 100,000 casts on the kernels); anything else, or a value out of range, by {@link #coerce}.
   */
  private static Expr coerceItem(Expr item, ArrowType t) {
    if (item instanceof Expr.Literal l && l.value() instanceof Long && l.type() instanceof ArrowType.Int
        && t instanceof ArrowType.Int && !l.type().equals(t)) {
      try {
        return new Expr.Literal(Casts.cast(l.value(), l.type(), t), t);
      } catch (QuiverException outOfRange) {
        // the cast stays, and fails where the kernels would make it fail
      }
    }
    return coerce(item, t);
  }

  private Expr between(Between b) {
    Expr v = bind(b.getLeftExpression());
    Expr lo = bind(b.getBetweenExpressionStart());
    Expr hi = bind(b.getBetweenExpressionEnd());
    Expr both = new Expr.And(compare(CmpOp.GE, v, lo, b), compare(CmpOp.LE, v, hi, b));
    return b.isNot() ? new Expr.Not(both) : both;
  }

  private Expr cast(CastExpression c) {
    if (c.isImplicitCast() && c.getLeftExpression() instanceof StringValue text) return typedLiteral(c, text.getValue());
    Expr input = bind(c.getLeftExpression());
    ArrowType target = SqlTypes.parse(c.getColDataType().getDataType(),
        c.getColDataType().getArgumentsStringList() == null ? List.of() : c.getColDataType().getArgumentsStringList());
    if (!Casts.castable(input.type(), target)) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot cast " + SqlTypes.sqlName(input.type()) + " to "
          + SqlTypes.sqlName(target) + ": " + SqlPositions.snippet(c));
    }
    boolean safe = c.keyword != null && c.keyword.equalsIgnoreCase("TRY_CAST");
    return new Expr.Cast(input, target, safe);
  }

  /**
   * A typed literal such as {@code DATE '2024-01-01'} or {@code TIMESTAMP '2024-01-01 10:00:00.5+02:00'}:
   * a timestamp with an offset is an instant (WITH TIME ZONE), one with more than six fractional
   * digits keeps nanoseconds.
   */
  private Expr typedLiteral(CastExpression c, String raw) {
    String text = raw.replace("''", "'");
    String typeName = c.getColDataType().getDataType();
    if (text.length() > MAX_NUMBER_CHARS) { // no such literal is this long; the patterns below are quadratic in it
      throw new QuiverException(ErrorCode.INVALID_QUERY, "invalid " + typeName + " literal of " + text.length()
          + " characters" + SqlPositions.suffix(sql, typeName));
    }
    ArrowType type = SqlTypes.parse(typeName, List.of());
    if (type instanceof org.apache.arrow.vector.types.pojo.ArrowType.Timestamp) {
      boolean offset = text.trim().matches(".*\\d[ T]\\d.*([+-]\\d{2}(:?\\d{2})?|Z)$");
      java.util.regex.Matcher frac = java.util.regex.Pattern.compile("\\.(\\d+)").matcher(text);
      boolean nanos = frac.find() && frac.group(1).length() > 6;
      type = new org.apache.arrow.vector.types.pojo.ArrowType.Timestamp(
          nanos ? org.apache.arrow.vector.types.TimeUnit.NANOSECOND : org.apache.arrow.vector.types.TimeUnit.MICROSECOND,
          offset || type.equals(SqlTypes.TIMESTAMPTZ) ? "UTC" : null);
    }
    try {
      return new Expr.Literal(Casts.cast(text, SqlTypes.VARCHAR, type), type);
    } catch (QuiverException e) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, e.getMessage() + SqlPositions.suffix(sql, typeName));
    }
  }

  private Expr distinct(IsDistinctExpression d) {
    Expr l0 = bind(d.getLeftExpression());
    Expr r0 = bind(d.getRightExpression());
    Expr l = materialize(l0, r0);
    Expr r = materialize(r0, l);
    ArrowType t = meet(l, r, d);
    return new Expr.DistinctFrom(coerce(l, t), coerce(r, t), d.isNot());
  }

  /**
   * {@code x [NOT] LIKE|ILIKE p [ESCAPE e]}. With ESCAPE, the pattern is rewritten by {@code like_escape(p, e)}
   * into the default form (backslash escapes), which constant folding does at plan time for a literal pattern.
   */
  private Expr like(LikeExpression l) {
    String kw = l.getLikeKeyWord().name();
    if (!kw.equals("LIKE") && !kw.equals("ILIKE")) throw QuiverException.unsupported(kw);
    Expr input = bind(l.getLeftExpression());
    Expr pattern = bind(l.getRightExpression());
    if (l.getEscape() != null) {
      Expr escape = bind(l.getEscape());
      if (!SqlTypes.isString(escape.type()) && !SqlTypes.isNull(escape.type())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "the ESCAPE of " + kw + " must be a string, not "
            + SqlTypes.sqlName(escape.type()) + ": " + SqlPositions.snippet(l));
      }
      if (escape instanceof Expr.Literal e && e.value() instanceof String s && s.codePointCount(0, s.length()) > 1) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "invalid escape string '" + SqlPositions.snippet(s)
            + "': the escape of " + kw + " must be empty or one character" + SqlPositions.suffix(sql, "ESCAPE"));
      }
      if (SqlTypes.isString(pattern.type()) || SqlTypes.isNull(pattern.type())) {
        pattern = call("like_escape", List.of(coerce(pattern, SqlTypes.VARCHAR), coerce(escape, SqlTypes.VARCHAR)), l);
      }
    }
    for (Expr x : List.of(input, pattern)) {
      if (!SqlTypes.isString(x.type()) && !SqlTypes.isNull(x.type())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, kw + " is not defined for " + SqlTypes.sqlName(x.type()) + ": " + SqlPositions.snippet(l));
      }
    }
    return new Expr.Like(coerce(input, SqlTypes.VARCHAR), coerce(pattern, SqlTypes.VARCHAR), kw.equals("ILIKE"), l.isNot());
  }

  private Expr timeKey(TimeKeyExpression t) {
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
      throw new QuiverException(ErrorCode.NOT_FOUND, "function " + SqlPositions.snippet(name) + " does not exist" + SqlPositions.suffix(sql, name));
    }
    if (args.size() < def.minArgs() || args.size() > def.maxArgs()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " takes "
          + (def.minArgs() == def.maxArgs() ? def.minArgs() : def.minArgs() + ".." + def.maxArgs()) + " arguments: "
          + SqlPositions.snippet(text));
    }
    List<Expr> coerced = new ArrayList<>(args);
    switch (def.name()) {
      case "concat_op" -> coerced.replaceAll(a -> coerce(a, SqlTypes.VARCHAR));
      case "regexp_like", "lower", "upper", "length", "trim", "strpos" -> coerced.replaceAll(a -> coerce(a, SqlTypes.VARCHAR));
      case "substring", "round" -> {
        for (int i = 1; i < coerced.size(); i++) coerced.set(i, coerce(coerced.get(i), SqlTypes.BIGINT));
        if (def.name().equals("substring")) coerced.set(0, coerce(coerced.get(0), SqlTypes.VARCHAR));
        else coerced.set(0, coerce(coerced.get(0), SqlTypes.signedView(coerced.get(0).type())));
      }
      case "abs" -> coerced.set(0, coerce(coerced.get(0), SqlTypes.signedView(coerced.get(0).type())));
      case "date_trunc", "date_part" -> {
        coerced.set(0, coerce(coerced.get(0), SqlTypes.VARCHAR));
        if (!SqlTypes.isTemporal(coerced.get(1).type())) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "function " + name + " needs a DATE or TIMESTAMP, not "
              + SqlTypes.sqlName(coerced.get(1).type()) + ": " + SqlPositions.snippet(text));
        }
      }
      case "coalesce", "nullif" -> {
        ArrowType t = coerced.get(0).type();
        for (Expr a : coerced) t = common(t, a.type(), text);
        ArrowType common = settled(t);
        coerced.replaceAll(a -> coerce(a, common));
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

  private Expr caseWhen(CaseExpression c) {
    Expr subject = c.getSwitchExpression() == null ? null : bind(c.getSwitchExpression());
    List<Expr> conditions = new ArrayList<>();
    List<Expr> results = new ArrayList<>();
    for (net.sf.jsqlparser.expression.WhenClause w : c.getWhenClauses()) {
      if (subject == null) {
        conditions.add(bool(w.getWhenExpression(), "CASE WHEN"));
      } else {
        conditions.add(compare(CmpOp.EQ, subject, bind(w.getWhenExpression()), c));
      }
      results.add(bind(w.getThenExpression()));
    }
    Expr otherwise = c.getElseExpression() == null ? Expr.Literal.nullOf(SqlTypes.NULL) : bind(c.getElseExpression());
    ArrowType t = otherwise.type();
    for (Expr r : results) t = common(t, r.type(), c);
    t = settled(t);
    List<Expr.When> whens = new ArrayList<>();
    for (int i = 0; i < conditions.size(); i++) whens.add(new Expr.When(conditions.get(i), coerce(results.get(i), t)));
    return new Expr.Case(whens, coerce(otherwise, t), t);
  }

  private Expr function(Function f) {
    String name = f.getName().toLowerCase(Locale.ROOT);
    AggFunc agg = aggregateFunction(name);
    if (agg == null) {
      List<Expr> args = new ArrayList<>();
      if (f.getParameters() != null) for (Expression x : f.getParameters()) args.add(bind(x));
      if (f.getNamedParameters() != null) {
        // SQL-standard keyword arguments: substring(s FROM i FOR n), position(x IN s)
        List<String> kw = new ArrayList<>();
        for (Object n : f.getNamedParameters().getNames()) kw.add(n == null ? "" : n.toString().toLowerCase(Locale.ROOT));
        for (Object x : f.getNamedParameters().getExpressions()) args.add(bind((Expression) x));
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
        default -> name;
      };
      if (n.equals("concat_op") && args.size() != 2) {
        Expr acc = args.isEmpty() ? new Expr.Literal("", SqlTypes.VARCHAR) : args.get(0);
        for (int i = 1; i < args.size(); i++) acc = call("concat_op", List.of(acc, args.get(i)), f);
        return acc;
      }
      return call(n, args, f);
    }
    if (!allowAggregates) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "aggregate function " + name + " is not allowed here"
          + SqlPositions.suffix(sql, f.getName()));
    }
    if (insideAggregate) {
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
      insideAggregate = true;
      try {
        arg = bind(f.getParameters().get(0));
      } finally {
        insideAggregate = false;
      }
    }
    ArrowType type = aggregateType(agg, arg, f);
    if (arg != null && agg != AggFunc.COUNT && SqlTypes.isNull(arg.type())) arg = coerce(arg, type);
    boolean distinct = f.isDistinct() && agg != AggFunc.MIN && agg != AggFunc.MAX;
    if (f.isDistinct() && star) throw new QuiverException(ErrorCode.INVALID_QUERY, "count(DISTINCT *) is not valid: " + SqlPositions.snippet(f));
    AggregateCall call = new AggregateCall(agg, arg, type, null, distinct);
    for (AggregateCall existing : aggregates) {
      if (existing.func() == agg && java.util.Objects.equals(existing.arg(), arg) && existing.distinct() == distinct) {
        return new Expr.ColumnRef(existing.name(), type, agg != AggFunc.COUNT);
      }
    }
    String internal = names != null ? names.fresh("__agg") : "__agg" + aggregates.size();
    aggregates.add(new AggregateCall(call.func(), arg, type, internal, distinct));
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

  private static ArrowType aggregateType(AggFunc agg, Expr arg, Function f) {
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
