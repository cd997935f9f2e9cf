package dev.quiver.planner.kernel;

import dev.quiver.planner.expr.Expr.Volatility;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.common.Values;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The scalar functions: how each is typed, how volatile it is, and its value-level implementation
 * (physical-form values of {@link Values}). Strict functions return NULL when an argument is NULL.
 */
public final class Functions {
  /** Patterns longer than this are refused, so compiling one at plan time stays cheap (RE2/J is linear). */
  public static final int MAX_PATTERN_LENGTH = 10_000;

  /** A function's value for one row. */
  @FunctionalInterface
  public interface Impl {
    Object apply(Object[] args, ArrowType[] argTypes, ArrowType resultType, EvalContext ctx);
  }

  /** Types the arguments (after the analyzer's coercion) and returns the result type. */
  @FunctionalInterface
  public interface Typer {
    ArrowType resultType(List<ArrowType> args);
  }

  public record Def(String name, Volatility volatility, boolean strict, int minArgs, int maxArgs, Typer typer,
      Impl impl) {}

  private static final Map<String, Def> DEFS = Map.ofEntries(
      def("abs", 1, 1, a -> numeric(a.get(0), "abs"), (v, t, r, c) -> abs(v[0])),
      def("round", 1, 2, a -> numeric(a.get(0), "round"), (v, t, r, c) -> round(v, t)),
      def("pow", 2, 2, a -> { numeric(a.get(0), "pow"); numeric(a.get(1), "pow"); return SqlTypes.DOUBLE; },
          (v, t, r, c) -> pow(((Number) v[0]).doubleValue(), ((Number) v[1]).doubleValue())),
      def("lower", 1, 1, a -> string(a.get(0), "lower"), (v, t, r, c) -> ((String) v[0]).toLowerCase(Locale.ROOT)),
      def("upper", 1, 1, a -> string(a.get(0), "upper"), (v, t, r, c) -> ((String) v[0]).toUpperCase(Locale.ROOT)),
      def("length", 1, 1, a -> { string(a.get(0), "length"); return SqlTypes.BIGINT; },
          (v, t, r, c) -> (long) ((String) v[0]).codePointCount(0, ((String) v[0]).length())),
      def("trim", 1, 1, a -> string(a.get(0), "trim"), (v, t, r, c) -> ((String) v[0]).strip()),
      def("substring", 2, 3, a -> string(a.get(0), "substring"), (v, t, r, c) -> substring(v)),
      def("concat_op", 2, 2, a -> SqlTypes.VARCHAR, (v, t, r, c) -> text(v[0], t[0]) + text(v[1], t[1])),
      def("regexp_like", 2, 2, a -> SqlTypes.BOOLEAN,
          (v, t, r, c) -> compile((String) v[1]).matcher((String) v[0]).find()),
      def("date_trunc", 2, 2, a -> a.get(1), (v, t, r, c) -> dateTrunc((String) v[0], (Long) v[1], t[1])),
      def("add_interval", 3, 3, a -> a.get(0), (v, t, r, c) -> addInterval((Long) v[0], t[0], (Long) v[1], (Long) v[2])),
      def("like_escape", 2, 2, a -> SqlTypes.VARCHAR, (v, t, r, c) -> likeEscape((String) v[0], (String) v[1])),
      def("strpos", 2, 2, a -> SqlTypes.BIGINT, (v, t, r, c) -> strpos((String) v[0], (String) v[1])),
      def("date_part", 2, 2, a -> SqlTypes.BIGINT, (v, t, r, c) -> datePart((String) v[0], (Long) v[1], t[1], c)),
      Map.entry("now", new Def("now", Volatility.STABLE, false, 0, 0, a -> SqlTypes.TIMESTAMPTZ,
          (v, t, r, c) -> c.startMicros())),
      Map.entry("current_date", new Def("current_date", Volatility.STABLE, false, 0, 0, a -> SqlTypes.DATE,
          (v, t, r, c) -> Instant.ofEpochSecond(Math.floorDiv(c.startMicros(), 1_000_000L)).atZone(c.zone())
              .toLocalDate().toEpochDay())),
      Map.entry("random", new Def("random", Volatility.VOLATILE, false, 0, 0, a -> SqlTypes.DOUBLE,
          (v, t, r, c) -> ThreadLocalRandom.current().nextDouble())),
      Map.entry("coalesce", new Def("coalesce", Volatility.IMMUTABLE, false, 1, Integer.MAX_VALUE, a -> a.get(0),
          (v, t, r, c) -> {
            for (Object x : v) if (x != null) return x;
            return null;
          })),
      Map.entry("nullif", new Def("nullif", Volatility.IMMUTABLE, false, 2, 2, a -> a.get(0),
          (v, t, r, c) -> v[0] != null && v[1] != null && Kernels.compareObjects(Kernels.family(t[0]), v[0], v[1]) == 0
              ? null : v[0])));

