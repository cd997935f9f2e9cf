package dev.quiver.common;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The one representation of a single SQL value in Quiver ("physical form"), shared by the planner's
 * literals and the scan's predicates: {@code Boolean}; {@code Long} for every integer type (the bit
 * pattern for UInt64), for dates (days since the epoch) and timestamps (in the type's unit);
 * {@code Double} for both float widths; {@code BigDecimal} at the type's scale; {@code String};
 * {@code byte[]}; {@code null} for NULL.
 */
public final class Values {
  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]");

  private Values() {}

  /** A value as SQL text of its type, e.g. {@code DATE '1995-01-01'} or {@code 'abc'}. */
  public static String toSql(Object v, ArrowType type) {
    if (v == null) return "NULL";
    if (v instanceof Boolean b) return b ? "TRUE" : "FALSE";
    if (type instanceof ArrowType.Utf8) return "'" + ((String) v).replace("'", "''") + "'";
    if (type instanceof ArrowType.Date) return "DATE '" + format(v, type) + "'";
    if (type instanceof ArrowType.Timestamp t) {
      return (t.getTimezone() == null ? "TIMESTAMP '" : "TIMESTAMPTZ '") + format(v, type) + "'";
    }
    if (type instanceof ArrowType.Binary) return "X'" + format(v, type) + "'";
    if (type instanceof ArrowType.FloatingPoint) {
      double d = (Double) v;
      if (Double.isNaN(d) || Double.isInfinite(d)) return "'" + d + "'::DOUBLE";
    }
    return format(v, type);
  }

  /** A value as plain text, as a VARCHAR cast or a client would show it. */
  public static String format(Object v, ArrowType type) {
    if (v == null) return null;
    if (type instanceof ArrowType.Date) return LocalDate.ofEpochDay((Long) v).toString();
    if (type instanceof ArrowType.Timestamp t) {
      long value = (Long) v;
      Instant instant = switch (t.getUnit()) {
        case SECOND -> Instant.ofEpochSecond(value);
        case MILLISECOND -> Instant.ofEpochMilli(value);
        case MICROSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1000);
        case NANOSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L), Math.floorMod(value, 1_000_000_000L));
      };
      String s = TS.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
      if (s.endsWith(".000000000")) s = s.substring(0, s.length() - 10);
      else if (s.contains(".")) s = s.replaceAll("0+$", "");
      return t.getTimezone() == null ? s : s + "+00";
    }
    if (type instanceof ArrowType.Int i && !i.getIsSigned() && i.getBitWidth() == 64) {
      return Long.toUnsignedString((Long) v);
    }
    if (type instanceof ArrowType.FloatingPoint fp) {
      double d = (Double) v;
      if (fp.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE) return Float.toString((float) d);
      return Double.toString(d);
    }
    if (v instanceof BigDecimal b) return b.toPlainString();
    if (v instanceof byte[] b) return HexFormat.of().formatHex(b);
    return v.toString();
  }
}
