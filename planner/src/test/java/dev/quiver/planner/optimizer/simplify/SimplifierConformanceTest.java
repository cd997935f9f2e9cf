package dev.quiver.planner.optimizer.simplify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.optimizer.ScanPredicates;
import dev.quiver.planner.sql.ExprBinder;
import dev.quiver.planner.sql.Scope;
import dev.quiver.planner.sql.SqlParser;
import dev.quiver.planner.types.SqlTypes;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of the simplifier's conformance table (simplifier-vectors.tsv): the expression result and
 * the WHERE result must match the table structurally, be pushable exactly where the table says, and
 * agree with the input on generated rows when evaluated by the kernels.
 */
class SimplifierConformanceTest {
  /** A fixed query start, so that now() folds to a known instant. */
  static final long START_MICROS = 1_761_630_189_642_000L;

  record Vector(String id, String columns, String input, String expression, String filter, String pushable, String basis) {
    @Override public String toString() {
      return id + ": " + input;
    }
  }

  BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  static Stream<Vector> vectors() throws Exception {
    List<Vector> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        SimplifierConformanceTest.class.getResourceAsStream("/simplifier-vectors.tsv"), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("#") || line.startsWith("id\t") || line.isBlank()) continue;
        String[] f = line.split("\t", -1);
        out.add(new Vector(f[0], f[1], f[2], f[3], f[4], f[5], f[6]));
      }
    }
    assertThat(out).hasSize(249);
    return out.stream();
  }

  /** Column fields and the session zone from the column_types cell. */
  record Columns(List<Field> fields, ZoneId zone) {}

  static Columns columns(String cell) {
    List<Field> fields = new ArrayList<>();
    ZoneId zone = ZoneOffset.UTC;
    if (!cell.equals("(none)")) {
      for (String part : cell.split(";")) {
        String p = part.trim();
        if (p.startsWith("session tz ")) {
          zone = ZoneId.of(p.substring("session tz ".length()).trim());
          continue;
        }
        Matcher m = Pattern.compile("(\\w+):(\\S+)\\s+(nullable|not null)").matcher(p);
        if (!m.matches()) throw new IllegalArgumentException("column spec " + p);
        fields.add(new Field(m.group(1), new FieldType(m.group(3).equals("nullable"), type(m.group(2)), null), null));
      }
    }
    return new Columns(fields, zone);
  }

  static ArrowType type(String t) {
    Matcher dec = Pattern.compile("DECIMAL\\((\\d+),(\\d+)\\)").matcher(t);
    if (dec.matches()) return SqlTypes.decimal(Integer.parseInt(dec.group(1)), Integer.parseInt(dec.group(2)));
    Matcher ts = Pattern.compile("TIMESTAMP\\((s|ms|us|ns)(,UTC)?\\)").matcher(t);
    if (ts.matches()) {
      TimeUnit u = switch (ts.group(1)) {
        case "s" -> TimeUnit.SECOND; case "ms" -> TimeUnit.MILLISECOND; case "us" -> TimeUnit.MICROSECOND;
        default -> TimeUnit.NANOSECOND;
      };
      return new ArrowType.Timestamp(u, ts.group(2) == null ? null : "UTC");
    }
    return switch (t) {
      case "BOOLEAN" -> ArrowType.Bool.INSTANCE;
      case "INT8" -> new ArrowType.Int(8, true);
      case "INT16" -> new ArrowType.Int(16, true);
      case "INT32" -> new ArrowType.Int(32, true);
      case "INT64" -> new ArrowType.Int(64, true);
      case "UINT8" -> new ArrowType.Int(8, false);
      case "UINT16" -> new ArrowType.Int(16, false);
      case "UINT32" -> new ArrowType.Int(32, false);
      case "UINT64" -> new ArrowType.Int(64, false);
      case "FLOAT32" -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "FLOAT64" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "VARCHAR" -> ArrowType.Utf8.INSTANCE;
      case "DATE" -> new ArrowType.Date(DateUnit.DAY);
      default -> throw new IllegalArgumentException("type " + t);
    };
  }

  static Expr bind(String predicate, List<Field> fields) {
    String sql = "SELECT 1 FROM t WHERE " + predicate;
    PlainSelect ps = (PlainSelect) SqlParser.parse(sql);
    return ExprBinder.forPredicate(sql, Scope.of("t", fields), true).bindPredicate(ps.getWhere());
  }

  /** The table's notion of the same expression: constants folded, literals on the right. */
  Expr normalize(Expr e, OptimizerContext ctx) {
    ExprSimplifier canonical = new ExprSimplifier(List.of(new FoldConstants(), new MoveLiteralToRight()), List.of());
    return canonical.simplify(e, ctx, new TreeSet<>());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void conforms(Vector v) {
    Columns cols = columns(v.columns());
    EvalContext eval = new EvalContext(START_MICROS, cols.zone());
    OptimizerContext ctx = new OptimizerContext(allocator, eval);
    ExprSimplifier simplifier = ExprSimplifier.standard();
    if (v.expression().startsWith("ERROR")) {
      assertThatThrownBy(() -> simplifier.simplify(bind(v.input(), cols.fields()), ctx, new TreeSet<>()))
          .as(v.basis()).hasMessageContaining("invalid");
      return;
    }
    Expr input = bind(v.input(), cols.fields());
    Set<String> fired = new TreeSet<>();
    Expr asExpression = simplifier.simplify(input, ctx, fired);
    Expr asFilter = simplifier.simplifyFilter(input, ctx, new TreeSet<>());

    String startLiteral = "TIMESTAMP '" + Instant.ofEpochSecond(0, START_MICROS * 1000).toString()
        .replace("T", " ").replace("Z", "+00:00") + "'";
    String expectedExprText = v.expression().replace("TIMESTAMP '<query start>'", startLiteral);
    Expr expectedExpr = expectedExprText.equals("unchanged") ? input : bind(expectedExprText, cols.fields());
    Expr expectedFilter = v.filter().equals("same") ? expectedExpr : bind(v.filter(), cols.fields());

    String why = v.id() + " (" + v.basis() + "), rules fired " + fired;
    assertThat(Canon.of(normalize(asExpression, ctx))).as("expression " + why).isEqualTo(Canon.of(normalize(expectedExpr, ctx)));
    assertThat(Canon.of(normalize(asFilter, ctx))).as("filter " + why).isEqualTo(Canon.of(normalize(expectedFilter, ctx)));

    boolean pushable = ScanPredicates.translate(asFilter) != null;
    assertThat(pushable).as("pushable " + why + ": " + asFilter).isEqualTo(v.pushable().toLowerCase(Locale.ROOT).equals("yes"));

    EquivalenceVerifier verifier = new EquivalenceVerifier(allocator, eval);
    assertThat(verifier.compare(cols.fields(), input, asExpression, false)).as("evaluation of " + why + ": " + asExpression).isNull();
    assertThat(verifier.compare(cols.fields(), input, asFilter, true)).as("filter evaluation of " + why + ": " + asFilter).isNull();
  }
}
