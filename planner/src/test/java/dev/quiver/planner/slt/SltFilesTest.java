package dev.quiver.planner.slt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.common.QuiverException;
import dev.quiver.planner.PreparedQuery;
import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QueryExecution;
import dev.quiver.planner.TestTables;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.opentest4j.AssertionFailedError;

/**
 * SQL behaviour as documents: every {@code src/test/resources/slt/*.slt} file runs in-process against a
 * {@link QueryEngine} over {@link TestTables} ({@code t}, {@code bools}) and small TPC-H tables ({@code nation},
 * {@code region}, {@code supplier}, {@code customer}, {@code orders} at scale factor 0.001), one JUnit test per
 * record, named {@code file:line}. The dialect is the it-tests' ({@code it-tests/src/test/resources/slt}), plus
 * sqllogictest's record kinds. Records are separated by blank lines; {@code #} starts a comment line:
 * <pre>
 * query [TYPES] [rowsort|nosort]     rows, one a line, values joined by " | "; TYPES (optional) is one letter a
 *       [tolerance=REL]               column: I integer, R float, N decimal, T text, B boolean, D date, ? any;
 * SELECT ...                          rowsort compares the rows sorted (for results of no defined order);
 * ----                                tolerance=1e-12: a value that reads as a number matches one within that
 * 1 | a                               relative difference (floating-point answers from another engine)
 *
 * error                              the query fails with this error code and message (the first line
 * SELECT ...                          if the message has several); positions are line:column of the SQL
 * ----
 * INVALID_QUERY: column x does not exist in table t at 1:8
 *
 * statement ok                       runs without error (its rows are not checked)
 * SELECT ...
 *
 * statement error [REGEX]            fails, and "CODE: message" contains a match of REGEX; with a
 * SELECT ...                          "----" section, equals it instead
 * </pre>
 * Values print as Java does ({@code null}, {@code true}, {@code 1.5}, {@code NaN}, {@code -0.0}, {@code 1.0E-5}),
 * decimals with their scale, dates as {@code 2019-04-19}, an empty string as {@code (empty)}. An expected line may
 * hold {@code <slt:ignore>}, which matches any text (e.g. timings in EXPLAIN ANALYZE). Every record runs with its
 * own allocator, closed after it: a leaked buffer fails the record.
 *
 * <p>With {@code -Dquiver.sltUpdate=true} each file runs as one test that rewrites the expected sections from the
 * actual output (an expected line with {@code <slt:ignore>} that still matches is kept). Review the diff and check
 * every changed value independently before committing it: the update mode writes down whatever the engine says.
 */
class SltFilesTest {
  static final Path DIR = Path.of("src/test/resources/slt");
  static final Path TABLES = Path.of("target/slt-tables");
  static final String IGNORE = "<slt:ignore>";
  static QueryEngine engine;

  @BeforeAll
  static void setUp() throws IOException {
    if (Files.exists(TABLES)) {
      try (Stream<Path> s = Files.list(TABLES)) {
        for (Path p : s.toList()) Files.delete(p);
      }
    }
    Files.createDirectories(TABLES);
    TestTables.create(TABLES);
    TestTables.writeTpch(TABLES);
    // no metadata cache: its hit and miss counts in EXPLAIN ANALYZE would depend on the order of the records
    engine = new QueryEngine(Catalog.open(TABLES.toString()).metadataCache(0));
  }

  /** One record of a file. {@code expectedFrom..expectedTo} are the 0-based lines of its expected section. */
  record Record(String file, int line, String kind, String sql, List<String> expected, int expectedFrom, int expectedTo) {
    String[] words() {
      return kind.split("\\s+");
    }

    boolean isError() {
      return words()[0].equals("error") || (words()[0].equals("statement") && words()[1].equals("error"));
    }

    boolean rowsort() {
      return List.of(words()).contains("rowsort");
    }

    /** The relative tolerance of numeric values ({@code tolerance=REL}), or 0: exact. */
    double tolerance() {
      for (String w : words()) if (w.startsWith("tolerance=")) return Double.parseDouble(w.substring("tolerance=".length()));
      return 0;
    }

    String name() {
      String first = sql.lines().findFirst().orElse("");
      return file + ":" + line + ": " + (first.length() > 90 ? first.substring(0, 90) + "…" : first);
    }
  }

