package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator precedence, generated: random boolean trees over AND / OR / NOT whose leaves are every predicate form
 * (comparisons, IN lists with and without NULL, IN subqueries, BETWEEN, LIKE, IS [NOT] NULL, EXISTS, a bare
 * BOOLEAN column, each also negated where SQL has a NOT form), printed with the fewest parentheses the standard's
 * precedence allows ({@code NOT} over {@code AND} over {@code OR}; every predicate binds tighter than {@code NOT}).
 * Each is checked twice, independently of the parser under test:
 * <ul>
 *   <li>the answer ({@code count(*)} of the rows where it is TRUE, and of those where it is NULL) against a
 *       brute-force three-valued evaluation of the generated tree over {@link TestTables#rows()};</li>
 *   <li>the analyzed plan against that of the same tree printed with every operand parenthesized, which has
 *       only one reading.</li>
 * </ul>
 * JSqlParser 5.3 read {@code a AND x IN (1, 2) OR b} as {@code a AND (x IN ((1, 2) OR b))}: a silent wrong answer
 * that this test finds in its first few cases. Arithmetic precedence is generated the same way over literals.
 * {@code -Dquiver.precedence.seed=N -Dquiver.precedence.cases=M} runs another sequence.
 */
class PrecedenceTest {
  static final long SEED = Long.getLong("quiver.precedence.seed", 20_261_203L);
  static final int CASES = Integer.getInteger("quiver.precedence.cases", 2_000);

  @TempDir
  static Path dir;
  static QueryEngine engine;
  static BufferAllocator root;
  static List<Object[]> rows;

  @BeforeAll
  static void setUp() throws Exception {
    engine = new QueryEngine(TestTables.create(dir));
    root = new RootAllocator();
    rows = TestTables.rows();
  }

  @AfterAll
  static void tearDown() {
    root.close(); // a leaked buffer fails here
  }

  // ---- three-valued logic: Boolean.TRUE, Boolean.FALSE, null ----

  static Boolean and(Boolean a, Boolean b) {
    if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) return false;
    return a == null || b == null ? null : Boolean.TRUE;
  }

  static Boolean or(Boolean a, Boolean b) {
    if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) return true;
    return a == null || b == null ? null : Boolean.FALSE;
  }

  static Boolean not(Boolean a) {
    return a == null ? null : !a;
  }

  /** A generated boolean expression: its SQL at the fewest parentheses, fully parenthesized, and its value per row. */
  sealed interface Node {
    /** 0: OR, 1: AND, 2: NOT, 3: a predicate. */
    int level();

    String minimal();

    String full();

    Boolean eval(Object[] row);
  }

  record Or(Node l, Node r) implements Node {
    public int level() { return 0; }
    public String minimal() { return l.minimal() + " OR " + r.minimal(); } // OR is lowest and associative
    public String full() { return "(" + l.full() + ") OR (" + r.full() + ")"; }
    public Boolean eval(Object[] row) { return or(l.eval(row), r.eval(row)); }
  }

  record And(Node l, Node r) implements Node {
    public int level() { return 1; }
    public String minimal() { return wrap(l, 1) + " AND " + wrap(r, 1); }
    public String full() { return "(" + l.full() + ") AND (" + r.full() + ")"; }
    public Boolean eval(Object[] row) { return and(l.eval(row), r.eval(row)); }
  }

  record Not(Node e) implements Node {
    public int level() { return 2; }
    public String minimal() { return "NOT " + wrap(e, 2); }
    public String full() { return "NOT (" + e.full() + ")"; }
    public Boolean eval(Object[] row) { return not(e.eval(row)); }
  }

  /** A predicate: one SQL text (it needs no parentheses in any context) and its value per row. */
  record Leaf(String sql, java.util.function.Function<Object[], Boolean> f) implements Node {
    public int level() { return 3; }
    public String minimal() { return sql; }
    public String full() { return sql; }
    public Boolean eval(Object[] row) { return f.apply(row); }
  }

  /** {@code n} printed as an operand of an operator at {@code level}: parenthesized only if it binds looser. */
  static String wrap(Node n, int level) {
    return n.level() < level ? "(" + n.minimal() + ")" : n.minimal();
  }

  // columns of t: 0 i8, 1 i32, 2 i64, 3 f64, 4 dec, 5 s, 6 d, 7 b
  static final int[] SMALL = {-100, -1, 0, 1, 5, 7, 42};

  static Boolean cmp(Integer v, String op, int k) {
    if (v == null) return null;
    int c = Integer.compare(v, k);
    return switch (op) {
      case "<" -> c < 0;
      case "<=" -> c <= 0;
      case ">" -> c > 0;
      case ">=" -> c >= 0;
      case "=" -> c == 0;
      default -> c != 0;
    };
  }

  /** {@code v [NOT] IN set}, where the set may hold NULL. */
  static Boolean in(Object v, Set<Object> set, boolean negated) {
    Boolean r;
    if (set.isEmpty()) r = false;
    else if (v == null) r = null;
    else if (set.contains(v)) r = true;
    else r = set.contains(null) ? null : Boolean.FALSE;
    return negated ? not(r) : r;
  }

  /** SQL LIKE for the patterns generated here ('%' only). */
  static boolean like(String s, String pattern) {
    String regex = java.util.regex.Pattern.quote(pattern).replace("%", "\\E.*\\Q");
    return s.matches(regex);
  }

  static Leaf leaf(Random rnd) {
    int k = SMALL[rnd.nextInt(SMALL.length)];
    int k2 = SMALL[rnd.nextInt(SMALL.length)];
    String[] ops = {"<", "<=", ">", ">=", "=", "<>"};
    switch (rnd.nextInt(13)) {
      case 0: {
        String op = ops[rnd.nextInt(ops.length)];
        return new Leaf("i32 " + op + " " + k, r -> cmp((Integer) r[1], op, k));
      }
      case 1: {
        String op = ops[rnd.nextInt(ops.length)];
        // arithmetic inside a comparison: + and * bind tighter than the comparison
        return new Leaf("i8 + 1 * 2 " + op + " " + k, r -> r[0] == null ? null : cmp((Integer) r[0] + 2, op, k));
      }
      case 2: case 3: {
        boolean negated = rnd.nextBoolean();
        boolean withNull = rnd.nextInt(4) == 0;
        Set<Object> set = new HashSet<>(List.of(k, k2));
        if (withNull) set.add(null);
        String items = k + ", " + k2 + (withNull ? ", NULL" : "");
        return new Leaf("i32 " + (negated ? "NOT " : "") + "IN (" + items + ")", r -> in(r[1], set, negated));
      }
      case 4: {
        boolean negated = rnd.nextBoolean();
        // a subquery over the same rows: i32 of the rows whose i8 is below k (NULL i32 included when i8 qualifies)
        Set<Object> set = new HashSet<>();
        for (Object[] r : rows) if (r[0] != null && (Integer) r[0] < k) set.add(r[1]);
        String sql = "i32 " + (negated ? "NOT " : "") + "IN (SELECT i32 FROM t AS u WHERE u.i8 < " + k + ")";
        return new Leaf(sql, r -> in(r[1], set, negated));
      }
      case 5: {
        boolean negated = rnd.nextBoolean();
        int lo = Math.min(k, k2);
        int hi = Math.max(k, k2);
        return new Leaf("i8 " + (negated ? "NOT " : "") + "BETWEEN " + lo + " AND " + hi, r -> {
          Boolean b = and(cmp((Integer) r[0], ">=", lo), cmp((Integer) r[0], "<=", hi));
          return negated ? not(b) : b;
        });
      }
      case 6: {
        boolean negated = rnd.nextBoolean();
        String pattern = List.of("s1%", "%3", "s%", "x%").get(rnd.nextInt(4));
        return new Leaf("s " + (negated ? "NOT " : "") + "LIKE '" + pattern + "'", r -> {
          if (r[5] == null) return null;
          return like((String) r[5], pattern) != negated;
        });
      }
      case 7: {
        boolean negated = rnd.nextBoolean();
        int c = List.of(1, 5, 6, 7).get(rnd.nextInt(4));
        String name = List.of("i8", "i32", "i64", "f64", "dec", "s", "d", "b").get(c);
        return new Leaf(name + " IS " + (negated ? "NOT " : "") + "NULL", r -> (r[c] == null) != negated);
      }
      case 8: {
        // uncorrelated EXISTS: TRUE or FALSE for every row
        boolean some = rnd.nextBoolean();
        String cond = some ? "x" : "x AND NOT x";
        return new Leaf("EXISTS (SELECT 1 FROM bools WHERE " + cond + ")", r -> some);
      }
      case 9: {
        // correlated EXISTS: another row with the same s whose i32 is above k
        return new Leaf("EXISTS (SELECT 1 FROM t AS v WHERE v.s = t.s AND v.i32 > " + k + ")", r -> {
          if (r[5] == null) return false;
          for (Object[] o : rows) if (Objects.equals(o[5], r[5]) && o[1] != null && (Integer) o[1] > k) return true;
          return false;
        });
      }
      case 10:
        return new Leaf("b", r -> (Boolean) r[7]);
      case 11: {
        // a long IN list: read by SqlText, not JSqlParser, and put back into the tree
        boolean negated = rnd.nextBoolean();
        Set<Object> set = new HashSet<>();
        StringBuilder items = new StringBuilder();
        for (int v = k; v < k + 40; v++) {
          set.add(v);
          items.append(v == k ? "" : ", ").append(v);
        }
        return new Leaf("i32 " + (negated ? "NOT " : "") + "IN (" + items + ")", r -> in(r[1], set, negated));
      }
      default: {
        // a comparison with a subquery value
        String op = ops[rnd.nextInt(ops.length)];
        return new Leaf("i8 " + op + " (SELECT max(i8) FROM t AS w WHERE w.i32 < " + k + ")", r -> {
          Integer max = null;
          for (Object[] o : rows) {
            if (o[1] != null && (Integer) o[1] < k && o[0] != null) max = max == null ? (Integer) o[0] : Math.max(max, (Integer) o[0]);
          }
          return max == null ? null : cmp((Integer) r[0], op, max);
        });
      }
    }
  }

  static Node tree(Random rnd, int leaves) {
    if (leaves == 1) {
      Node leaf = leaf(rnd);
      return rnd.nextInt(5) == 0 ? new Not(leaf) : leaf;
    }
    int left = 1 + rnd.nextInt(leaves - 1);
    Node l = tree(rnd, left);
    Node r = tree(rnd, leaves - left);
    Node n = rnd.nextBoolean() ? new And(l, r) : new Or(l, r);
    return rnd.nextInt(6) == 0 ? new Not(n) : n;
  }

  static long count(String sql) {
    return (Long) TestTables.run(engine, root, sql).get(0).get(0);
  }

  static String analyzed(String sql) {
    PreparedQuery q = engine.prepare(sql, root);
    return String.join("\n", QueryEngine.render(q.analyzed()));
  }

  @Test
  void booleanTreesAnswerAsTheStandardsPrecedenceReadsThem() {
    Random rnd = new Random(SEED);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < CASES && failures.size() < 10; i++) {
      Node n = tree(rnd, 2 + rnd.nextInt(5));
      String where = n.minimal();
      long trueRows = rows.stream().filter(r -> Boolean.TRUE.equals(n.eval(r))).count();
      long nullRows = rows.stream().filter(r -> n.eval(r) == null).count();
      try {
        String sql = "SELECT count(*) FROM t WHERE " + where;
        long got = count(sql);
        if (got != trueRows) {
          failures.add("case " + i + ": " + sql + "\n  answered " + got + ", expected " + trueRows + "; read as: " + full(n));
          continue;
        }
        // the same tree in the select list, where NULL shows: SUM of 1 per NULL row
        String nullSql = "SELECT count(*) FROM t WHERE CASE WHEN " + where + " THEN FALSE WHEN NOT (" + where
            + ") THEN FALSE ELSE TRUE END";
        long gotNull = count(nullSql);
        if (gotNull != nullRows) {
          failures.add("case " + i + ": " + nullSql + "\n  answered " + gotNull + " NULL rows, expected " + nullRows);
          continue;
        }
        if (i % 5 == 0) {
          String a = analyzed("SELECT i32 FROM t WHERE " + where);
          String b = analyzed("SELECT i32 FROM t WHERE " + n.full());
          if (!a.equals(b)) failures.add("case " + i + ": " + where + "\n  binds as\n" + a + "\n  but fully parenthesized as\n" + b);
        }
      } catch (RuntimeException e) {
        failures.add("case " + i + ": " + where + "\n  failed: " + e);
      }
    }
    assertThat(failures).as("seed " + SEED).isEmpty();
  }

  private static String full(Node n) {
    return n.full();
  }

  // ---- arithmetic over literals: unary minus, *, /, %, +, - (left-associative) ----

  /** A generated integer expression: minimal SQL, value (exact, as BigInteger), and its level. */
  record Arith(String sql, java.math.BigInteger value, int level) {}

  static final String[] ADD = {"+", "-"};
  static final String[] MUL = {"*", "/", "%"};

  static Arith arith(Random rnd, int depth) {
    if (depth == 0 || rnd.nextInt(4) == 0) {
      int v = rnd.nextInt(20) + 1;
      if (rnd.nextInt(5) == 0) return new Arith("- " + v, java.math.BigInteger.valueOf(-v), 3);
      return new Arith(Integer.toString(v), java.math.BigInteger.valueOf(v), 3);
    }
    Arith l = arith(rnd, depth - 1);
    Arith r = arith(rnd, depth - 1);
    boolean mul = rnd.nextBoolean();
    String op = mul ? MUL[rnd.nextInt(MUL.length)] : ADD[rnd.nextInt(ADD.length)];
    int level = mul ? 2 : 1;
    if ((op.equals("/") || op.equals("%")) && r.value().signum() == 0) op = "*";
    java.math.BigInteger a = l.value();
    java.math.BigInteger b = r.value();
    java.math.BigInteger v = switch (op) {
      case "+" -> a.add(b);
      case "-" -> a.subtract(b);
      case "*" -> a.multiply(b);
      case "/" -> a.divide(b); // truncates toward zero, as SQL's integer division
      default -> a.remainder(b); // sign of the dividend, as SQL's %
    };
    // left operand: parenthesized if it binds looser; right: also if equal (left-associative operators)
    String ls = l.level() < level ? "(" + l.sql() + ")" : l.sql();
    String rs = r.level() <= level ? "(" + r.sql() + ")" : r.sql();
    return new Arith(ls + " " + op + " " + rs, v, level);
  }

  @Test
  void arithmeticIsLeftAssociativeWithMultiplicationFirst() {
    Random rnd = new Random(SEED + 1);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < CASES / 5 && failures.size() < 10; i++) {
      Arith a = arith(rnd, 1 + rnd.nextInt(4));
      String sql = "SELECT CAST(" + a.sql() + " AS BIGINT)";
      try {
        Object got = TestTables.run(engine, root, sql).get(0).get(0);
        if (!Objects.equals(got, a.value().longValueExact())) {
          failures.add("case " + i + ": " + sql + " answered " + got + ", expected " + a.value());
        }
      } catch (RuntimeException e) {
        failures.add("case " + i + ": " + sql + " failed: " + e);
      }
    }
    assertThat(failures).as("seed " + (SEED + 1)).isEmpty();
  }

  @Test
  void signedBoundsRepeatedNotsAndRedundantParenthesesParse() {
    // each a syntax error before JSqlParser 5.4 (17 parentheses, NOT NOT NOT, a signed BETWEEN bound)
    long between = rows.stream().filter(r -> r[0] != null && (Integer) r[0] <= 1 && 1 <= -(Integer) r[0] * 2 + 81).count();
    assertThat(count("SELECT count(*) FROM t WHERE 1 BETWEEN i8 AND - i8 * 2 + 81")).isEqualTo(between);
    long notB = rows.stream().filter(r -> Boolean.FALSE.equals(r[7])).count();
    assertThat(count("SELECT count(*) FROM t WHERE NOT NOT NOT b")).isEqualTo(notB);
    for (int n : new int[] {16, 17, 40, 200}) {
      assertThat(TestTables.run(engine, root, "SELECT " + "(".repeat(n) + "7" + ")".repeat(n)).get(0).get(0)).isEqualTo(7);
    }
  }

}
