package dev.quiver.planner.expr;

import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.Values;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The typed, immutable expression IR produced by the analyzer. Every node knows its type and
 * nullability; {@link #children()} and {@link #withChildren(List)} let rules rewrite trees generically.
 */
public sealed interface Expr {
  ArrowType type();

  boolean nullable();

  List<Expr> children();

  Expr withChildren(List<Expr> children);

  <R> R accept(ExprVisitor<R> v);

  /** A column of the input, by name. */
  record ColumnRef(String name, ArrowType type, boolean nullable) implements Expr {
    public List<Expr> children() { return List.of(); }
    public Expr withChildren(List<Expr> c) { return this; }
    public <R> R accept(ExprVisitor<R> v) { return v.visitColumn(this); }
    @Override public String toString() { return name; }
  }

  /** A constant in the physical form of {@link Values}. */
  record Literal(Object value, ArrowType type) implements Expr {
    public static final Literal TRUE = new Literal(true, SqlTypes.BOOLEAN);
    public static final Literal FALSE = new Literal(false, SqlTypes.BOOLEAN);

    public static Literal nullOf(ArrowType type) { return new Literal(null, type); }
    public boolean nullable() { return value == null; }
    public boolean isNull() { return value == null; }
    public List<Expr> children() { return List.of(); }
    public Expr withChildren(List<Expr> c) { return this; }
    public <R> R accept(ExprVisitor<R> v) { return v.visitLiteral(this); }
    @Override public boolean equals(Object o) {
      return o instanceof Literal l && type.equals(l.type)
          && (value instanceof byte[] b ? l.value instanceof byte[] c && java.util.Arrays.equals(b, c)
              : java.util.Objects.equals(value, l.value));
    }
    @Override public int hashCode() { return type.hashCode() * 31 + (value instanceof byte[] b ? java.util.Arrays.hashCode(b) : java.util.Objects.hashCode(value)); }
    @Override public String toString() {
      return value == null && !SqlTypes.isNull(type) ? "CAST(NULL AS " + SqlTypes.sqlName(type) + ")" : Values.toSql(value, type);
    }
  }

  /** {@code CAST(input AS type)}; {@code safe} is TRY_CAST (NULL instead of an error). */
  record Cast(Expr input, ArrowType type, boolean safe) implements Expr {
    public boolean nullable() { return input.nullable() || safe; }
    public List<Expr> children() { return List.of(input); }
    public Expr withChildren(List<Expr> c) { return new Cast(c.get(0), type, safe); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitCast(this); }
    @Override public String toString() { return (safe ? "TRY_CAST(" : "CAST(") + input + " AS " + SqlTypes.sqlName(type) + ")"; }
  }

  enum ArithOp {
    ADD("+"), SUBTRACT("-"), MULTIPLY("*"), DIVIDE("/"), MODULO("%");
    public final String symbol;
    ArithOp(String s) { symbol = s; }
  }

  /** Arithmetic; integer overflow and division by zero are errors. */
  record Arithmetic(ArithOp op, Expr left, Expr right, ArrowType type) implements Expr {
    public boolean nullable() { return left.nullable() || right.nullable(); }
    public List<Expr> children() { return List.of(left, right); }
    public Expr withChildren(List<Expr> c) { return new Arithmetic(op, c.get(0), c.get(1), type); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitArithmetic(this); }
    @Override public String toString() { return "(" + left + " " + op.symbol + " " + right + ")"; }
  }

  /** Unary minus. */
  record Negate(Expr input) implements Expr {
    public ArrowType type() { return input.type(); }
    public boolean nullable() { return input.nullable(); }
    public List<Expr> children() { return List.of(input); }
    public Expr withChildren(List<Expr> c) { return new Negate(c.get(0)); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitNegate(this); }
    @Override public String toString() { return "(-" + input + ")"; }
  }

  enum CmpOp {
    EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");
    public final String symbol;
    CmpOp(String s) { symbol = s; }

    /** The operator with its operands swapped: {@code a < b} is {@code b > a}. */
    public CmpOp flip() {
      return switch (this) { case LT -> GT; case LE -> GE; case GT -> LT; case GE -> LE; default -> this; };
    }
  }

  /** A comparison of two operands of the same type; NaN equals NaN and sorts above every number. */
  record Comparison(CmpOp op, Expr left, Expr right) implements Expr {
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return left.nullable() || right.nullable(); }
    public List<Expr> children() { return List.of(left, right); }
    public Expr withChildren(List<Expr> c) { return new Comparison(op, c.get(0), c.get(1)); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitComparison(this); }
    @Override public String toString() { return left + " " + op.symbol + " " + right; }
  }

  /** Three-valued AND. */
  record And(Expr left, Expr right) implements Expr {
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return left.nullable() || right.nullable(); }
    public List<Expr> children() { return List.of(left, right); }
    public Expr withChildren(List<Expr> c) { return new And(c.get(0), c.get(1)); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitAnd(this); }
    @Override public String toString() { return Exprs.flatten(true, this).stream().map(Expr::paren).collect(Collectors.joining(" AND ")); }
  }

  /** Three-valued OR. */
  record Or(Expr left, Expr right) implements Expr {
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return left.nullable() || right.nullable(); }
    public List<Expr> children() { return List.of(left, right); }
    public Expr withChildren(List<Expr> c) { return new Or(c.get(0), c.get(1)); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitOr(this); }
    @Override public String toString() { return Exprs.flatten(false, this).stream().map(Expr::paren).collect(Collectors.joining(" OR ")); }
  }

  record Not(Expr input) implements Expr {
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return input.nullable(); }
    public List<Expr> children() { return List.of(input); }
    public Expr withChildren(List<Expr> c) { return new Not(c.get(0)); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitNot(this); }
    @Override public String toString() { return "NOT " + paren(input); }
  }

  /** {@code input IS NULL}, or {@code IS NOT NULL} when negated; never NULL itself. */
  record IsNull(Expr input, boolean negated) implements Expr {
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return false; }
    public List<Expr> children() { return List.of(input); }
    public Expr withChildren(List<Expr> c) { return new IsNull(c.get(0), negated); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitIsNull(this); }
    @Override public String toString() { return paren(input) + (negated ? " IS NOT NULL" : " IS NULL"); }
  }

  /** {@code value [NOT] IN (list)} with SQL's NULL semantics; all items have the value's type. */
  record InList(Expr value, List<Expr> list, boolean negated) implements Expr {
    public InList { list = List.copyOf(list); }
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return !list.isEmpty() && (value.nullable() || list.stream().anyMatch(Expr::nullable)); }
    public List<Expr> children() {
      List<Expr> c = new java.util.ArrayList<>(list.size() + 1);
      c.add(value);
      c.addAll(list);
      return c;
    }
    public Expr withChildren(List<Expr> c) { return new InList(c.get(0), c.subList(1, c.size()), negated); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitInList(this); }
    @Override public String toString() {
      return value + (negated ? " NOT IN (" : " IN (") + list.stream().map(Object::toString).collect(Collectors.joining(", ")) + ")";
    }
  }

  /** {@code left IS [NOT] DISTINCT FROM right}: equality where NULL equals NULL; never NULL itself. */
  record DistinctFrom(Expr left, Expr right, boolean not) implements Expr {
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return false; }
    public List<Expr> children() { return List.of(left, right); }
    public Expr withChildren(List<Expr> c) { return new DistinctFrom(c.get(0), c.get(1), not); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitDistinctFrom(this); }
    @Override public String toString() { return left + (not ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ") + right; }
  }

  /** {@code input [NOT] LIKE|ILIKE pattern} with {@code %}, {@code _} and backslash escapes. */
  record Like(Expr input, Expr pattern, boolean caseInsensitive, boolean negated) implements Expr {
    public ArrowType type() { return SqlTypes.BOOLEAN; }
    public boolean nullable() { return input.nullable() || pattern.nullable(); }
    public List<Expr> children() { return List.of(input, pattern); }
    public Expr withChildren(List<Expr> c) { return new Like(c.get(0), c.get(1), caseInsensitive, negated); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitLike(this); }
    @Override public String toString() {
      return input + (negated ? " NOT" : "") + (caseInsensitive ? " ILIKE " : " LIKE ") + pattern;
    }
  }

  /** How a function's result depends on more than its arguments. */
  enum Volatility {
    /** Same arguments, same result: folds when the arguments are constants. */
    IMMUTABLE,
    /** Same within one query ({@code now()}): folds to the query's start. */
    STABLE,
    /** Differs per call ({@code random()}): never folds, never deduplicated. */
    VOLATILE
  }

  /** A scalar function call, resolved by the analyzer against the function registry. */
  record Call(String name, List<Expr> args, ArrowType type, boolean nullable, Volatility volatility) implements Expr {
    public Call { args = List.copyOf(args); }
    public List<Expr> children() { return args; }
    public Expr withChildren(List<Expr> c) { return new Call(name, c, type, nullable, volatility); }
    public <R> R accept(ExprVisitor<R> v) { return v.visitCall(this); }
    @Override public boolean equals(Object o) {
      // two calls of a volatile function are never the same value
      return this == o || (o instanceof Call c && volatility != Volatility.VOLATILE && name.equals(c.name)
          && args.equals(c.args) && type.equals(c.type) && nullable == c.nullable && volatility == c.volatility);
    }
    @Override public int hashCode() { return name.hashCode() * 31 + args.hashCode(); }
    @Override public String toString() {
      return name + "(" + args.stream().map(Object::toString).collect(Collectors.joining(", ")) + ")";
    }
  }

  /** One {@code WHEN condition THEN result} of a CASE. */
  record When(Expr condition, Expr result) {}

  /** {@code CASE WHEN c1 THEN r1 ... ELSE e END}; a missing ELSE is a NULL literal. */
  record Case(List<When> whens, Expr otherwise, ArrowType type) implements Expr {
    public Case { whens = List.copyOf(whens); }
    public boolean nullable() { return otherwise.nullable() || whens.stream().anyMatch(w -> w.result().nullable()); }
    public List<Expr> children() {
      List<Expr> c = new java.util.ArrayList<>();
      for (When w : whens) {
        c.add(w.condition());
        c.add(w.result());
      }
      c.add(otherwise);
      return c;
    }
    public Expr withChildren(List<Expr> c) {
      List<When> w = new java.util.ArrayList<>();
      for (int i = 0; i + 1 < c.size(); i += 2) w.add(new When(c.get(i), c.get(i + 1)));
      return new Case(w, c.get(c.size() - 1), type);
    }
    public <R> R accept(ExprVisitor<R> v) { return v.visitCase(this); }
    @Override public String toString() {
      StringBuilder sb = new StringBuilder("CASE");
      for (When w : whens) sb.append(" WHEN ").append(w.condition()).append(" THEN ").append(w.result());
      return sb.append(" ELSE ").append(otherwise).append(" END").toString();
    }
  }

  static String paren(Expr e) {
    return e instanceof And || e instanceof Or ? "(" + e + ")" : e.toString();
  }
}
