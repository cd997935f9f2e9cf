package dev.quiver.planner;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Malformed and adversarial SQL for the fuzz tests ({@code SqlFuzzTest} against the planner, {@code
 * SqlFuzzServerTest} in it-tests against a server): mutations of valid queries (tokens deleted, duplicated,
 * swapped, replaced, truncated), splices of two queries, random token soup, random well-typed and ill-typed
 * queries, and adversarial templates (huge literals, deep nesting, pathological LIKE and regular
 * expressions, type mismatches, unknown names, empty input, unicode). Input {@code i} of a run with seed
 * {@code s} is always the same statement, so a failure is reproduced from the two numbers.
 *
 * <p>The tables it names: {@code t} and {@code bools} of {@link TestTables}, and the eight TPC-H tables.
 */
public final class SqlFuzzer {
  /** Columns of {@code t} by type family, for random expressions. */
  static final String[] INTS = {"i8", "i32", "i64"};
  static final String[] NUMS = {"i8", "i32", "i64", "f64", "dec"};
  static final String[] COLS = {"i8", "i32", "i64", "f64", "dec", "s", "d", "b"};
  static final String[] TABLES = {"t", "bools", "lineitem", "orders", "customer", "part", "partsupp", "supplier",
      "nation", "region"};
  static final String[] KEYWORDS = {"SELECT", "FROM", "WHERE", "GROUP", "BY", "HAVING", "ORDER", "LIMIT", "OFFSET",
      "UNION", "ALL", "INTERSECT", "EXCEPT", "JOIN", "LEFT", "RIGHT", "FULL", "OUTER", "INNER", "CROSS", "ON", "USING",
      "AS", "AND", "OR", "NOT", "IN", "EXISTS", "BETWEEN", "LIKE", "ILIKE", "IS", "NULL", "TRUE", "FALSE", "CASE",
      "WHEN", "THEN", "ELSE", "END", "CAST", "TRY_CAST", "DISTINCT", "WITH", "VALUES", "INTERVAL", "DATE", "TIMESTAMP",
      "ASC", "DESC", "NULLS", "FIRST", "LAST", "EXPLAIN", "ANALYZE", "VERBOSE", "SET", "SHOW", "INSERT", "DELETE",
      "LATERAL", "NATURAL", "OVER", "PARTITION", "ROLLUP", "GROUPING", "SETS", "FETCH", "ESCAPE", "ANY", "SOME",
      "ARRAY", "RECURSIVE", "DAY", "MONTH", "YEAR", "HOUR", "FILTER", "WITHIN", "TOP", "INTO", "UNKNOWN", "FOR"};
  static final String[] OPERATORS = {"+", "-", "*", "/", "%", "||", "=", "<>", "!=", "<", "<=", ">", ">=", "(", ")",
      "(", ")", ",", ",", ".", ";", "?", "::", "[", "]", "{", "}", "@", "#", "$", "\\", "`", "^", "&", "|", "~", "!",
      "'", "\"", "--", "/*", "*/", "=>", ":"};
  static final String[] FUNCTIONS = {"count", "sum", "avg", "min", "max", "abs", "round", "lower", "upper", "length",
      "trim", "substring", "substr", "position", "strpos", "concat", "coalesce", "nullif", "regexp_like",
      "regexp_matches", "date_trunc", "extract", "date_part", "now", "current_date", "current_timestamp", "random",
      "stddev", "var_pop", "variance", "bool_and", "bool_or", "every", "no_such_function", "row_number", "greatest"};
  static final String[] LITERALS = {"0", "1", "-1", "42", "2147483647", "2147483648", "-2147483649",
      "9223372036854775807", "9223372036854775808", "99999999999999999999999999999999999999",
      "999999999999999999999999999999999999999", "1.5", "-0.0", "0.1", "1e308", "1e309", "1e-400", "1.7976931348623157E308",
      "'a'", "''", "'NaN'", "'Infinity'", "'2020-01-01'", "'1995-03-15 10:00:00'", "'x''y'", "NULL", "TRUE", "FALSE",
      "DATE '2020-02-29'", "DATE '2020-02-30'", "DATE '0001-01-01'", "TIMESTAMP '2020-01-01 00:00:00+02:00'",
      "TIMESTAMP '9999-12-31 23:59:59.999999999'", "INTERVAL '1' DAY", "INTERVAL '-3' MONTH", "INTERVAL 'x' YEAR",
      "X'00ff'", "'\u00e9\u00e8'", "'\uD83D\uDE00'", "?"};
  static final String[] TYPES = {"INTEGER", "INT", "BIGINT", "SMALLINT", "TINYINT", "DOUBLE", "REAL", "FLOAT",
      "DECIMAL(38,10)", "DECIMAL(5,2)", "DECIMAL(38,38)", "DECIMAL(39,2)", "DECIMAL(0,0)", "DECIMAL(10,20)",
      "DECIMAL(-1,2)", "NUMERIC", "VARCHAR", "VARCHAR(3)", "TEXT", "BOOLEAN", "DATE", "TIMESTAMP",
      "TIMESTAMP WITH TIME ZONE", "VARBINARY", "BLOB", "UNSIGNED", "INTEGER UNSIGNED", "NOPE", "INTERVAL", "TIME",
      "CHAR(2)", "DOUBLE PRECISION", "UUID", "JSON"};
  static final String[] ODD_IDENTIFIERS = {"\"t\"", "\"T\"", "\"i32\"", "`t`", "quiver.main.t", "main.t",
      "quiver.t", "other.main.t", "quiver.other.t", "\"../t\"", "\"../../etc/passwd\"", "\"/etc/passwd\"",
      "quiver.main.\"../t\"", "\"t.parquet\"", "\"\"", "\"a\"\"b\"", "nope", "t.nope", "x.y.z", "a.b.c.d.e",
      "\"\u0000\"", "\"\u202e\"", "\"..\"", "\".\"", "\"a.b\"", "quiver.\"..\".t", "\".\".\".\"", "_", "__agg0",
      "__order0", "column1", "\u00e9t\u00e9", "\"\uD83D\uDE00\""};

  private final List<String> seeds;
  private final List<List<String>> seedTokens = new ArrayList<>();

  public SqlFuzzer(List<String> seeds) {
    this.seeds = List.copyOf(seeds);
    for (String s : seeds) seedTokens.add(tokens(s));
  }

