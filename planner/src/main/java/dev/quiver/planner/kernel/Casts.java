package dev.quiver.planner.kernel;

import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.common.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The value-level semantics of CAST between the core types. Out-of-range values and unparsable strings
 * are {@link ErrorCode#DATA_ERROR}s; numbers round half away from zero; timestamps keep UTC instants.
 */
public final class Casts {
  private static final DateTimeFormatter TIMESTAMP_IN = new DateTimeFormatterBuilder()
      .appendPattern("yyyy-MM-dd")
      .optionalStart().optionalStart().appendLiteral(' ').optionalEnd().optionalStart().appendLiteral('T').optionalEnd()
      .appendPattern("HH:mm")
      .optionalStart().appendPattern(":ss").optionalEnd()
      .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
      .optionalEnd()
      .toFormatter(Locale.ROOT);

  private Casts() {}

  /** Whether Quiver can cast {@code from} to {@code to} at all (values may still fail). */
  public static boolean castable(ArrowType from, ArrowType to) {
    if (from.equals(to) || SqlTypes.isNull(from) || SqlTypes.isString(to)) return true;
    if (SqlTypes.isString(from)) return !(to instanceof ArrowType.Binary);
    if (SqlTypes.isNumeric(from) && (SqlTypes.isNumeric(to) || SqlTypes.isBoolean(to))) return true;
    if (SqlTypes.isBoolean(from) && SqlTypes.isInteger(to)) return true;
    if (SqlTypes.isTemporal(from) && SqlTypes.isTemporal(to)) return true;
    return false;
  }

  public static Object cast(Object v, ArrowType from, ArrowType to) {
    return cast(v, from, to, java.time.ZoneOffset.UTC);
  }

  /**
   * {@code v} cast from {@code from} to {@code to}; {@code zone} is the session zone that gives zoned
   * timestamps their calendar day (naive timestamps have none: their wall clock is their day).
   */
  public static Object cast(Object v, ArrowType from, ArrowType to, java.time.ZoneId zone) {
    if (v == null) return null;
    if (!zone.equals(java.time.ZoneOffset.UTC)) {
      if (from instanceof ArrowType.Timestamp ts && ts.getTimezone() != null && to instanceof ArrowType.Date) {
        long per = unitsPerSecond(ts.getUnit());
        java.time.Instant i = java.time.Instant.ofEpochSecond(Math.floorDiv((Long) v, per));
        return i.atZone(zone).toLocalDate().toEpochDay();
      }
      if (from instanceof ArrowType.Date && to instanceof ArrowType.Timestamp ts && ts.getTimezone() != null) {
        long seconds = LocalDate.ofEpochDay((Long) v).atStartOfDay(zone).toEpochSecond();
        return Math.multiplyExact(seconds, unitsPerSecond(ts.getUnit()));
      }
    }
    if (from.equals(to)) return v;
    if (SqlTypes.isString(to)) {
      if (v instanceof byte[] b) return new String(b, StandardCharsets.UTF_8);
      return Values.format(v, from);
    }
    if (SqlTypes.isString(from)) return fromString(((String) v).trim(), to);
    if (SqlTypes.isBoolean(from)) return toNumber(BigDecimal.valueOf((Boolean) v ? 1 : 0), v, from, to);
    if (SqlTypes.isNumeric(from)) {
      if (SqlTypes.isBoolean(to)) return isZero(v, from) ? Boolean.FALSE : Boolean.TRUE;
      if (SqlTypes.isFloat(from)) {
        double d = (Double) v;
        if (SqlTypes.isFloat(to)) return to.equals(SqlTypes.REAL) ? (double) (float) d : d;
        if (Double.isNaN(d) || Double.isInfinite(d)) throw outOfRange(v, from, to);
        return toNumber(new BigDecimal(Double.toString(d)), v, from, to);
      }
      return toNumber(exact(v, from), v, from, to);
    }
    if (SqlTypes.isTemporal(from) && SqlTypes.isTemporal(to)) return temporal((Long) v, from, to);
    throw new QuiverException(ErrorCode.INVALID_QUERY,
        "cannot cast " + SqlTypes.sqlName(from) + " to " + SqlTypes.sqlName(to));
  }

  private static boolean isZero(Object v, ArrowType from) {
    if (v instanceof Double d) return d == 0.0;
    if (v instanceof BigDecimal b) return b.signum() == 0;
    return (Long) v == 0L;
  }

  /** An exact decimal of an integer or decimal value. */
  public static BigDecimal exact(Object v, ArrowType from) {
    if (v instanceof BigDecimal b) return b;
    long l = (Long) v;
    if (from instanceof ArrowType.Int i && !i.getIsSigned() && i.getBitWidth() == 64 && l < 0) {
      return new BigDecimal(new BigInteger(Long.toUnsignedString(l)));
    }
    return BigDecimal.valueOf(l);
  }

  private static Object toNumber(BigDecimal d, Object original, ArrowType from, ArrowType to) {
    if (to instanceof ArrowType.FloatingPoint) {
      double x = d.doubleValue();
      return to.equals(SqlTypes.REAL) ? (double) (float) x : x;
    }
    if (to instanceof ArrowType.Decimal dec) {
      BigDecimal r = d.setScale(dec.getScale(), RoundingMode.HALF_UP);
      if (r.precision() - r.scale() > dec.getPrecision() - dec.getScale() && r.signum() != 0) {
        throw outOfRange(original, from, to);
      }
      return r;
    }
    if (to instanceof ArrowType.Int i) {
      BigInteger r = d.setScale(0, RoundingMode.HALF_UP).toBigIntegerExact();
      if (!fits(r, i)) throw outOfRange(original, from, to);
      return r.longValue();
    }
    if (to instanceof ArrowType.Bool) return d.signum() != 0;
    throw new QuiverException(ErrorCode.INVALID_QUERY,
        "cannot cast " + SqlTypes.sqlName(from) + " to " + SqlTypes.sqlName(to));
  }

  /** Whether an integer fits the range of an integer type. */
  public static boolean fits(BigInteger r, ArrowType.Int i) {
    int w = i.getBitWidth();
    BigInteger min = i.getIsSigned() ? BigInteger.ONE.shiftLeft(w - 1).negate() : BigInteger.ZERO;
    BigInteger max = i.getIsSigned() ? BigInteger.ONE.shiftLeft(w - 1).subtract(BigInteger.ONE)
        : BigInteger.ONE.shiftLeft(w).subtract(BigInteger.ONE);
    return r.compareTo(min) >= 0 && r.compareTo(max) <= 0;
  }

  /** Whether a long fits a long-backed integer type (signed, or unsigned narrower than 64 bits). */
  public static boolean fits(long v, ArrowType.Int i) {
    int w = i.getBitWidth();
    if (i.getIsSigned()) {
      return w == 64 || (v >= -(1L << (w - 1)) && v <= (1L << (w - 1)) - 1);
    }
    return w == 64 ? true : v >= 0 && v <= (1L << w) - 1;
  }

  /** A value as an error message quotes it: at most 200 characters. */
  private static String shown(String s) {
    return s.length() <= 200 ? s : s.substring(0, Character.isHighSurrogate(s.charAt(199)) ? 199 : 200) + "…";
  }

  private static QuiverException outOfRange(Object v, ArrowType from, ArrowType to) {
    return new QuiverException(ErrorCode.DATA_ERROR,
        "value " + shown(Values.format(v, from)) + " is out of range for " + SqlTypes.sqlName(to));
  }

  private static Object fromString(String s, ArrowType to) {
    // no number, date, timestamp or boolean is this long; parsing digits is quadratic (a million: 14 s), and so
    // are the FLOAT and time-zone patterns on long runs of digits or spaces
    if (s.length() > 1_000) {
      throw new QuiverException(ErrorCode.DATA_ERROR, "invalid " + SqlTypes.sqlName(to) + " value: '" + shown(s)
          + "' (" + s.length() + " characters)");
    }
    try {
      if (to instanceof ArrowType.Int || to instanceof ArrowType.Decimal) {
        return toNumber(new BigDecimal(s), s, SqlTypes.VARCHAR, to);
      }
      if (to instanceof ArrowType.FloatingPoint) {
        String l = s.toLowerCase(Locale.ROOT);
        double d = switch (l) {
          case "nan" -> Double.NaN;
          case "inf", "infinity", "+inf", "+infinity" -> Double.POSITIVE_INFINITY;
          case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
          default -> {
            if (!l.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?")) throw new NumberFormatException(s);
            yield Double.parseDouble(l);
          }
        };
        return to.equals(SqlTypes.REAL) ? (double) (float) d : d;
      }
      if (to instanceof ArrowType.Bool) {
        return switch (s.toLowerCase(Locale.ROOT)) {
          case "true", "t", "yes", "y", "1", "on" -> Boolean.TRUE;
          case "false", "f", "no", "n", "0", "off" -> Boolean.FALSE;
          default -> throw new NumberFormatException(s);
        };
      }
      if (to instanceof ArrowType.Date) return LocalDate.parse(s).toEpochDay();
      if (to instanceof ArrowType.Timestamp ts) return parseTimestamp(s, ts);
    } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
      throw new QuiverException(ErrorCode.DATA_ERROR, "invalid " + SqlTypes.sqlName(to) + " value: '" + shown(s) + "'");
    }
    throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot cast VARCHAR to " + SqlTypes.sqlName(to));
  }

  private static long parseTimestamp(String s, ArrowType.Timestamp ts) {
    String text = s;
    ZoneOffset offset = ZoneOffset.UTC;
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(.*?)\\s*(Z|[+-]\\d{2}(:?\\d{2})?)$").matcher(s);
    if (m.matches() && m.group(1).length() >= 10 && m.group(1).contains(":")) {
      text = m.group(1);
      String z = m.group(2);
      offset = z.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(z.length() == 3 ? z + ":00" : z);
    }
    LocalDateTime ldt = text.length() == 10 ? LocalDate.parse(text).atStartOfDay() : LocalDateTime.parse(text, TIMESTAMP_IN);
    OffsetDateTime odt = ldt.atOffset(offset);
    long seconds = odt.toEpochSecond();
    int nanos = odt.getNano();
    return switch (ts.getUnit()) {
      case SECOND -> seconds;
      case MILLISECOND -> Math.addExact(Math.multiplyExact(seconds, 1000L), nanos / 1_000_000);
      case MICROSECOND -> Math.addExact(Math.multiplyExact(seconds, 1_000_000L), nanos / 1000);
      case NANOSECOND -> Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), nanos);
    };
  }

  public static long unitsPerSecond(TimeUnit u) {
    return switch (u) {
      case SECOND -> 1L; case MILLISECOND -> 1_000L; case MICROSECOND -> 1_000_000L; case NANOSECOND -> 1_000_000_000L;
    };
  }

  private static Object temporal(long v, ArrowType from, ArrowType to) {
    try {
      if (from instanceof ArrowType.Date && to instanceof ArrowType.Timestamp ts) {
        return Math.multiplyExact(v, 86_400L * unitsPerSecond(ts.getUnit()));
      }
      if (from instanceof ArrowType.Timestamp ts && to instanceof ArrowType.Date) {
        return Math.floorDiv(v, 86_400L * unitsPerSecond(ts.getUnit()));
      }
      ArrowType.Timestamp a = (ArrowType.Timestamp) from;
      ArrowType.Timestamp b = (ArrowType.Timestamp) to;
      long fa = unitsPerSecond(a.getUnit());
      long fb = unitsPerSecond(b.getUnit());
      return fb >= fa ? Math.multiplyExact(v, fb / fa) : Math.floorDiv(v, fa / fb);
    } catch (ArithmeticException e) {
      throw outOfRange(v, from, to);
    }
  }
}
