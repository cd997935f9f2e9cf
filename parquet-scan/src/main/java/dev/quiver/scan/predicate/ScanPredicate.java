package dev.quiver.scan.predicate;

import dev.quiver.common.Values;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The SQL-free predicate language the scan understands: comparisons of a column with a literal,
 * IN lists, IS [NOT] NULL, prefix match, AND / OR / NOT, and constants. Literal values are in the
 * physical form of {@link Values}, of the column's table type. Pruning with it is "might match": a
 * row group is skipped only when no row in it can satisfy the predicate.
 */
public sealed interface ScanPredicate {

  enum Op {
    EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

    public final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    /** The operator that holds exactly when this one is false (for non-null, comparable values). */
    public Op negate() {
      return switch (this) {
        case EQ -> NE; case NE -> EQ; case LT -> GE; case LE -> GT; case GT -> LE; case GE -> LT;
      };
    }
  }

  <R> R accept(Visitor<R> v);

  /** The columns {@code p} tests, in the order they first appear (none for null). */
  static java.util.Set<String> columns(ScanPredicate p) {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    collectColumns(p, out);
    return out;
  }

  private static void collectColumns(ScanPredicate p, java.util.Set<String> out) {
    if (p instanceof Compare c) out.add(c.column());
    else if (p instanceof In c) out.add(c.column());
    else if (p instanceof IsNull c) out.add(c.column());
    else if (p instanceof StartsWith c) out.add(c.column());
    else if (p instanceof And a) a.children().forEach(x -> collectColumns(x, out));
    else if (p instanceof Or o) o.children().forEach(x -> collectColumns(x, out));
    else if (p instanceof Not n) collectColumns(n.child(), out);
  }

  interface Visitor<R> {
    R visitCompare(Compare p);
    R visitIn(In p);
    R visitIsNull(IsNull p);
    R visitStartsWith(StartsWith p);
    R visitAnd(And p);
    R visitOr(Or p);
    R visitNot(Not p);
    R visitConst(Const p);
  }

  record Compare(String column, Op op, Object value, ArrowType type) implements ScanPredicate {
    public <R> R accept(Visitor<R> v) { return v.visitCompare(this); }
    @Override public String toString() { return column + " " + op.symbol + " " + Values.toSql(value, type); }
  }

  record In(String column, List<Object> values, ArrowType type) implements ScanPredicate {
    public In { values = List.copyOf(values); }
    public <R> R accept(Visitor<R> v) { return v.visitIn(this); }
    @Override public String toString() {
      return column + " IN (" + values.stream().map(x -> Values.toSql(x, type)).collect(Collectors.joining(", ")) + ")";
    }
  }

  /** {@code column IS NULL}, or {@code IS NOT NULL} when negated. */
  record IsNull(String column, boolean negated) implements ScanPredicate {
    public <R> R accept(Visitor<R> v) { return v.visitIsNull(this); }
    @Override public String toString() { return column + (negated ? " IS NOT NULL" : " IS NULL"); }
  }

  record StartsWith(String column, String prefix) implements ScanPredicate {
    public <R> R accept(Visitor<R> v) { return v.visitStartsWith(this); }
    @Override public String toString() { return "starts_with(" + column + ", " + Values.toSql(prefix, ArrowType.Utf8.INSTANCE) + ")"; }
  }

  record And(List<ScanPredicate> children) implements ScanPredicate {
    public And { children = List.copyOf(children); }
    public <R> R accept(Visitor<R> v) { return v.visitAnd(this); }
    @Override public String toString() { return join(children, " AND "); }
  }

  record Or(List<ScanPredicate> children) implements ScanPredicate {
    public Or { children = List.copyOf(children); }
    public <R> R accept(Visitor<R> v) { return v.visitOr(this); }
    @Override public String toString() { return join(children, " OR "); }
  }

  record Not(ScanPredicate child) implements ScanPredicate {
    public <R> R accept(Visitor<R> v) { return v.visitNot(this); }
    @Override public String toString() { return "NOT (" + child + ")"; }
  }

  record Const(boolean value) implements ScanPredicate {
    public <R> R accept(Visitor<R> v) { return v.visitConst(this); }
    @Override public String toString() { return Boolean.toString(value).toUpperCase(); }
  }

  private static String join(List<ScanPredicate> children, String sep) {
    return children.stream()
        .map(c -> c instanceof And || c instanceof Or ? "(" + c + ")" : c.toString())
        .collect(Collectors.joining(sep));
  }

  /** The conjunction of {@code parts}: TRUE when empty, the part itself when single. */
  static ScanPredicate and(List<ScanPredicate> parts) {
    return parts.isEmpty() ? new Const(true) : parts.size() == 1 ? parts.get(0) : new And(parts);
  }
}
