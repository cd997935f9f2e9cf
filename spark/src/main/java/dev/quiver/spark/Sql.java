package dev.quiver.spark;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's V2 expressions rendered as Quiver SQL. Whatever cannot be rendered exactly (an unknown function, a cast, a
 * NaN, a string with a backslash or a control character, a nested column) renders as empty, so it stays in Spark.
 */
final class Sql {
  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  private Sql() {}

  /** A double-quoted identifier ({@code "} doubled). */
  static String ident(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** A single-quoted string literal ({@code '} doubled), or empty for text the parser might read differently. */
  static Optional<String> string(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' || Character.isISOControl(c)) return Optional.empty();
    }
    return Optional.of("'" + s.replace("'", "''") + "'");
  }

  /** A predicate or value expression, or empty. */
  static Optional<String> render(Expression e) {
    if (e instanceof NamedReference r) {
      return r.fieldNames().length == 1 ? Optional.of(ident(r.fieldNames()[0])) : Optional.empty();
    }
    if (e instanceof Literal<?> l) return literal(l.value(), l.dataType());
    if (e instanceof GeneralScalarExpression g) return scalar(g);
    return Optional.empty();
  }

  private static Optional<String> scalar(GeneralScalarExpression g) {
    Expression[] c = g.children();
    String name = g.name();
    switch (name) {
      case "=", "<>", "<", "<=", ">", ">=", "+", "-", "*" -> {
        if (c.length == 1 && name.equals("-")) return render(c[0]).map(a -> "(- " + a + ")");
        if (c.length != 2) return Optional.empty();
        Optional<String> a = render(c[0]);
        Optional<String> b = render(c[1]);
        return a.isPresent() && b.isPresent() ? Optional.of("(" + a.get() + " " + name + " " + b.get() + ")") : Optional.empty();
      }
      case "AND", "OR" -> {
        Optional<String> a = render(c[0]);
        Optional<String> b = render(c[1]);
        return a.isPresent() && b.isPresent() ? Optional.of("(" + a.get() + " " + name + " " + b.get() + ")") : Optional.empty();
      }
      case "NOT" -> {
        return render(c[0]).map(a -> "(NOT " + a + ")");
      }
      case "IS_NULL" -> {
        return render(c[0]).map(a -> "(" + a + " IS NULL)");
      }
      case "IS_NOT_NULL" -> {
        return render(c[0]).map(a -> "(" + a + " IS NOT NULL)");
      }
      case "IN" -> {
        if (c.length < 2) return Optional.empty();
        StringBuilder sb = new StringBuilder("(");
        Optional<String> v = render(c[0]);
        if (v.isEmpty()) return Optional.empty();
        sb.append(v.get()).append(" IN (");
        for (int i = 1; i < c.length; i++) {
          if (!(c[i] instanceof Literal<?>)) return Optional.empty();
          Optional<String> item = render(c[i]);
          if (item.isEmpty()) return Optional.empty();
          sb.append(i > 1 ? ", " : "").append(item.get());
        }
        return Optional.of(sb.append("))").toString());
      }
      case "STARTS_WITH" -> {
        if (c.length != 2 || !(c[1] instanceof Literal<?> l) || !(l.value() instanceof UTF8String s)) return Optional.empty();
        Optional<String> col = render(c[0]);
        String escaped = s.toString().replace("!", "!!").replace("%", "!%").replace("_", "!_");
        Optional<String> pattern = string(escaped + "%");
        if (col.isEmpty() || pattern.isEmpty()) return Optional.empty();
        return Optional.of("(" + col.get() + " LIKE " + pattern.get() + " ESCAPE '!')");
      }
      case "ALWAYS_TRUE" -> {
        return Optional.of("TRUE");
      }
      case "ALWAYS_FALSE" -> {
        return Optional.of("FALSE");
      }
      default -> {
        return Optional.empty();
      }
    }
  }

  /** A literal of a Spark internal value, or empty. */
  static Optional<String> literal(Object v, DataType t) {
    if (v == null) return Optional.empty();
    if (t.equals(DataTypes.BooleanType)) return Optional.of((Boolean) v ? "TRUE" : "FALSE");
    if (t.equals(DataTypes.ByteType) || t.equals(DataTypes.ShortType) || t.equals(DataTypes.IntegerType)) {
      return Optional.of(v.toString());
    }
    if (t.equals(DataTypes.LongType)) return Optional.of(v.toString());
    if (t.equals(DataTypes.DoubleType) || t.equals(DataTypes.FloatType)) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) return Optional.empty();
      String text = t.equals(DataTypes.FloatType) ? Float.toString((Float) v) : Double.toString(d);
      return Optional.of("CAST('" + text + "' AS " + (t.equals(DataTypes.FloatType) ? "REAL" : "DOUBLE") + ")");
    }
    if (t instanceof DecimalType) {
      BigDecimal d = ((Decimal) v).toJavaBigDecimal();
      return Optional.of(d.toPlainString());
    }
    if (t.equals(DataTypes.StringType) && v instanceof UTF8String s) return string(s.toString());
    if (t.equals(DataTypes.DateType)) {
      LocalDate d = LocalDate.ofEpochDay((Integer) v);
      if (d.getYear() < 1 || d.getYear() > 9999) return Optional.empty();
      return Optional.of("DATE '" + d + "'");
    }
    if (t.equals(DataTypes.TimestampType) || t.equals(DataTypes.TimestampNTZType)) {
      long micros = (Long) v;
      Instant i = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
      LocalDateTime ldt = LocalDateTime.ofInstant(i, ZoneOffset.UTC);
      if (ldt.getYear() < 1 || ldt.getYear() > 9999) return Optional.empty();
      String text = TS.format(ldt) + (t.equals(DataTypes.TimestampType) ? "+00:00" : "");
      return Optional.of("TIMESTAMP '" + text + "'");
    }
    return Optional.empty();
  }

  /** An aggregate Quiver computes exactly as Spark does (COUNT, COUNT(*), SUM, MIN, MAX; no DISTINCT), or empty. */
  static Optional<String> aggregate(AggregateFunc f) {
    if (f instanceof CountStar) return Optional.of("COUNT(*)");
    if (f instanceof Count c && !c.isDistinct()) return render(c.column()).map(a -> "COUNT(" + a + ")");
    if (f instanceof Sum s && !s.isDistinct()) return render(s.column()).map(a -> "SUM(" + a + ")");
    if (f instanceof Min m) return render(m.column()).map(a -> "MIN(" + a + ")");
    if (f instanceof Max m) return render(m.column()).map(a -> "MAX(" + a + ")");
    return Optional.empty();
  }
}
