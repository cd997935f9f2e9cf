package dev.quiver.planner.types;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Arrow types as Quiver's SQL type system: classification, SQL names and the implicit coercions. */
public final class SqlTypes {
  public static final ArrowType BOOLEAN = ArrowType.Bool.INSTANCE;
  public static final ArrowType TINYINT = new ArrowType.Int(8, true);
  public static final ArrowType SMALLINT = new ArrowType.Int(16, true);
  public static final ArrowType INTEGER = new ArrowType.Int(32, true);
  public static final ArrowType BIGINT = new ArrowType.Int(64, true);
  public static final ArrowType REAL = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  public static final ArrowType DOUBLE = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  public static final ArrowType VARCHAR = ArrowType.Utf8.INSTANCE;
  public static final ArrowType VARBINARY = ArrowType.Binary.INSTANCE;
  public static final ArrowType DATE = new ArrowType.Date(DateUnit.DAY);
  public static final ArrowType TIMESTAMP = new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
  public static final ArrowType TIMESTAMPTZ = new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
  /** The type of an untyped NULL literal. */
  public static final ArrowType NULL = ArrowType.Null.INSTANCE;
  public static final int MAX_DECIMAL_PRECISION = 38;

  private SqlTypes() {}

  public static ArrowType decimal(int precision, int scale) {
    return new ArrowType.Decimal(precision, scale, 128);
  }

  public static boolean isInteger(ArrowType t) { return t instanceof ArrowType.Int; }
  public static boolean isFloat(ArrowType t) { return t instanceof ArrowType.FloatingPoint; }
  public static boolean isDecimal(ArrowType t) { return t instanceof ArrowType.Decimal; }
  public static boolean isNumeric(ArrowType t) { return isInteger(t) || isFloat(t) || isDecimal(t); }
  public static boolean isString(ArrowType t) { return t instanceof ArrowType.Utf8; }
  public static boolean isTemporal(ArrowType t) { return t instanceof ArrowType.Date || t instanceof ArrowType.Timestamp; }
  public static boolean isNull(ArrowType t) { return t instanceof ArrowType.Null; }
  public static boolean isBoolean(ArrowType t) { return t instanceof ArrowType.Bool; }

  /** Types whose values Quiver keeps as {@code long}: integers (but UInt64), dates and timestamps. */
  public static boolean isLongBacked(ArrowType t) {
    return (t instanceof ArrowType.Int i && (i.getIsSigned() || i.getBitWidth() < 64)) || isTemporal(t);
  }

  /** The SQL name of a type, as EXPLAIN, errors and JDBC metadata show it. */
  public static String sqlName(ArrowType t) {
    if (t instanceof ArrowType.Int i) {
      String base = switch (i.getBitWidth()) {
        case 8 -> "TINYINT"; case 16 -> "SMALLINT"; case 32 -> "INTEGER"; default -> "BIGINT";
      };
      return i.getIsSigned() ? base : "U" + base;
    }
    if (t instanceof ArrowType.FloatingPoint f) return f.getPrecision() == FloatingPointPrecision.SINGLE ? "REAL" : "DOUBLE";
    if (t instanceof ArrowType.Decimal d) return "DECIMAL(" + d.getPrecision() + "," + d.getScale() + ")";
    if (t instanceof ArrowType.Utf8) return "VARCHAR";
    if (t instanceof ArrowType.Binary) return "VARBINARY";
    if (t instanceof ArrowType.Bool) return "BOOLEAN";
    if (t instanceof ArrowType.Date) return "DATE";
    if (t instanceof ArrowType.Timestamp ts) {
      String p = switch (ts.getUnit()) { case SECOND -> "0"; case MILLISECOND -> "3"; case MICROSECOND -> "6"; case NANOSECOND -> "9"; };
      String base = ts.getUnit() == TimeUnit.MICROSECOND ? "TIMESTAMP" : "TIMESTAMP(" + p + ")";
      return ts.getTimezone() == null ? base : base + " WITH TIME ZONE";
    }
    if (t instanceof ArrowType.Null) return "NULL";
    return t.toString();
  }