  private Functions() {}

  /** Evaluates a call of {@code def} over the batch, row by row (a strict function is NULL on a NULL argument). */
  public static ColumnValues call(VectorSchemaRoot batch, BufferAllocator alloc, Def def,
      List<PhysicalExpr> args, ArrowType[] types, ArrowType resultType, EvalContext ctx) {
    int n = batch.getRowCount();
    List<ColumnValues> values = new ArrayList<>(args.size());
    try {
      for (PhysicalExpr a : args) values.add(a.eval(batch, alloc));
      FieldVector out = Vectors.create("", resultType, alloc, n);
      try {
        Object[] row = new Object[args.size()];
        for (int i = 0; i < n; i++) {
          boolean anyNull = false;
          for (int a = 0; a < row.length; a++) {
            row[a] = values.get(a).getObject(i);
            anyNull |= row[a] == null;
          }
          if (anyNull && def.strict()) continue;
          Vectors.set(out, i, def.impl().apply(row, types, resultType, ctx));
        }
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return Kernels.done(out, n);
    } finally {
      values.forEach(ColumnValues::close);
    }
  }

  /**
   * A LIKE pattern written with {@code escape} as its escape character (empty: none), rewritten in the
   * default form, where a backslash escapes: {@code like_escape('a!%\\', '!')} is {@code a\\%\\\\}. Fails an
   * escape of more than one character and a pattern that ends with the escape character (as PostgreSQL does).
   */
  public static String likeEscape(String pattern, String escape) {
    if (escape.codePointCount(0, escape.length()) > 1) {
      throw new QuiverException(ErrorCode.DATA_ERROR, "invalid escape string '" + shown(escape)
          + "': the escape of LIKE must be empty or one character");
    }
    int esc = escape.isEmpty() ? -1 : escape.codePointAt(0);
    StringBuilder out = new StringBuilder(pattern.length() + 8);
    for (int i = 0; i < pattern.length(); ) {
      int cp = pattern.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == esc) {
        if (i >= pattern.length()) {
          throw new QuiverException(ErrorCode.DATA_ERROR, "LIKE pattern must not end with the escape character: '"
              + shown(pattern) + "' ESCAPE '" + shown(escape) + "'");
        }
        int next = pattern.codePointAt(i);
        i += Character.charCount(next);
        if (next == '%' || next == '_' || next == '\\') out.append('\\');
        out.appendCodePoint(next);
      } else if (cp == '\\') {
        out.append("\\\\");
      } else {
        out.appendCodePoint(cp);
      }
    }
    return out.toString();
  }

  private static String shown(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "… (" + s.length() + " characters)";
  }

  private static Map.Entry<String, Def> def(String name, int min, int max, Typer typer, Impl impl) {
    return Map.entry(name, new Def(name, Volatility.IMMUTABLE, true, min, max, typer, impl));
  }

  public static Def lookup(String name) {
    return DEFS.get(name.toLowerCase(Locale.ROOT));
  }

