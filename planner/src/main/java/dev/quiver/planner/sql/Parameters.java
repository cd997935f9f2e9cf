package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The {@code ?} parameters of one statement. Each gets its type from where it is used (compared with
 * a DATE column it is a DATE), widened to a type every client can bind (BIGINT, DOUBLE, DECIMAL(p,s),
 * VARCHAR, BOOLEAN, DATE, TIMESTAMP(3)). With values bound, each parameter becomes that value as a
 * literal, cast to its context type: constant folding turns it into exactly the literal the user could
 * have written, so it prunes the same way.
 */
public final class Parameters {
  private final List<Object> values; // null while preparing; else 1-based parameter i is values.get(i - 1)
  private final Map<Integer, ArrowType> types = new TreeMap<>();

  /** The marker a parameter is bound as until its context gives it a type. */
  public record Marker(int index, Parameters owner) {}

  public Parameters(List<Object> values) {
    this.values = values;
  }

  public static Parameters unbound() {
    return new Parameters(null);
  }

  /** The wire types of the parameters, in order; every index from 1 to the largest must appear. */
  public List<ArrowType> types() {
    int n = types.isEmpty() ? 0 : ((TreeMap<Integer, ArrowType>) types).lastKey();
    ArrowType[] out = new ArrowType[n];
    for (var e : types.entrySet()) out[e.getKey() - 1] = e.getValue();
    for (int i = 0; i < n; i++) {
      if (out[i] == null) throw new QuiverException(ErrorCode.INVALID_QUERY, "parameter " + (i + 1) + " is never used");
    }
    return List.of(out);
  }

  Expr placeholder(int index) {
    if (values != null && index > values.size()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "parameter " + index + " has no value (" + values.size() + " bound)");
    }
    return new Expr.Literal(new Marker(index, this), SqlTypes.NULL);
  }

  /** The parameter {@code index} used where a value of type {@code context} is expected. */
  Expr resolve(int index, ArrowType context) {
    ArrowType wire = wireType(context);
    types.put(index, wire);
    if (values == null) return Expr.Literal.nullOf(context);
    Object v = values.get(index - 1);
    Expr.Literal lit = new Expr.Literal(v, wire);
    if (v == null) return Expr.Literal.nullOf(context);
    if (!Casts.castable(wire, context)) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "parameter " + index + " of type " + SqlTypes.sqlName(wire)
          + " cannot be used as " + SqlTypes.sqlName(context));
    }
    return wire.equals(context) ? lit : new Expr.Cast(lit, context, false);
  }

  /** The type a client binds for a parameter used as {@code context}. */
  public static ArrowType wireType(ArrowType context) {
    if (context instanceof ArrowType.Int) return SqlTypes.BIGINT;
    if (context instanceof ArrowType.FloatingPoint) return SqlTypes.DOUBLE;
    if (context instanceof ArrowType.Decimal) return context;
    if (context instanceof ArrowType.Bool || context instanceof ArrowType.Date || context instanceof ArrowType.Binary) {
      return context;
    }
    if (context instanceof ArrowType.Timestamp) return new ArrowType.Timestamp(TimeUnit.MILLISECOND, null);
    return SqlTypes.VARCHAR;
  }

  /**
   * The parameter as a literal of its wire type, typed by a comparison with {@code other}: the
   * comparison then coerces as it would for a literal the user typed (and cast unwrapping applies).
   */
  Expr literal(int index, ArrowType other) {
    ArrowType wire = wireType(SqlTypes.isNull(other) ? SqlTypes.VARCHAR : other);
    types.put(index, wire);
    return new Expr.Literal(values == null ? null : values.get(index - 1), wire);
  }

  static boolean isMarker(Expr e) {
    return e instanceof Expr.Literal l && l.value() instanceof Marker;
  }
}