  /** The seeds: the 22 TPC-H queries and simple queries over the small tables. */
  public static SqlFuzzer standard() {
    List<String> seeds = new ArrayList<>(tpchQueries());
    seeds.addAll(SIMPLE);
    return new SqlFuzzer(seeds);
  }

  /** Queries over {@code t} and {@code bools} that exercise every part of the SQL Quiver supports. */
  public static final List<String> SIMPLE = List.of(
      "SELECT * FROM t",
      "SELECT i32, s FROM t WHERE i32 > 0 AND s LIKE 's%' ORDER BY i32 DESC NULLS FIRST LIMIT 3 OFFSET 1",
      "SELECT s, count(*), sum(i64), avg(f64), min(d), max(dec) FROM t GROUP BY s HAVING count(*) > 1 ORDER BY 2",
      "SELECT DISTINCT b, s FROM t ORDER BY s",
      "SELECT a.i32, b.s FROM t a JOIN t b ON a.i32 = b.i32 AND a.f64 < b.f64 WHERE a.s IS NOT NULL",
      "SELECT a.i32, b.x FROM t a LEFT JOIN bools b ON a.b = b.x",
      "SELECT * FROM t a FULL OUTER JOIN t b USING (i32)",
      "SELECT * FROM t CROSS JOIN bools",
      "SELECT * FROM t, bools WHERE t.b = bools.y",
      "SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM bools WHERE bools.x = t.b)",
      "SELECT count(*) FROM t WHERE i32 NOT IN (SELECT i32 FROM t WHERE i32 > 0)",
      "SELECT i32, (SELECT max(i64) FROM t x WHERE x.s = t.s) FROM t",
      "SELECT (SELECT count(*) FROM bools) + 1",
      "SELECT s FROM t UNION SELECT s FROM t EXCEPT SELECT 'x' INTERSECT SELECT s FROM t",
      "WITH c AS (SELECT i32 AS k, s FROM t) SELECT k, s FROM c WHERE k > 1",
      "SELECT * FROM (SELECT i32, i64 FROM t) AS x(a, b) WHERE a < b",
      "SELECT * FROM (VALUES (1, 'a'), (2, NULL)) AS v(n, s)",
      "SELECT CASE WHEN i32 > 0 THEN 'pos' WHEN i32 < 0 THEN 'neg' ELSE 'zero' END FROM t",
      "SELECT CASE s WHEN 's1' THEN 1 ELSE 2 END, coalesce(s, 'x'), nullif(i32, 0) FROM t",
      "SELECT CAST(i32 AS VARCHAR), TRY_CAST(s AS INTEGER), CAST('1.5' AS DECIMAL(5,2)) FROM t",
      "SELECT d + INTERVAL '3' MONTH, d - INTERVAL '1' DAY, extract(year FROM d), date_trunc('month', d) FROM t",
      "SELECT abs(i64), round(f64, 1), lower(s), upper(s), length(s), trim(s), substring(s FROM 1 FOR 2) FROM t",
      "SELECT position('1' IN s), strpos(s, '1'), concat(s, 'x', i32), s || 'y' FROM t",
      "SELECT regexp_like(s, '^s[0-9]$'), s ILIKE 'S%', s NOT LIKE '%2' FROM t",
      "SELECT i32 BETWEEN -1 AND 5, i32 IN (1, 5, NULL), f64 IS NOT DISTINCT FROM 0.0, b IS NOT TRUE FROM t",
      "SELECT x AND y, x OR y, NOT x, x IS UNKNOWN FROM bools",
      "SELECT count(DISTINCT s), bool_and(b), bool_or(b), stddev(f64), var_pop(i32) FROM t",
      "SELECT i32 / 2, i32 % 3, -i64, i8 * 2, dec * dec, dec / 3 FROM t WHERE i32 BETWEEN -10 AND 10",
      "SELECT now() > TIMESTAMP '2000-01-01 00:00:00', current_date, random() < 2",
      "EXPLAIN SELECT count(*) FROM t WHERE i32 = 5",
      "EXPLAIN ANALYZE VERBOSE SELECT s, count(*) FROM t GROUP BY s",
      "SELECT i32 FROM t WHERE i64 < ? AND s = ?",
      "SELECT 1",
      "SELECT l_orderkey, o_orderdate FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE o_orderkey < 100");

  /**
   * Writes the tables the fuzzer names into {@code dir}: {@code t} and {@code bools} ({@link TestTables}) and the
   * eight TPC-H tables at scale factor {@code tpchScale} (0.0005: 3,000 lineitems), and opens them.
   */
  public static dev.quiver.scan.table.Catalog writeTables(java.nio.file.Path dir, double tpchScale) throws IOException {
    dev.quiver.sample.Lineitem.write(dir.resolve("lineitem.parquet"), tpchScale, dev.quiver.sample.Lineitem.Order.NATURAL,
        1_000, b -> b);
    for (dev.quiver.sample.TpchTables.Table<?> t : dev.quiver.sample.TpchTables.ALL) {
      t.write(dir.resolve(t.name() + ".parquet"), tpchScale, 1_000, b -> b);
    }
    return TestTables.create(dir);
  }