  /** The names of every registered function (for the function catalog's consistency test). */
  public static java.util.Set<String> names() {
    return java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(DEFS.keySet()));
  }

  private static ArrowType numeric(ArrowType t, String f) {
    if (!SqlTypes.isNumeric(t) && !SqlTypes.isNull(t)) throw invalid(f, t);
    return SqlTypes.isNull(t) ? SqlTypes.INTEGER : SqlTypes.signedView(t);
  }

  private static ArrowType string(ArrowType t, String f) {
    if (!SqlTypes.isString(t) && !SqlTypes.isNull(t)) throw invalid(f, t);
    return SqlTypes.VARCHAR;
  }

  private static QuiverException invalid(String f, ArrowType t) {
    return new QuiverException(ErrorCode.INVALID_QUERY, "function " + f + " is not defined for " + SqlTypes.sqlName(t));
  }

  /**
   * x^y in DOUBLE, as C's pow (and so DuckDB's): Java's Math.pow but for pow(1, y) = 1 for every y (NaN too) and
   * pow(-1, ±Infinity) = 1, where Java answers NaN; pow(0, -1) is Infinity, a negative base to a fractional power NaN.
   */
  static double pow(double x, double y) {
    if (x == 1.0 || x == -1.0 && Double.isInfinite(y)) return 1.0;
    return Math.pow(x, y);
  }

  /** 1-based position of {@code needle} in {@code s} in characters, 0 when absent. */
  private static long strpos(String s, String needle) {
    int i = s.indexOf(needle);
    return i < 0 ? 0 : s.codePointCount(0, i) + 1;
  }

  /** A DATE (days) or TIMESTAMP (its unit) plus calendar months and a duration in microseconds. */
  private static Object addInterval(long value, ArrowType type, long months, long micros) {
    try {
      if (type instanceof ArrowType.Date) {
        return LocalDate.ofEpochDay(value).plusMonths(months).plusDays(micros / 86_400_000_000L).toEpochDay();
      }
      ArrowType.Timestamp ts = (ArrowType.Timestamp) type;
      long perMicro = switch (ts.getUnit()) {
        case SECOND -> -1_000_000L; case MILLISECOND -> -1000L; case MICROSECOND -> 1L; case NANOSECOND -> 1000L;
      };
      long epochMicros = perMicro > 0 ? Math.floorDiv(value, perMicro) : Math.multiplyExact(value, -perMicro);
      long rest = perMicro > 0 ? Math.floorMod(value, perMicro) : 0;
      LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(epochMicros, 1_000_000L),
          (int) Math.floorMod(epochMicros, 1_000_000L) * 1000, ZoneOffset.UTC).plusMonths(months);
      long m = Math.addExact(Math.addExact(Math.multiplyExact(t.toEpochSecond(ZoneOffset.UTC), 1_000_000L), t.getNano() / 1000),
          micros);
      return perMicro > 0 ? Math.addExact(Math.multiplyExact(m, perMicro), rest) : Math.floorDiv(m, -perMicro);
    } catch (ArithmeticException | java.time.DateTimeException e) {
      throw new QuiverException(ErrorCode.DATA_ERROR, "date/time arithmetic is out of range");
    }
  }

  private static Object abs(Object v) {
    if (v instanceof Double d) return Math.abs(d);
    if (v instanceof BigDecimal b) return b.abs();
    long l = (Long) v;
    if (l == Long.MIN_VALUE) throw new QuiverException(ErrorCode.DATA_ERROR, "abs(" + l + ") is out of range");
    return Math.abs(l);
  }

  private static Object round(Object[] v, ArrowType[] t) {
    // no value has a digit beyond 10^±400 (a DOUBLE's are within 10^±324): clamping keeps the result, and keeps
    // setScale from a scale out of int range (a long cast to int wraps around) or BigInteger overflow
    int digits = v.length > 1 ? (int) Math.max(-400, Math.min(400, (Long) v[1])) : 0;
    if (v[0] instanceof Double d) {
      if (Double.isNaN(d) || Double.isInfinite(d)) return d;
      return new BigDecimal(Double.toString(d)).setScale(digits, RoundingMode.HALF_UP).doubleValue();
    }
    if (v[0] instanceof BigDecimal b) {
      return b.setScale(Math.min(digits, b.scale()), RoundingMode.HALF_UP).setScale(b.scale(), RoundingMode.UNNECESSARY);
    }
    if (digits >= 0) return v[0];
    BigDecimal r = BigDecimal.valueOf((Long) v[0]).setScale(digits, RoundingMode.HALF_UP);
    return r.longValueExact();
  }

  private static Object substring(Object[] v) {
    String s = (String) v[0];
    long start = (Long) v[1];
    long len = v.length > 2 ? (Long) v[2] : Long.MAX_VALUE;
    if (len < 0) throw new QuiverException(ErrorCode.DATA_ERROR, "negative substring length not allowed");
    int[] cps = s.codePoints().toArray();
    long from = Math.max(start, 1);
    long to = len == Long.MAX_VALUE ? cps.length + 1L : Math.min(cps.length + 1L, start + len);
    if (to <= from) return "";
    return new String(cps, (int) from - 1, (int) (to - from));
  }

  private static String text(Object v, ArrowType t) {
    return v instanceof String s ? s : Values.format(v, t);
  }

  /**
   * A regular expression compiled with RE2/J: linear-time matching, bounded pattern size. Counted repetitions
   * are bounded too: RE2/J expands them, so {@code ((a{1000}){1000}){1000}} would fill the heap while compiling.
   */
  public static com.google.re2j.Pattern compile(String pattern) {
    if (pattern.length() > MAX_PATTERN_LENGTH) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "regular expression longer than " + MAX_PATTERN_LENGTH + " characters");
    }
    String shown = pattern.length() > 200 ? pattern.substring(0, 200) + "…" : pattern;
    if (expandedSize(pattern) > MAX_EXPANDED_SIZE) {
      throw new QuiverException(ErrorCode.DATA_ERROR, "regular expression too large: '" + shown + "' repeats to more than "
          + MAX_EXPANDED_SIZE + " elements");
    }
    try {
      return com.google.re2j.Pattern.compile(pattern);
    } catch (com.google.re2j.PatternSyntaxException e) {
      throw new QuiverException(ErrorCode.DATA_ERROR, "invalid regular expression '" + shown + "': " + e.getDescription());
    } catch (StackOverflowError e) {
      throw new QuiverException(ErrorCode.DATA_ERROR, "regular expression too complex to compile: '" + shown + "'");
    }
  }

  /** How many elements a pattern may have once its counted repetitions ({@code x{n,m}}) are expanded. */
  public static final int MAX_EXPANDED_SIZE = 100_000;

  /**
   * An upper bound of a pattern's elements with every counted repetition expanded: an atom (a character, an
   * escape, a class, a group) repeated {@code {n,m}} counts max(n, m) times, nested repetitions multiply.
   */
  static long expandedSize(String p) {
    java.util.ArrayDeque<long[]> outer = new java.util.ArrayDeque<>();
    long[] cur = {0, 0}; // elements so far in this group, and the last atom's
    java.util.regex.Matcher repeat = java.util.regex.Pattern.compile("\\{(\\d{1,9})(,(\\d{0,9}))?}").matcher(p);
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      long atom = 1;
      if (c == '\\') {
        i++;
      } else if (c == '[') {
        int j = i + 1;
        if (j < p.length() && p.charAt(j) == '^') j++;
        if (j < p.length() && p.charAt(j) == ']') j++;
        while (j < p.length() && p.charAt(j) != ']') j += p.charAt(j) == '\\' ? 2 : 1;
        i = j;
      } else if (c == '(') {
        outer.push(cur);
        cur = new long[] {0, 0};
        continue;
      } else if (c == ')') {
        atom = cur[0] + 1;
        cur = outer.isEmpty() ? new long[] {0, 0} : outer.pop();
      } else if (c == '{' && repeat.region(i, p.length()).lookingAt()) {
        long n = Long.parseLong(repeat.group(1));
        long m = repeat.group(3) == null ? n : repeat.group(3).isEmpty() ? n + 1 : Long.parseLong(repeat.group(3));
        long times = Math.max(1, Math.max(n, m));
        cur[0] = Math.min(Long.MAX_VALUE / 4, cur[0] + Math.min(Long.MAX_VALUE / 4 / times, cur[1]) * (times - 1));
        cur[1] = Math.min(Long.MAX_VALUE / 4, Math.min(Long.MAX_VALUE / 4 / times, cur[1]) * times);
        i = repeat.end() - 1;
        continue;
      }
      cur[0] = Math.min(Long.MAX_VALUE / 4, cur[0] + atom);
      cur[1] = atom;
    }
    long total = cur[0];
    while (!outer.isEmpty()) total = Math.min(Long.MAX_VALUE / 4, total + outer.pop()[0]);
    return total;
  }

  private static ChronoUnit truncUnit(String unit) {
    return switch (unit.toLowerCase(Locale.ROOT)) {
      case "second" -> ChronoUnit.SECONDS;
      case "minute" -> ChronoUnit.MINUTES;
      case "hour" -> ChronoUnit.HOURS;
      case "day" -> ChronoUnit.DAYS;
      case "week" -> ChronoUnit.WEEKS;
      case "month" -> ChronoUnit.MONTHS;
      case "quarter" -> null;
      case "year" -> ChronoUnit.YEARS;
      default -> throw new QuiverException(ErrorCode.INVALID_QUERY, "unknown date_trunc unit '" + unit + "'");
    };
  }

  private static LocalDateTime toDateTime(long v, ArrowType t) {
    if (t instanceof ArrowType.Date) return LocalDate.ofEpochDay(v).atStartOfDay();
    ArrowType.Timestamp ts = (ArrowType.Timestamp) t;
    long per = Casts.unitsPerSecond(ts.getUnit());
    return LocalDateTime.ofEpochSecond(Math.floorDiv(v, per), (int) (Math.floorMod(v, per) * (1_000_000_000L / per)), ZoneOffset.UTC);
  }

  private static long fromDateTime(LocalDateTime dt, ArrowType t) {
    if (t instanceof ArrowType.Date) return dt.toLocalDate().toEpochDay();
    long per = Casts.unitsPerSecond(((ArrowType.Timestamp) t).getUnit());
    return dt.toEpochSecond(ZoneOffset.UTC) * per + dt.getNano() / (1_000_000_000L / per);
  }

  /** Truncates a date or timestamp to the start of its unit (timestamps in UTC). */
  public static long dateTrunc(String unit, long v, ArrowType t) {
    LocalDateTime dt = toDateTime(v, t);
    ChronoUnit u = truncUnit(unit);
    LocalDateTime r;
    if (u == null) {
      r = LocalDate.of(dt.getYear(), ((dt.getMonthValue() - 1) / 3) * 3 + 1, 1).atStartOfDay();
    } else if (u == ChronoUnit.YEARS) {
      r = LocalDate.of(dt.getYear(), 1, 1).atStartOfDay();
    } else if (u == ChronoUnit.MONTHS) {
      r = LocalDate.of(dt.getYear(), dt.getMonth(), 1).atStartOfDay();
    } else if (u == ChronoUnit.WEEKS) {
      LocalDate d = dt.toLocalDate();
      r = d.minusDays(d.getDayOfWeek().getValue() - 1L).atStartOfDay();
    } else {
      r = dt.truncatedTo(u);
    }
    return fromDateTime(r, t);
  }

  private static long datePart(String field, long v, ArrowType t, EvalContext c) {
    LocalDateTime dt = toDateTime(v, t);
    return switch (field.toLowerCase(Locale.ROOT)) {
      case "year" -> dt.getYear();
      case "quarter" -> (dt.getMonthValue() - 1) / 3 + 1;
      case "month" -> dt.getMonthValue();
      case "week" -> dt.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
      case "day" -> dt.getDayOfMonth();
      case "doy" -> dt.getDayOfYear();
      case "dow" -> dt.getDayOfWeek().getValue() % 7;
      case "hour" -> dt.getHour();
      case "minute" -> dt.getMinute();
      case "second" -> dt.getSecond();
      case "epoch" -> dt.toEpochSecond(ZoneOffset.UTC);
      default -> throw new QuiverException(ErrorCode.INVALID_QUERY, "unknown date part '" + field + "'");
    };
  }

}