  static List<Record> parse(String file, List<String> lines) {
    List<Record> out = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      String l = lines.get(i).strip();
      if (l.isEmpty() || l.startsWith("#")) {
        i++;
        continue;
      }
      int start = i;
      String kind = l;
      String first = kind.split("\\s+")[0];
      if (!List.of("query", "error", "statement").contains(first)
          || (first.equals("statement") && !kind.matches("statement (ok|error)( .*)?"))) {
        throw new IllegalArgumentException(file + ":" + (i + 1) + ": unknown record '" + kind + "'");
      }
      i++;
      StringBuilder sql = new StringBuilder();
      while (i < lines.size() && !lines.get(i).equals("----") && !lines.get(i).isBlank()) {
        sql.append(sql.length() == 0 ? "" : "\n").append(lines.get(i++));
      }
      List<String> expected = null;
      int from = -1;
      int to = -1;
      if (i < lines.size() && lines.get(i).equals("----")) {
        i++;
        from = i;
        expected = new ArrayList<>();
        while (i < lines.size() && !lines.get(i).isEmpty()) expected.add(lines.get(i++));
        to = i;
      } else if (!first.equals("statement")) {
        throw new IllegalArgumentException(file + ":" + (start + 1) + ": '" + kind + "' needs a ---- section");
      }
      if (sql.length() == 0) throw new IllegalArgumentException(file + ":" + (start + 1) + ": no SQL");
      out.add(new Record(file, start + 1, kind, sql.toString(), expected, from, to));
    }
    return out;
  }

  /** The outcome of running a record's SQL: rows as lines and column type letters, or the error as "CODE: message" lines. */
  record Outcome(List<String> lines, boolean failed, String types) {}

  static Outcome run(Record r) {
    BufferAllocator allocator = new RootAllocator();
    Outcome outcome;
    try {
      outcome = rows(r, allocator);
    } catch (QuiverException e) {
      outcome = new Outcome((e.code() + ": " + e.getMessage()).lines().toList(), true, null);
    }
    allocator.close(); // fails the record if the query leaked a buffer
    return outcome;
  }

  static Outcome rows(Record r, BufferAllocator allocator) {
    List<String> out = new ArrayList<>();
    PreparedQuery q = engine.prepare(r.sql(), allocator);
    StringBuilder types = new StringBuilder();
    try (QueryExecution ex = engine.execute(q, allocator)) {
      for (Field f : ex.schema().getFields()) types.append(letter(f.getType()));
      VectorSchemaRoot next;
      while ((next = ex.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) {
            List<String> row = new ArrayList<>();
            for (FieldVector v : b.getFieldVectors()) row.add(value(v, i));
            out.add(String.join(" | ", row));
          }
        }
      }
    }
    return new Outcome(out, false, types.toString());
  }

  /** The type letters a query record declares, or null. */
  static String declaredTypes(Record r) {
    String[] w = r.words();
    if (!w[0].equals("query") || w.length < 2 || w[1].equals("rowsort") || w[1].equals("nosort") || w[1].contains("=")) {
      return null;
    }
    return w[1];
  }

  /** {@code actual} with a '?' wherever {@code declared} has one. */
  static String typesAsDeclared(String declared, String actual) {
    StringBuilder got = new StringBuilder(actual);
    for (int i = 0; i < declared.length() && i < got.length(); i++) {
      if (declared.charAt(i) == '?') got.setCharAt(i, '?');
    }
    return got.toString();
  }

  static char letter(ArrowType t) {
    return switch (t.getTypeID()) {
      case Int -> 'I';
      case FloatingPoint -> 'R';
      case Decimal -> 'N';
      case Utf8, LargeUtf8 -> 'T';
      case Bool -> 'B';
      case Date, Timestamp, Time -> 'D';
      default -> '?';
    };
  }

  static String value(FieldVector v, int i) {
    if (v.isNull(i)) return "null";
    if (v instanceof DateDayVector d) return LocalDate.ofEpochDay(d.get(i)).toString();
    Object o = v.getObject(i);
    if (o instanceof BigDecimal b) return b.toPlainString();
    String s = o.toString();
    return s.isEmpty() ? "(empty)" : s;
  }

  /** The expected lines, or null when {@code actual} matches them. */
  static String mismatch(Record r, Outcome actual) {
    if (r.kind().equals("statement ok")) {
      return actual.failed() ? "expected success, got " + String.join("\n", actual.lines()) : null;
    }
    String declared = declaredTypes(r);
    if (declared != null && !actual.failed() && !typesAsDeclared(declared, actual.types()).equals(declared)) {
      return "column types: expected " + declared + ", got " + actual.types();
    }
    if (r.isError() != actual.failed()) {
      return r.isError() ? "expected an error, got rows:\n" + String.join("\n", actual.lines())
          : "expected rows, got " + String.join("\n", actual.lines());
    }
    if (r.expected() == null) { // statement error [regex]
      String regex = r.kind().replaceFirst("^statement error\\s*", "");
      return regex.isEmpty() || Pattern.compile(regex).matcher(String.join("\n", actual.lines())).find() ? null
          : "error does not match /" + regex + "/: " + String.join("\n", actual.lines());
    }
    List<String> expected = r.expected();
    List<String> got = actual.lines();
    if (r.kind().startsWith("error") || r.isError()) got = got.subList(0, Math.min(got.size(), Math.max(1, expected.size())));
    if (r.rowsort()) {
      expected = expected.stream().sorted().toList();
      got = got.stream().sorted().toList();
    }
    if (expected.size() == got.size()) {
      boolean same = true;
      double tolerance = r.tolerance();
      for (int i = 0; i < got.size() && same; i++) {
        same = tolerance > 0 ? matches(expected.get(i), got.get(i), tolerance) : matches(expected.get(i), got.get(i));
      }
      if (same) return null;
    }
    return "mismatch";
  }

  /**
   * Whether a row matches, value by value, a value that reads as a number matching one within {@code tolerance}
   * relative difference (NaN matches NaN, an infinity itself).
   */
  static boolean matches(String expected, String got, double tolerance) {
    String[] e = expected.split(" \\| ", -1);
    String[] g = got.split(" \\| ", -1);
    if (e.length != g.length) return false;
    for (int i = 0; i < e.length; i++) {
      if (matches(e[i], g[i])) continue;
      Double x = number(e[i]);
      Double y = number(g[i]);
      if (x == null || y == null) return false;
      if (x.isNaN() || y.isNaN() || x.isInfinite() || y.isInfinite() ? !x.equals(y)
          : Math.abs(x - y) > tolerance * Math.max(Math.abs(x), Math.abs(y))) {
        return false;
      }
    }
    return true;
  }

  private static Double number(String s) {
    try {
      return Double.valueOf(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static boolean matches(String expected, String got) {
    if (!expected.contains(IGNORE)) return expected.equals(got);
    String[] parts = expected.split(Pattern.quote(IGNORE), -1);
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < parts.length; i++) regex.append(i == 0 ? "" : ".*").append(Pattern.quote(parts[i]));
    return got.matches(regex.toString());
  }

  static void check(Record r) {
    Outcome actual = run(r);
    String problem = mismatch(r, actual);
    if (problem == null) return;
    String sql = "\n" + r.sql() + "\n";
    if (problem.equals("mismatch")) {
      List<String> got = r.rowsort() ? actual.lines().stream().sorted().toList() : actual.lines();
      List<String> want = r.rowsort() ? r.expected().stream().sorted().toList() : r.expected();
      throw new AssertionFailedError(r.name() + sql + "expected:\n  " + String.join("\n  ", want) + "\nactual:\n  "
          + String.join("\n  ", got), String.join("\n", want), String.join("\n", got));
    }
    throw new AssertionFailedError(r.name() + sql + problem);
  }

  static List<Path> files() throws IOException {
    try (Stream<Path> s = Files.list(DIR)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".slt")).sorted(Comparator.comparing(Path::toString)).toList();
    }
  }

  @TestFactory
  List<DynamicNode> slt() throws IOException {
    boolean update = Boolean.getBoolean("quiver.sltUpdate");
    List<DynamicNode> out = new ArrayList<>();
    List<Path> files = files();
    assertThat(files).as("slt files in " + DIR.toAbsolutePath()).isNotEmpty();
    for (Path path : files) {
      String file = path.getFileName().toString();
      List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
      List<Record> records = parse(file, lines);
      assertThat(records).as("records in " + file).isNotEmpty();
      if (update) {
        out.add(DynamicTest.dynamicTest(file + " (update)", path.toUri(), () -> rewrite(path, lines, records)));
        continue;
      }
      List<DynamicTest> tests = new ArrayList<>();
      for (Record r : records) {
        tests.add(DynamicTest.dynamicTest(r.name(), java.net.URI.create(path.toUri() + "?line=" + r.line()), () -> check(r)));
      }
      out.add(DynamicContainer.dynamicContainer(file, path.toUri(), tests.stream()));
    }
    return out;
  }

  /** Writes {@code path} again with every expected section replaced by the actual output. */
  static void rewrite(Path path, List<String> lines, List<Record> records) throws IOException {
    List<String> out = new ArrayList<>();
    int next = 0;
    for (Record r : records) {
      if (r.expected() == null) continue;
      Outcome actual = run(r);
      if (mismatch(r, actual) == null) continue;
      out.addAll(lines.subList(next, r.line() - 1));
      String[] w = r.words();
      if (w[0].equals("query") && !actual.failed()) { // the header with the actual column types
        String declared = declaredTypes(r);
        List<String> header = new ArrayList<>(List.of("query", declared == null ? actual.types()
            : typesAsDeclared(declared, actual.types())));
        for (int i = declared == null ? 1 : 2; i < w.length; i++) header.add(w[i]);
        out.add(String.join(" ", header));
      } else {
        out.add(lines.get(r.line() - 1));
      }
      out.addAll(lines.subList(r.line(), r.expectedFrom()));
      List<String> got = actual.lines();
      if (r.isError() && actual.failed()) got = got.subList(0, Math.min(got.size(), Math.max(1, r.expected().size())));
      if (r.rowsort()) got = got.stream().sorted().toList();
      out.addAll(got);
      next = r.expectedTo();
    }
    out.addAll(lines.subList(next, lines.size()));
    Files.writeString(path, String.join("\n", out) + "\n", StandardCharsets.UTF_8);
  }
}