  /** The 22 TPC-H queries of sample-data's {@code /tpch/qNN.sql} resources. */
  public static List<String> tpchQueries() {
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= 22; i++) out.add(resource(String.format("/tpch/q%02d.sql", i)));
    return out;
  }

  static String resource(String name) {
    try (InputStream in = SqlFuzzer.class.getResourceAsStream(name)) {
      if (in == null) throw new IOException("no resource " + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The cases of {@code fuzz-regressions.sql}: records separated by lines {@code -- case: why}; in a record,
   * {@code {{N*text}}} stands for {@code text} repeated N times (so that huge inputs stay small on disk) and
   * {@code {{U+XXXX}}} for a code point (control characters, lone surrogates).
   */
  public static List<String> regressions() {
    List<String> out = new ArrayList<>();
    StringBuilder current = null;
    for (String line : resource("/fuzz-regressions.sql").split("\n", -1)) {
      if (line.startsWith("-- case:")) {
        if (current != null) out.add(expand(current.toString().strip()));
        current = new StringBuilder();
      } else if (current != null) {
        current.append(line).append('\n');
      }
    }
    if (current != null) out.add(expand(current.toString().strip()));
    return out;
  }

  private static final Pattern REPEAT = Pattern.compile("\\{\\{(\\d+)\\*(.*?)\\}\\}|\\{\\{U\\+([0-9A-Fa-f]{4,6})\\}\\}",
      Pattern.DOTALL);

  /** A record's statement: {@code {{N*text}}} repeated, {@code {{U+XXXX}}} a code point, {@code {{empty}}} nothing. */
  static String expand(String record) {
    if (record.equals("{{empty}}")) return "";
    Matcher m = REPEAT.matcher(record);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement = m.group(3) != null ? new String(Character.toChars(Integer.parseInt(m.group(3), 16)))
          : m.group(2).repeat(Integer.parseInt(m.group(1)));
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static final Pattern LEAK = Pattern.compile(
      "\tat |\\b(java|javax|jdk|sun|org\\.apache|net\\.sf|com\\.google)\\.[a-z0-9]+\\.\\w|\\w(Exception|Error):|\\bnull$");

  /**
   * Why {@code message} is no message for a user, or null when it is one: it must be there, say something,
   * not be long beyond reading, and show no stack trace, no Java class name and no bare "null".
   */
  public static String messageProblem(String message) {
    if (message == null || message.isBlank()) return "an empty message";
    if (message.strip().length() < 8) return "a message that says nothing: " + message;
    if (message.length() > 4_096) return "a message of " + message.length() + " characters";
    Matcher m = LEAK.matcher(message);
    if (m.find()) return "a message that shows internals ('" + m.group() + "'): " + message;
    return null;
  }

  /** The statement of input {@code index} in a run with {@code seed}. */
  public String generate(long seed, int index) {
    Random r = new Random(seed * 1_000_003L + index);
    int kind = r.nextInt(100);
    if (kind < 35) return mutate(r);
    if (kind < 42) return splice(r);
    if (kind < 50) return soup(r);
    if (kind < 75) return randomQuery(r, 0);
    return adversarial(r);
  }

  // ---------------------------------------------------------------- mutations

  private String mutate(Random r) {
    List<String> toks = new ArrayList<>(seedTokens.get(r.nextInt(seedTokens.size())));
    int n = 1 + r.nextInt(3);
    for (int k = 0; k < n && !toks.isEmpty(); k++) {
      int i = r.nextInt(toks.size());
      switch (r.nextInt(9)) {
        case 0 -> toks.remove(i);
        case 1 -> toks.add(i, toks.get(i));
        case 2 -> {
          int j = r.nextInt(toks.size());
          String x = toks.get(i);
          toks.set(i, toks.get(j));
          toks.set(j, x);
        }
        case 3 -> toks.set(i, sameKind(r, toks.get(i)));
        case 4 -> toks.add(i, vocabulary(r));
        case 5 -> toks.set(i, vocabulary(r));
        case 6 -> toks = new ArrayList<>(toks.subList(0, i));
        case 7 -> {
          // a sub-range moved elsewhere
          int j = Math.min(toks.size(), i + 1 + r.nextInt(6));
          List<String> range = new ArrayList<>(toks.subList(i, j));
          toks.subList(i, j).clear();
          toks.addAll(r.nextInt(toks.size() + 1), range);
        }
        default -> toks.set(i, literal(r));
      }
    }
    String sql = String.join(" ", toks);
    if (r.nextInt(10) == 0 && !sql.isEmpty()) sql = sql.substring(0, r.nextInt(sql.length())); // cut anywhere
    return sql;
  }

  /** A token of the same kind: a column for a column, a number for a number, an operator for an operator. */
  private static String sameKind(Random r, String tok) {
    if (tok.isEmpty()) return tok;
    char c = tok.charAt(0);
    if (Character.isDigit(c) || c == '\'') return literal(r);
    if (Character.isLetter(c) || c == '_' || c == '"') {
      if (isKeyword(tok)) return pick(r, KEYWORDS);
      int w = r.nextInt(4);
      return w == 0 ? pick(r, TABLES) : w == 1 ? pick(r, FUNCTIONS) : w == 2 ? pick(r, ODD_IDENTIFIERS) : pick(r, COLS);
    }
    return pick(r, OPERATORS);
  }

  private static boolean isKeyword(String tok) {
    for (String k : KEYWORDS) if (k.equalsIgnoreCase(tok)) return true;
    return false;
  }

  private String splice(Random r) {
    String a = seeds.get(r.nextInt(seeds.size()));
    String b = seeds.get(r.nextInt(seeds.size()));
    return a.substring(0, r.nextInt(a.length() + 1)) + " " + b.substring(r.nextInt(b.length() + 1));
  }

  private static String soup(Random r) {
    int n = 1 + r.nextInt(30);
    StringBuilder sb = new StringBuilder();
    if (r.nextBoolean()) sb.append("SELECT ");
    for (int i = 0; i < n; i++) sb.append(vocabulary(r)).append(r.nextInt(8) == 0 ? "" : " ");
    return sb.toString();
  }

  private static String vocabulary(Random r) {
    return switch (r.nextInt(8)) {
      case 0, 1 -> pick(r, KEYWORDS);
      case 2, 3 -> pick(r, OPERATORS);
      case 4 -> pick(r, COLS);
      case 5 -> r.nextBoolean() ? pick(r, TABLES) : pick(r, FUNCTIONS);
      case 6 -> literal(r);
      default -> r.nextInt(3) == 0 ? pick(r, ODD_IDENTIFIERS) : pick(r, TYPES);
    };
  }

  private static String literal(Random r) {
    return pick(r, LITERALS);
  }

  /** Splits SQL into tokens: words, numbers, quoted strings and names, comments, operators. */
  static List<String> tokens(String sql) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      int start = i;
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      if (c == '\'' || c == '"') {
        i++;
        while (i < n) {
          if (sql.charAt(i) == c) {
            if (i + 1 < n && sql.charAt(i + 1) == c) i += 2;
            else break;
          } else {
            i++;
          }
        }
        i = Math.min(n, i + 1);
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        while (i < n && sql.charAt(i) != '\n') i++;
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_'
            || (sql.charAt(i) == '.' && Character.isDigit(c)))) {
          i++;
        }
      } else if (i + 1 < n && "<=>=<>!=||::".contains(sql.substring(i, i + 2))
          && sql.substring(i, i + 2).matches("<=|>=|<>|!=|\\|\\||::")) {
        i += 2;
      } else {
        i++;
      }
      out.add(sql.substring(start, i));
    }
    return out;
  }

  // ---------------------------------------------------------------- random queries

  /** A random query over {@code t} and {@code bools}: mostly well-formed, of random (often mismatched) types. */
  private String randomQuery(Random r, int depth) {
    StringBuilder sb = new StringBuilder();
    if (depth == 0 && r.nextInt(12) == 0) sb.append(r.nextBoolean() ? "EXPLAIN " : "EXPLAIN ANALYZE ");
    if (depth == 0 && r.nextInt(10) == 0) {
      sb.append("WITH c AS (").append(randomQuery(r, depth + 1)).append(") ");
    }
    sb.append("SELECT ");
    if (r.nextInt(6) == 0) sb.append("DISTINCT ");
    String from = from(r, depth);
    int items = 1 + r.nextInt(4);
    for (int i = 0; i < items; i++) {
      if (i > 0) sb.append(", ");
      if (r.nextInt(10) == 0) sb.append('*');
      else sb.append(expr(r, depth, 1 + r.nextInt(3), r.nextInt(4) == 0));
      if (r.nextInt(4) == 0) sb.append(" AS ").append(r.nextInt(5) == 0 ? pick(r, ODD_IDENTIFIERS) : "c" + i);
    }
    if (from != null) sb.append(" FROM ").append(from);
    if (r.nextInt(2) == 0) sb.append(" WHERE ").append(predicate(r, depth, 1 + r.nextInt(3)));
    boolean grouped = r.nextInt(4) == 0;
    if (grouped) {
      sb.append(" GROUP BY ").append(r.nextInt(3) == 0 ? String.valueOf(r.nextInt(6)) : expr(r, depth, 1, false));
      if (r.nextBoolean()) sb.append(" HAVING ").append(predicate(r, depth, 2).replace("i32", "count(i32)"));
    }
    if (r.nextInt(3) == 0) {
      sb.append(" ORDER BY ").append(r.nextInt(3) == 0 ? String.valueOf(r.nextInt(6)) : expr(r, depth, 1, false));
      if (r.nextBoolean()) sb.append(r.nextBoolean() ? " DESC" : " ASC NULLS FIRST");
    }
    if (r.nextInt(4) == 0) sb.append(" LIMIT ").append(pick(r, new String[] {"0", "1", "3", "-1", "ALL", "NULL",
        "9223372036854775807", "9223372036854775808", "1.5", "'1'", "?", "(SELECT 1)"}));
    if (r.nextInt(8) == 0) sb.append(" OFFSET ").append(pick(r, new String[] {"0", "2", "-3", "99999999999"}));
    if (depth == 0 && r.nextInt(8) == 0) {
      String op = pick(r, new String[] {" UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT ", " INTERSECT ALL "});
      return sb + op + randomQuery(r, depth + 1);
    }
    return sb.toString();
  }

  private String from(Random r, int depth) {
    int k = r.nextInt(10);
    if (k == 0) return null;
    if (k == 1 && depth < 2) return "(" + randomQuery(r, depth + 1) + ") AS sub";
    if (k == 2) return "t a JOIN t b ON " + predicate(r, depth, 2).replaceAll("\\b(i32|s|f64)\\b", "a.$1");
    if (k == 3) return "t LEFT JOIN bools ON " + predicate(r, depth, 2);
    if (k == 4) return "t, bools";
    if (k == 5) return "(VALUES (1, 'a'), (NULL, 'b')) AS v(i32, s)";
    if (k == 6 && depth == 0 && r.nextInt(3) == 0) return "c";
    return r.nextInt(6) == 0 ? pick(r, ODD_IDENTIFIERS) : r.nextInt(8) == 0 ? pick(r, TABLES) : "t";
  }

  private String predicate(Random r, int depth, int budget) {
    String e = expr(r, depth, budget, false);
    return switch (r.nextInt(6)) {
      case 0 -> e;
      case 1 -> e + " " + pick(r, new String[] {"=", "<", ">=", "<>"}) + " " + expr(r, depth, budget - 1, false);
      case 2 -> e + " IS " + pick(r, new String[] {"NULL", "NOT NULL", "TRUE", "NOT FALSE"});
      case 3 -> predicate(r, depth, budget - 1) + (r.nextBoolean() ? " AND " : " OR ") + predicate(r, depth, budget - 1);
      case 4 -> depth < 1 && r.nextBoolean() ? (r.nextBoolean() ? "EXISTS (" : pick(r, COLS) + " IN (")
          + randomQuery(r, depth + 1) + ")" : "NOT " + e;
      default -> e + " IN (" + expr(r, depth, 1, false) + ", " + literal(r) + ")";
    };
  }

  /** A random expression; {@code agg}: may call aggregates. */
  private String expr(Random r, int depth, int budget, boolean agg) {
    if (budget <= 0) return r.nextInt(3) == 0 ? literal(r) : pick(r, COLS);
    int b = budget - 1;
    return switch (r.nextInt(18)) {
      case 0, 1 -> pick(r, COLS);
      case 2 -> literal(r);
      case 3 -> expr(r, depth, b, agg) + " " + pick(r, new String[] {"+", "-", "*", "/", "%", "||"}) + " "
          + expr(r, depth, b, agg);
      case 4 -> expr(r, depth, b, agg) + " " + pick(r, new String[] {"=", "<>", "<", ">=", "IS DISTINCT FROM"}) + " "
          + expr(r, depth, b, agg);
      case 5 -> "CAST(" + expr(r, depth, b, agg) + " AS " + pick(r, TYPES) + ")";
      case 6 -> "TRY_CAST(" + expr(r, depth, b, agg) + " AS " + pick(r, TYPES) + ")";
      case 7 -> {
        String f = pick(r, FUNCTIONS);
        int n = r.nextInt(4);
        StringBuilder sb = new StringBuilder(f).append('(');
        if (r.nextInt(8) == 0) sb.append("DISTINCT ");
        for (int i = 0; i < n; i++) sb.append(i > 0 ? ", " : "").append(expr(r, depth, b, false));
        yield sb.append(')').toString();
      }
      case 8 -> "CASE WHEN " + predicate(r, depth, b) + " THEN " + expr(r, depth, b, agg)
          + (r.nextBoolean() ? " ELSE " + expr(r, depth, b, agg) : "") + " END";
      case 9 -> expr(r, depth, b, agg) + (r.nextBoolean() ? " NOT" : "") + " BETWEEN " + expr(r, depth, b, agg)
          + " AND " + expr(r, depth, b, agg);
      case 10 -> expr(r, depth, b, agg) + (r.nextBoolean() ? " LIKE " : " ILIKE ") + pick(r, new String[] {"'%'",
          "'s_'", "'%1'", "'\\%'", "'%%%%'", "NULL", "s", "'['", "'a' ESCAPE 'b'"});
      case 11 -> depth < 1 ? "(SELECT " + expr(r, depth + 1, b, r.nextBoolean())
          .replaceAll("\\b(i32|s|d)\\b", r.nextInt(4) == 0 ? "t.$1" : "$1") // sometimes the outer row's
          + (r.nextInt(6) == 0 ? "" : " FROM " + (r.nextBoolean() ? "t x" : "bools"))
          + (r.nextBoolean() ? " WHERE x.i32 = t.i32" : "") + ")" : pick(r, COLS);
      case 12 -> pick(r, new String[] {"d", "DATE '2020-01-01'", "current_date", "now()"}) + " "
          + pick(r, new String[] {"+", "-"}) + " INTERVAL '" + pick(r, new String[] {"1", "-1", "2147483648",
              "99999999999999", "1.5", "x"}) + "' " + pick(r, new String[] {"DAY", "MONTH", "YEAR", "HOUR", "SECOND",
              "WEEK", "MILLISECOND", "CENTURY"});
      case 13 -> "extract(" + pick(r, new String[] {"year", "month", "day", "hour", "epoch", "dow", "nope"}) + " FROM "
          + expr(r, depth, b, agg) + ")";
      case 14 -> agg ? pick(r, new String[] {"count", "sum", "avg", "min", "max", "stddev", "bool_and"}) + "("
          + (r.nextInt(5) == 0 ? "*" : expr(r, depth, b, false)) + ")" : "(" + expr(r, depth, b, agg) + ")";
      case 15 -> "NOT " + expr(r, depth, b, agg);
      case 16 -> "-" + expr(r, depth, b, agg);
      default -> "regexp_like(" + expr(r, depth, b, agg) + ", " + pick(r, new String[] {"'^s'", "'(a+)+$'", "'['",
          "'\\\\'", "'(?i)S1'", "'.*'", "'^(s1|s2)$'", "s"}) + ")";
    };
  }

  // ---------------------------------------------------------------- adversarial templates

  private static final List<Function<Random, String>> ADVERSARIAL = List.of(
      SqlFuzzer::hugeNumber, SqlFuzzer::hugeString, SqlFuzzer::deepNesting, SqlFuzzer::longChain,
      SqlFuzzer::pathologicalLike, SqlFuzzer::pathologicalRegex, SqlFuzzer::typeMismatch, SqlFuzzer::unknownName,
      SqlFuzzer::emptyish, SqlFuzzer::unicode, SqlFuzzer::oddStatement, SqlFuzzer::manyItems);

  private static String adversarial(Random r) {
    return ADVERSARIAL.get(r.nextInt(ADVERSARIAL.size())).apply(r);
  }

  /** Mostly small, sometimes big, rarely huge: the huge ones cost seconds each. */
  private static int size(Random r, int small, int big, int huge) {
    int k = r.nextInt(100);
    return k < 80 ? 1 + r.nextInt(small) : k < 98 ? small + r.nextInt(big - small) : huge;
  }

  private static String digits(Random r, int n) {
    StringBuilder sb = new StringBuilder(n);
    sb.append((char) ('1' + r.nextInt(9)));
    for (int i = 1; i < n; i++) sb.append((char) ('0' + r.nextInt(10)));
    return sb.toString();
  }

  private static String hugeNumber(Random r) {
    String n = digits(r, pick(r, new int[] {19, 20, 38, 39, 40, 77, 100, 309, 1000, 5000}));
    String lit = switch (r.nextInt(6)) {
      case 0 -> n;
      case 1 -> "-" + n;
      case 2 -> "0." + n;
      case 3 -> n + "." + n;
      case 4 -> "1e" + n;
      default -> n + "e-" + n.substring(0, Math.min(5, n.length()));
    };
    return pick(r, new String[] {"SELECT %s", "SELECT i32 + %s FROM t", "SELECT * FROM t WHERE i64 = %s",
        "SELECT * FROM t WHERE dec < %s", "SELECT CAST('%s' AS INTEGER)", "SELECT CAST(%s AS DECIMAL(38,2))",
        "SELECT CAST(1 AS DECIMAL(%s, 2))", "SELECT i32 FROM t LIMIT %s", "SELECT i32 FROM t ORDER BY %s",
        "SELECT i32 FROM t GROUP BY %s", "SELECT d + INTERVAL '%s' DAY FROM t", "SELECT substring(s, %s) FROM t",
        "SELECT round(f64, %s) FROM t", "SELECT i32 FROM t OFFSET %s", "SELECT %s / 0", "SELECT %s %% 7",
        "SELECT i32 IN (%s, 1) FROM t", "SELECT TRY_CAST('%s' AS DOUBLE)", "SELECT sum(%s) FROM t",
        "SELECT CAST(%s AS VARCHAR(3))", "SELECT DATE '%s-01-01'"}).replace("%s", lit).replace("%%", "%");
  }

  private static String hugeString(Random r) {
    int n = size(r, 1_000, 100_000, 1 << 20);
    String s = pick(r, new String[] {"x", "'", "ab", "\u00e9", "%", "\\", "\uD83D\uDE00"}).repeat(n);
    String q = s.replace("'", "''");
    return pick(r, new String[] {"SELECT '%s'", "SELECT length('%s')", "SELECT * FROM t WHERE s = '%s'",
        "SELECT s LIKE '%s' FROM t", "SELECT \"%s\" FROM t", "SELECT '%s' || '%s'", "SELECT upper('%s')",
        "SELECT regexp_like(s, '%s') FROM t", "SELECT CAST('%s' AS DATE)", "SELECT * FROM \"%s\"",
        "SELECT count(*) FROM t GROUP BY '%s'", "SELECT '%s' IN ('%s')"})
        .replace("\"%s\"", "\"" + s.replace("\"", "\"\"") + "\"").replace("%s", q);
  }

  private static String deepNesting(Random r) {
    int d = size(r, 20, 200, pick(r, new int[] {1_000, 5_000, 30_000}));
    return switch (r.nextInt(12)) {
      case 0 -> "SELECT " + "(".repeat(d) + "1" + ")".repeat(d);
      case 1 -> "SELECT * FROM t WHERE " + "(".repeat(d) + "i32 = 1" + ")".repeat(d);
      case 2 -> "SELECT " + "NOT ".repeat(d) + "b FROM t";
      case 3 -> "SELECT " + "- ".repeat(d) + "1";
      case 4 -> "SELECT " + "CASE WHEN b THEN ".repeat(d) + "1" + " END".repeat(d) + " FROM t";
      case 5 -> "SELECT " + "(SELECT ".repeat(Math.min(d, 40)) + "1" + ")".repeat(Math.min(d, 40));
      case 6 -> "SELECT * FROM " + "(SELECT * FROM ".repeat(d) + "t" + ")".repeat(d);
      case 7 -> "SELECT " + "abs(".repeat(d) + "i32" + ")".repeat(d) + " FROM t";
      case 8 -> "SELECT " + "coalesce(".repeat(d) + "s" + ", 'x')".repeat(d) + " FROM t";
      case 9 -> "SELECT * FROM t WHERE i32 IN " + "(SELECT i32 FROM t WHERE i32 IN ".repeat(Math.min(d, 30)) + "(1)"
          + ")".repeat(Math.min(d, 30));
      case 10 -> "SELECT " + "CAST(".repeat(d) + "i32" + " AS BIGINT)".repeat(d) + " FROM t";
      default -> "SELECT " + "((i32 + ".repeat(d) + "1" + ") * 2)".repeat(d) + " FROM t";
    };
  }

  private static String longChain(Random r) {
    int n = size(r, 100, 3_000, 20_000);
    String op = pick(r, new String[] {" + ", " - ", " * ", " || ", " AND ", " OR ", " = ", " < "});
    String term = op.trim().equals("||") ? "s" : op.contains("AND") || op.contains("OR") ? "i32 = 1" : "i32";
    String chain = (term + op).repeat(n) + term;
    return r.nextBoolean() ? "SELECT " + chain + " FROM t" : "SELECT count(*) FROM t WHERE " + chain;
  }

  private static String pathologicalLike(Random r) {
    int n = size(r, 30, 1_000, 20_000);
    String subject = "a".repeat(size(r, 100, 5_000, 50_000));
    String pattern = pick(r, new String[] {"%a", "%_", "_%", "%", "a%", "%a_%"}).repeat(n) + pick(r,
        new String[] {"b", "", "%", "_"});
    return pick(r, new String[] {"SELECT '%1$s' LIKE '%2$s'", "SELECT '%1$s' ILIKE '%2$s'",
        "SELECT count(*) FROM t WHERE s LIKE '%2$s'", "SELECT count(*) FROM t WHERE s || '%1$s' NOT LIKE '%2$s'"})
        .replace("%1$s", subject).replace("%2$s", pattern);
  }

  private static String pathologicalRegex(Random r) {
    String re = pick(r, new String[] {"(a+)+$", "(a|aa)*c", "(a*)*b", "((a{1000}){1000}){1000}", "(a{1000}){1000}",
        "a{1001}", "(?s:.*)".repeat(size(r, 10, 1_000, 3_000)), "(x+x+)+y", "[", "(", "\\\\", "a**", "(?P<n>a)",
        "\\p{Greek}+", "(?i)\u00e9", "\\x{110000}", "a{2,1}", "(((((((((((a)))))))))))*", "x{0,1000}{0,1000}",
        "(" + "a|".repeat(size(r, 100, 3_000, 9_000)) + "b)"});
    String subject = "'" + "a".repeat(size(r, 30, 3_000, 100_000)) + "!'";
    return r.nextBoolean() ? "SELECT regexp_like(" + subject + ", '" + re + "')"
        : "SELECT count(*) FROM t WHERE regexp_like(s || " + subject + ", '" + re + "')";
  }

  private static String typeMismatch(Random r) {
    String[] values = {"i8", "i32", "i64", "f64", "dec", "s", "d", "b", "'x'", "1", "1.5", "TRUE", "NULL",
        "DATE '2020-01-01'", "TIMESTAMP '2020-01-01 00:00:00'", "X'01'", "INTERVAL '1' DAY", "count(*)", "(SELECT s FROM t)",
        "(SELECT 1, 2)", "?", "now()"};
    String a = pick(r, values);
    String b = pick(r, values);
    String op = pick(r, new String[] {"+", "-", "*", "/", "%", "||", "=", "<", "AND", "OR", "LIKE", "IS DISTINCT FROM"});
    return pick(r, new String[] {"SELECT %a %o %b FROM t", "SELECT * FROM t WHERE %a %o %b", "SELECT * FROM t WHERE %a",
        "SELECT NOT %a FROM t", "SELECT -%a FROM t", "SELECT sum(%a), avg(%b) FROM t", "SELECT abs(%a) FROM t",
        "SELECT CASE WHEN %a THEN %a ELSE %b END FROM t", "SELECT %a IN (%b, 1, 'x') FROM t",
        "SELECT %a BETWEEN %b AND 'z' FROM t", "SELECT coalesce(%a, %b) FROM t", "SELECT substring(%a, %b) FROM t",
        "SELECT date_trunc(%a, %b) FROM t", "SELECT extract(year FROM %a) FROM t", "SELECT %a FROM t UNION SELECT %b FROM t",
        "SELECT * FROM t JOIN bools ON %a", "SELECT %a FROM t GROUP BY %b", "SELECT %a FROM t ORDER BY %b",
        "SELECT * FROM t WHERE %a IN (SELECT %b FROM t)", "SELECT min(%a), max(%b), bool_and(%a) FROM t",
        "SELECT CAST(%a AS %t) FROM t", "SELECT * FROM t WHERE %a = ANY (SELECT %b FROM t)",
        "SELECT round(%a, %b) FROM t", "SELECT regexp_like(%a, %b) FROM t", "SELECT %a FROM t HAVING %b"})
        .replace("%a", a).replace("%b", b).replace("%o", op).replace("%t", pick(r, TYPES));
  }

  private static String unknownName(Random r) {
    String id = pick(r, ODD_IDENTIFIERS);
    return pick(r, new String[] {"SELECT * FROM %s", "SELECT %s FROM t", "SELECT t.%s FROM t", "SELECT %s(1)",
        "SELECT * FROM t AS %s", "SELECT %s.* FROM t", "SELECT * FROM t JOIN %s ON true", "WITH %s AS (SELECT 1) "
            + "SELECT * FROM %s", "SELECT count(%s) FROM t", "SELECT * FROM t ORDER BY %s", "SELECT * FROM t WHERE %s = 1",
        "SELECT nope FROM nope", "SELECT nope() FROM t", "SELECT t.i32 FROM bools", "SELECT x FROM t, bools",
        "SELECT a.i32 FROM t", "SELECT i32 FROM t a, t b", "SELECT * FROM t a JOIN t a ON true",
        "SELECT * FROM t JOIN bools USING (nope)", "SELECT * FROM t JOIN t USING (i32, i32)"}).replace("%s", id);
  }

  private static String emptyish(Random r) {
    return pick(r, new String[] {"", " ", "\n\t ", ";", ";;", "--", "-- comment only", "/* */", "/*", "*/",
        "SELECT", "SELECT;", "SELECT 1;", "SELECT 1; SELECT 2", "SELECT 1;;", "FROM t", "WHERE", "(", ")", "()",
        "'", "\"", "SELECT '", "SELECT \"", "SELECT /*", "\u0000", "SELECT \u0000", "SELECT 1 \u0000",
        "EXPLAIN", "EXPLAIN ", "EXPLAIN EXPLAIN SELECT 1", "EXPLAIN ANALYZE", "EXPLAIN ANALYZE VERBOSE ANALYZE SELECT 1",
        "explain\nanalyze\n\tselect 1", "SELECT (", "SELECT )", "SELECT * FROM (", "SELECT * FROM ()",
        "SELECT * FROM t WHERE ()", "SELECT * FROM t GROUP BY ()", "VALUES ()", "VALUES (1), (1, 2)", "VALUES",
        "SELECT * FROM (VALUES) v", "WITH", "WITH c AS () SELECT 1", "SELECT ?", "SELECT ? + ?", "?"});
  }

  private static String unicode(Random r) {
    StringBuilder sb = new StringBuilder();
    int n = 1 + r.nextInt(40);
    for (int i = 0; i < n; i++) {
      int cp = switch (r.nextInt(8)) {
        case 0 -> r.nextInt(0x20);
        case 1 -> 0x80 + r.nextInt(0x780);
        case 2 -> 0x0590 + r.nextInt(0x200); // right-to-left scripts
        case 3 -> 0x1F600 + r.nextInt(0x50); // emoji
        case 4 -> 0xD800 + r.nextInt(0x800); // a lone surrogate
        case 5 -> 0x200B + r.nextInt(0x10); // zero-width and direction marks
        case 6 -> 0xFFF0 + r.nextInt(0x10);
        default -> 0x4E00 + r.nextInt(0x5000);
      };
      sb.appendCodePoint(cp);
    }
    String u = sb.toString();
    return pick(r, new String[] {"%s", "SELECT '%s'", "SELECT \"%s\" FROM t", "SELECT * FROM \"%s\"", "SELECT %s",
        "SELECT length('%s'), upper('%s'), lower('%s')", "SELECT * FROM t WHERE s = '%s'", "SELECT '%s' LIKE '%%%s%%'",
        "SELECT regexp_like('%s', '%s')", "SELECT 1 AS \"%s\"", "SELECT count(*) FROM t %s",
        "SELECT s FROM t WHERE s > '%s' ORDER BY s", "SELECT substring('%s', 2, 3), strpos('%s', 'a')"})
        .replace("'%s'", "'" + u.replace("'", "''") + "'").replace("%%", "%").replace("%s", u);
  }

  private static String oddStatement(Random r) {
    return pick(r, new String[] {"INSERT INTO t VALUES (1)", "DELETE FROM t", "UPDATE t SET i32 = 1", "DROP TABLE t",
        "CREATE TABLE x (a INT)", "TRUNCATE t", "SET quiver.optimizer.simplify = false", "SET x = 1", "SHOW ALL",
        "SHOW TABLES", "COMMIT", "BEGIN", "CALL f()", "GRANT ALL ON t TO x", "MERGE INTO t USING t ON true",
        "SELECT * FROM t FOR UPDATE", "SELECT * INTO x FROM t", "SELECT row_number() OVER () FROM t",
        "SELECT i32 FROM t GROUP BY ROLLUP (i32)", "SELECT * FROM t NATURAL JOIN bools",
        "SELECT * FROM t, LATERAL (SELECT 1) x", "WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
        "SELECT * FROM t TABLESAMPLE (10)", "SELECT * FROM t LIMIT 1 FETCH FIRST 1 ROWS ONLY",
        "SELECT s FROM t INTERSECT ALL SELECT s FROM t", "SELECT s FROM t EXCEPT ALL SELECT s FROM t",
        "SELECT DISTINCT ON (s) s FROM t", "SELECT * FROM t WINDOW w AS ()", "SELECT s LIKE 'a' ESCAPE '\\' FROM t",
        "SELECT i32 FROM t ORDER BY 0", "SELECT i32 FROM t ORDER BY 99", "SELECT i32 FROM t GROUP BY 0",
        "SELECT i32 FROM t GROUP BY 99", "SELECT i32 FROM t ORDER BY -1", "SELECT i32, count(*) FROM t",
        "SELECT count(count(*)) FROM t", "SELECT * FROM t WHERE count(*) > 1", "SELECT sum(*) FROM t",
        "SELECT count(DISTINCT *) FROM t", "SELECT max(DISTINCT s) FROM t", "SELECT avg(s) FROM t", "SELECT sum(d) FROM t",
        "SELECT * FROM t HAVING i32 > 1", "SELECT i32 FROM t UNION SELECT i32, s FROM t",
        "SELECT (SELECT i32 FROM t)", "SELECT (SELECT i32, s FROM t LIMIT 1)", "SELECT * FROM t WHERE (SELECT true)",
        "SELECT * FROM t WHERE EXISTS (SELECT * FROM bools WHERE x = t.b GROUP BY x)",
        "SELECT * FROM t WHERE i32 IN (SELECT i32, s FROM t)", "SELECT * FROM t WHERE (i32, s) IN (SELECT i32, s FROM t)",
        "SELECT * FROM t WHERE i32 = ANY (SELECT i32 FROM t)", "SELECT * FROM t WHERE b OR EXISTS (SELECT 1)",
        "SELECT (SELECT max(x.i32) FROM t x WHERE x.i32 > t.i32) FROM t",
        "SELECT (SELECT count(*) + 1 FROM t x WHERE x.s = t.s) FROM t",
        "SELECT (SELECT x.i32 FROM t x WHERE x.s = t.s) FROM t",
        "SELECT * FROM t WHERE i32 IN (SELECT x.i32 FROM t x WHERE x.s = t.s GROUP BY x.i32)",
        "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM t x WHERE x.s = t.s LIMIT 1)",
        "SELECT * FROM t a JOIN t b ON a.i32 = (SELECT max(i32) FROM t)",
        "SELECT * FROM t a LEFT JOIN t b ON EXISTS (SELECT 1)", "SELECT * FROM t RIGHT JOIN bools",
        "SELECT * FROM t JOIN (SELECT * FROM bools) ON true", "SELECT * FROM (SELECT 1, 1) x(a, a)",
        "SELECT * FROM (SELECT 1) x(a, b)", "WITH c(a, b) AS (SELECT 1) SELECT * FROM c",
        "WITH c AS (SELECT * FROM c) SELECT * FROM c", "WITH c AS (SELECT 1), c AS (SELECT 2) SELECT * FROM c",
        "SELECT * FROM (VALUES (1, 'a'), ('b', 2)) v", "SELECT * FROM (VALUES (NULL), (NULL)) v",
        "SELECT i32 FROM t ORDER BY s LIMIT 0 OFFSET 9223372036854775807", "SELECT DISTINCT i32 FROM t ORDER BY s",
        "SELECT s AS x FROM t GROUP BY x ORDER BY x", "SELECT s, count(*) FROM t GROUP BY 1 HAVING s > 'a'",
        "SELECT * FROM t WHERE i32 = ?", "SELECT * FROM t LIMIT ?", "SELECT ? FROM t GROUP BY ?",
        "SELECT CAST(? AS INTEGER) + ?", "SELECT * FROM t WHERE ? IN (?, ?)", "SELECT substring(s FROM ?) FROM t",
        "SELECT date_trunc('quarter', d), date_trunc('nope', d), date_part('dow', d) FROM t",
        "SELECT d - INTERVAL '9223372036854775807' DAY FROM t", "SELECT DATE '2020-01-01' + INTERVAL '2147483647' YEAR",
        "SELECT TIMESTAMP '2020-01-01 00:00:00' + INTERVAL '1' MILLISECOND", "SELECT d + 1 FROM t", "SELECT d - d FROM t",
        "SELECT CAST('9999999999' AS INTEGER)", "SELECT CAST(1e300 AS DECIMAL(38,0))", "SELECT CAST('nan' AS DOUBLE)",
        "SELECT CAST(f64 AS BIGINT) FROM t", "SELECT CAST(f64 AS DECIMAL(5,2)) FROM t", "SELECT -(-9223372036854775808)",
        "SELECT -9223372036854775808 / -1", "SELECT abs(-9223372036854775808)", "SELECT 9223372036854775807 + 1",
        "SELECT i64 * i64 * i64 FROM t", "SELECT sum(i64 * 3074457345618258602) FROM t", "SELECT 1 % 0",
        "SELECT 1.0 / 0", "SELECT 1e308 * 10", "SELECT round(1.5, -400)", "SELECT round(dec, 2147483647) FROM t",
        "SELECT substring('abc', -9223372036854775808, 9223372036854775807)", "SELECT substring('abc', 2, -1)",
        "SELECT position('' IN '')", "SELECT strpos('\uD83D\uDE00a', 'a')", "SELECT length('\uD800')",
        "SELECT upper('\u00df'), lower('\u0130')", "SELECT concat()", "SELECT coalesce()", "SELECT nullif(1)",
        "SELECT now(1)", "SELECT random(1)", "SELECT regexp_like('a')", "SELECT date_trunc('day')",
        "SELECT extract(year FROM 'x')", "SELECT count(*) FILTER (WHERE b) FROM t", "SELECT count(*) OVER w FROM t",
        "SELECT * FROM t ORDER BY i32 NULLS", "SELECT * FROM t t1, t t2, t t3, t t4 WHERE t1.i32 < 0 LIMIT 1",
        "SELECT * FROM quiver.main.t", "SELECT * FROM QUIVER.MAIN.T", "SELECT * FROM main.\"t\"",
        "SELECT * FROM \"quiver\".\"main\".\"t\"", "SELECT * FROM quiver..t", "SELECT * FROM .t", "SELECT * FROM t.",
        "EXPLAIN VERBOSE SELECT (SELECT max(i32) FROM t x WHERE x.s = t.s) FROM t WHERE i32 IN (SELECT i32 FROM t)"});
  }

  private static String manyItems(Random r) {
    int n = size(r, 100, 3_000, 30_000);
    return switch (r.nextInt(7)) {
      case 0 -> "SELECT count(*) FROM t WHERE i32 IN (" + "1, ".repeat(n) + "2)";
      case 1 -> "SELECT count(*) FROM t WHERE s NOT IN (" + "'a', ".repeat(n) + "NULL)";
      case 2 -> "SELECT " + "i32, ".repeat(n) + "s FROM t";
      case 3 -> "SELECT * FROM (VALUES " + "(1, 'a'), ".repeat(n) + "(2, 'b')) v";
      case 4 -> "SELECT 1" + " UNION ALL SELECT 1".repeat(Math.min(n, 3_000));
      case 5 -> "SELECT count(*) FROM t a" + " JOIN t ON true".repeat(Math.min(n, 100));
      default -> "SELECT coalesce(" + "s, ".repeat(n) + "'x') FROM t";
    };
  }

  private static String pick(Random r, String[] options) {
    return options[r.nextInt(options.length)];
  }

  private static int pick(Random r, int[] options) {
    return options[r.nextInt(options.length)];
  }
}
