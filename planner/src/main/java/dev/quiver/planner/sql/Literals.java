package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.LongValue;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The typing of literals: integers by their size (INTEGER, BIGINT, then DECIMAL), decimals exactly (DOUBLE beyond
 * DECIMAL's precision or with an exponent), and typed literals such as {@code DATE '2024-01-01'}. Literals longer
 * than {@link #MAX_NUMBER_CHARS} are refused unread.
 */
final class Literals {
  private Literals() {}

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

  static Expr.Literal decimalLiteral(String text) {
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

  /** {@code DATE '…'}, {@code TIMESTAMP '…'}: JSqlParser 5.4's literal node, read as {@link #typedLiteral}. */
  static Expr dateTimeLiteral(DateTimeLiteralExpression d, String sql) {
    String raw = d.getValue();
    String text = raw.length() >= 2 && raw.startsWith("'") && raw.endsWith("'") ? raw.substring(1, raw.length() - 1) : raw;
    String typeName = switch (d.getType()) {
      case DATE -> "DATE";
      case TIMESTAMP, DATETIME -> "TIMESTAMP";
      case TIMESTAMPTZ -> "TIMESTAMPTZ";
      default -> throw QuiverException.unsupported("the " + d.getType() + " literal", SqlPositions.suffix(sql, d.getType().name()));
    };
    return typedLiteral(typeName, text, sql);
  }

  /**
   * A typed literal such as {@code DATE '2024-01-01'} or {@code TIMESTAMP '2024-01-01 10:00:00.5+02:00'}:
   * a timestamp with an offset is an instant (WITH TIME ZONE), one with more than six fractional
   * digits keeps nanoseconds.
   */
  static Expr typedLiteral(CastExpression c, String raw, String sql) {
    return typedLiteral(c.getColDataType().getDataType(), raw, sql);
  }

  private static Expr typedLiteral(String typeName, String raw, String sql) {
    String text = raw.replace("''", "'");
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
}