  /** A type from its SQL name and arguments, as in {@code CAST(x AS DECIMAL(10,2))}. */
  public static ArrowType parse(String name, List<String> args) {
    String n = name.trim().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("^([A-Z][A-Z0-9 ]*?)\\s*(?:\\(([^)]*)\\))?\\s*(WITH TIME ZONE|WITHOUT TIME ZONE)?$").matcher(n);
    if (m.matches() && (m.group(2) != null || m.group(3) != null)) {
      List<String> inner = m.group(2) == null ? args : List.of(m.group(2).split("\\s*,\\s*"));
      String base = m.group(1).trim();
      if (base.equals("TIMESTAMP") || base.equals("TIMESTAMPTZ")) {
        boolean zoned = base.equals("TIMESTAMPTZ") || "WITH TIME ZONE".equals(m.group(3));
        int p = inner.isEmpty() ? 6 : Integer.parseInt(inner.get(0).trim());
        TimeUnit unit = p <= 0 ? TimeUnit.SECOND : p <= 3 ? TimeUnit.MILLISECOND : p <= 6 ? TimeUnit.MICROSECOND
            : TimeUnit.NANOSECOND;
        return new ArrowType.Timestamp(unit, zoned ? "UTC" : null);
      }
      return parse(base + (m.group(3) == null ? "" : " " + m.group(3)), inner);
    }
    switch (n) {
      case "BOOLEAN": case "BOOL": return BOOLEAN;
      case "TINYINT": case "INT1": return TINYINT;
      case "SMALLINT": case "INT2": return SMALLINT;
      case "INT": case "INTEGER": case "INT4": return INTEGER;
      case "BIGINT": case "INT8": case "LONG": return BIGINT;
      case "UTINYINT": return new ArrowType.Int(8, false);
      case "USMALLINT": return new ArrowType.Int(16, false);
      case "UINTEGER": return new ArrowType.Int(32, false);
      case "UBIGINT": return new ArrowType.Int(64, false);
      case "REAL": case "FLOAT4": return REAL;
      case "FLOAT": case "FLOAT8": case "DOUBLE": case "DOUBLE PRECISION": return DOUBLE;
      case "VARCHAR": case "TEXT": case "STRING": case "CHAR": case "CHARACTER": case "CHARACTER VARYING": return VARCHAR;
      case "VARBINARY": case "BINARY": case "BLOB": case "BYTEA": return VARBINARY;
      case "DATE": return DATE;
      case "TIMESTAMP": case "DATETIME": case "TIMESTAMP WITHOUT TIME ZONE": return TIMESTAMP;
      case "TIMESTAMPTZ": case "TIMESTAMP WITH TIME ZONE": return TIMESTAMPTZ;
      case "DECIMAL": case "NUMERIC": case "DEC": {
        int p = args.isEmpty() ? 18 : Integer.parseInt(args.get(0).trim());
        int s = args.size() < 2 ? (args.isEmpty() ? 3 : 0) : Integer.parseInt(args.get(1).trim());
        if (p < 1 || p > MAX_DECIMAL_PRECISION || s < 0 || s > p) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "invalid DECIMAL(" + p + "," + s + "): precision must be 1.."
              + MAX_DECIMAL_PRECISION + " and scale 0..precision");
        }
        return decimal(p, s);
      }
      default:
        throw new QuiverException(ErrorCode.NOT_FOUND, "type " + name + " does not exist");
    }
  }

  /** The decimal type that holds every value of an integer or decimal type exactly. */
  public static ArrowType.Decimal asDecimal(ArrowType t) {
    if (t instanceof ArrowType.Decimal d) return d;
    ArrowType.Int i = (ArrowType.Int) t;
    int digits = switch (i.getBitWidth()) {
      case 8 -> 3; case 16 -> 5; case 32 -> 10; default -> i.getIsSigned() ? 19 : 20;
    };
    return (ArrowType.Decimal) decimal(digits, 0);
  }

  /** Unsigned integers widen to the next signed type for arithmetic and comparison; UBIGINT to DECIMAL(20,0). */
  public static ArrowType signedView(ArrowType t) {
    if (t instanceof ArrowType.Int i && !i.getIsSigned()) {
      return switch (i.getBitWidth()) {
        case 8 -> SMALLINT; case 16 -> INTEGER; case 32 -> BIGINT; default -> decimal(20, 0);
      };
    }
    return t;
  }

  /** The type both sides of a numeric comparison or arithmetic are coerced to, or null if none. */
  public static ArrowType numericCommon(ArrowType a, ArrowType b) {
    a = signedView(a);
    b = signedView(b);
    if (a.equals(b)) return a;
    if (isFloat(a) || isFloat(b)) {
      return a.equals(REAL) && b.equals(REAL) ? REAL : DOUBLE;
    }
    if (isDecimal(a) || isDecimal(b)) {
      ArrowType.Decimal x = asDecimal(a);
      ArrowType.Decimal y = asDecimal(b);
      int scale = Math.max(x.getScale(), y.getScale());
      int intDigits = Math.max(x.getPrecision() - x.getScale(), y.getPrecision() - y.getScale());
      return decimal(Math.min(MAX_DECIMAL_PRECISION, intDigits + scale), scale);
    }
    int width = Math.max(((ArrowType.Int) a).getBitWidth(), ((ArrowType.Int) b).getBitWidth());
    return new ArrowType.Int(width, true);
  }

  /**
   * The type two operands of a comparison (or members of an IN list) are coerced to: numeric types to
   * their common type, a string to the temporal type it is compared with, DATE to TIMESTAMP, NULL to
   * the other side. Null when they cannot be compared.
   */
  public static ArrowType comparisonCommon(ArrowType a, ArrowType b) {
    if (isNull(a)) return b;
    if (isNull(b)) return a;
    if (a.equals(b)) return a;
    if (isNumeric(a) && isNumeric(b)) return numericCommon(a, b);
    if (isString(a) && (isTemporal(b) || isBoolean(b) || isNumeric(b))) return isNumeric(b) ? null : b;
    if (isString(b) && (isTemporal(a) || isBoolean(a))) return a;
    if (isTemporal(a) && isTemporal(b)) {
      if (a instanceof ArrowType.Date) return b; // a DATE meets a TIMESTAMP at the timestamp's type
      if (b instanceof ArrowType.Date) return a;
      ArrowType.Timestamp x = (ArrowType.Timestamp) a;
      ArrowType.Timestamp y = (ArrowType.Timestamp) b;
      TimeUnit unit = x.getUnit().ordinal() >= y.getUnit().ordinal() ? x.getUnit() : y.getUnit();
      String tz = x.getTimezone() != null ? x.getTimezone() : y.getTimezone();
      return new ArrowType.Timestamp(unit, tz);
    }
    return null;
  }
}
