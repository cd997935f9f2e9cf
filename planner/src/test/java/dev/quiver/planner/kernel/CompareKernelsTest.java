package dev.quiver.planner.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.ArithOp;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The in-place comparison kernels ({@link CompareKernels}: a word of 64 rows at a time, literals turned into
 * key ranges, doubles through ordered keys) and the in-place decimal arithmetic against row-by-row
 * references and against the general path with the fast paths off: random columns with NULLs, NaN (several
 * bit patterns), -0.0 and 0.0, infinities, min/max long and int, decimals near 10^18 and at several scales,
 * all six operators, the literal on either side, batches of 1, 63, 64, 65 and 1003 rows.
 */
class CompareKernelsTest {
  static final ArrowType D18_2 = SqlTypes.decimal(18, 2);
  static final ArrowType D18_0 = SqlTypes.decimal(18, 0);
  static final ArrowType D10_5 = SqlTypes.decimal(10, 5);
  static final ArrowType D38_2 = SqlTypes.decimal(38, 2);
  static final int[] SIZES = {1, 63, 64, 65, 1003};

  final BufferAllocator allocator = new RootAllocator();
  final EvalContext ctx = EvalContext.utcNow();
  final Random random = new Random(20261201);
  final Schema schema = new Schema(List.of(
      field("i64", SqlTypes.BIGINT), field("i64b", SqlTypes.BIGINT), field("i32", SqlTypes.INTEGER),
      field("i32b", SqlTypes.INTEGER), field("dt", SqlTypes.DATE), field("dtb", SqlTypes.DATE),
      field("ts", SqlTypes.TIMESTAMP), field("f64", SqlTypes.DOUBLE), field("f64b", SqlTypes.DOUBLE),
      field("d2", D18_2), field("d2b", D18_2), field("d0", D18_0), field("d5", D10_5), field("w", D38_2)));

  static Field field(String name, ArrowType t) {
    return new Field(name, FieldType.nullable(t), null);
  }

  @AfterEach
  void close() {
    CompareKernels.enabled = true;
    ArithmeticKernels.inPlace = true;
    allocator.close();
  }

  static final long[] LONGS = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
  static final long[] INTS = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, Integer.MAX_VALUE - 1, Integer.MAX_VALUE};
  static final double[] DOUBLES = {Double.NaN, Double.longBitsToDouble(0xFFF8000000000000L),
      Double.longBitsToDouble(0x7FF0000000000001L), 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
      Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 1.5, -1.5};
  static final long NEAR = 999_999_999_999_999_999L; // 10^18 - 1, the largest unscaled DECIMAL(18, s)

  Object value(String column) {
    if (random.nextInt(6) == 0) return null;
    boolean special = random.nextInt(3) == 0;
    return switch (column) {
      case "i64", "i64b", "ts" -> special ? LONGS[random.nextInt(LONGS.length)] : (long) random.nextInt(21) - 10;
      case "i32", "i32b", "dt", "dtb" -> special ? INTS[random.nextInt(INTS.length)] : (long) random.nextInt(21) - 10;
      case "f64", "f64b" -> special ? DOUBLES[random.nextInt(DOUBLES.length)] : (double) (random.nextInt(21) - 10) / 2;
      case "d2", "d2b", "d0" -> {
        int scale = column.equals("d0") ? 0 : 2;
        long u = special ? (random.nextBoolean() ? NEAR - random.nextInt(3) : -NEAR + random.nextInt(3))
            : random.nextInt(2001) - 1000;
        yield BigDecimal.valueOf(u, scale);
      }
      case "d5" -> BigDecimal.valueOf(special ? 9_999_999_999L * (random.nextBoolean() ? 1 : -1) : random.nextInt(2_000_001) - 1_000_000, 5);
      case "w" -> special ? new BigDecimal(BigInteger.TEN.pow(30).add(BigInteger.valueOf(random.nextInt(100))), 2)
          : BigDecimal.valueOf(random.nextInt(2001) - 1000, 2);
      default -> throw new IllegalArgumentException(column);
    };
  }

  List<Object[]> rows(int n) {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Object[] row = new Object[schema.getFields().size()];
      for (int c = 0; c < row.length; c++) row[c] = value(schema.getFields().get(c).getName());
      rows.add(row);
    }
    return rows;
  }

  VectorSchemaRoot batch(List<Object[]> rows) {
    List<FieldVector> vectors = new ArrayList<>();
    for (int c = 0; c < schema.getFields().size(); c++) {
      FieldVector v = schema.getFields().get(c).createVector(allocator);
      v.setInitialCapacity(rows.size());
      v.allocateNew();
      for (int i = 0; i < rows.size(); i++) Vectors.set(v, i, rows.get(i)[c]);
      v.setValueCount(rows.size());
      vectors.add(v);
    }
    return new VectorSchemaRoot(schema.getFields(), vectors, rows.size());
  }

  int index(String column) {
    for (int c = 0; c < schema.getFields().size(); c++) if (schema.getFields().get(c).getName().equals(column)) return c;
    throw new IllegalArgumentException(column);
  }

  ArrowType type(String column) {
    return schema.getFields().get(index(column)).getType();
  }

  Expr col(String name) {
    return new Expr.ColumnRef(name, type(name), true);
  }

  Object operand(Expr e, Object[] row) {
    return e instanceof Expr.ColumnRef c ? row[index(c.name())] : ((Expr.Literal) e).value();
  }

  static Boolean reference(CmpOp op, Kernels.Family f, Object l, Object r) {
    if (l == null || r == null) return null;
    int c = Kernels.compareObjects(f, l, r);
    return switch (op) {
      case EQ -> c == 0; case NE -> c != 0; case LT -> c < 0; case LE -> c <= 0; case GT -> c > 0; case GE -> c >= 0;
    };
  }

  /** The literals a column is compared with: its special values, values between them, NULL. */
  List<Expr.Literal> literals(String column) {
    ArrowType t = type(column);
    List<Expr.Literal> out = new ArrayList<>();
    out.add(new Expr.Literal(null, t));
    switch (column) {
      case "i64", "ts" -> {
        for (long v : LONGS) out.add(new Expr.Literal(v, t));
        out.add(new Expr.Literal(3L, t));
      }
      case "i32", "dt" -> {
        for (long v : INTS) out.add(new Expr.Literal(v, t));
        out.add(new Expr.Literal(-4L, t));
      }
      case "f64" -> {
        for (double v : DOUBLES) out.add(new Expr.Literal(v, t));
        out.add(new Expr.Literal(2.5, t));
      }
      case "d2", "d0", "d5" -> {
        for (String s : new String[] {"0", "0.00", "-0.05", "0.055", "1.5", "-3", "12.345678", "9999999999999999.99",
            "-9999999999999999.99", "99999999999999999999", "-99999999999999999999", "0.000000000000000000001"}) {
          BigDecimal v = new BigDecimal(s);
          out.add(new Expr.Literal(v, SqlTypes.decimal(Math.max(v.precision(), v.scale() + 1), Math.max(v.scale(), 0))));
        }
        for (int k = 0; k < 3; k++) {
          Object v = value(column);
          if (v != null) out.add(new Expr.Literal(v, t));
        }
      }
      default -> throw new IllegalArgumentException(column);
    }
    return out;
  }

  /** Evaluates {@code e} with the fast paths on and off, checks both against the row-by-row reference. */
  void check(Expr e, List<Object[]> rows, java.util.function.Function<Object[], Object> want) {
    List<Object> fast = eval(e, rows, true);
    List<Object> slow = eval(e, rows, false);
    for (int i = 0; i < rows.size(); i++) {
      Object w = want.apply(rows.get(i));
      assertThat(fast.get(i)).as(e + " row " + i + " " + java.util.Arrays.toString(rows.get(i))).isEqualTo(w);
    }
    assertThat(slow).as(e + " general path").isEqualTo(fast);
  }

  List<Object> eval(Expr e, List<Object[]> rows, boolean fast) {
    CompareKernels.enabled = fast;
    ArithmeticKernels.inPlace = fast;
    try (VectorSchemaRoot b = batch(rows)) {
      try (ColumnValues v = ExprCompiler.compile(e, schema, ctx).eval(b, allocator)) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) out.add(v.isNull(i) ? null : v.getObject(i));
        if (v.vector() instanceof BitVector bits) {
          // TRUE rows as the filters read them
          int[] selected = new int[rows.size()];
          int count = BatchValues.selectTrue(v, rows.size(), selected);
          List<Integer> trueRows = new ArrayList<>();
          for (int i = 0; i < rows.size(); i++) if (Boolean.TRUE.equals(out.get(i))) trueRows.add(i);
          assertThat(java.util.Arrays.stream(selected, 0, count).boxed().toList()).as(e + " selectTrue").isEqualTo(trueRows);
          boolean[] keep = new boolean[rows.size()];
          java.util.Arrays.fill(keep, true);
          assertThat(BatchValues.keepTrue(v, rows.size(), keep)).as(e + " keepTrue").isEqualTo(trueRows.size());
          boolean[] want = new boolean[rows.size()];
          for (int i = 0; i < rows.size(); i++) want[i] = Boolean.TRUE.equals(out.get(i));
          assertThat(keep).as(e + " keepTrue").isEqualTo(want);
        }
        return out;
      } catch (dev.quiver.common.QuiverException err) {
        return java.util.Collections.nCopies(rows.size(), "error: " + err.getMessage());
      }
    } finally {
      CompareKernels.enabled = true;
      ArithmeticKernels.inPlace = true;
    }
  }

  @Test
  void columnAgainstLiteralOnEitherSide() {
    for (int n : SIZES) {
      List<Object[]> rows = rows(n);
      for (String column : List.of("i64", "ts", "i32", "dt", "f64", "d2", "d0", "d5")) {
        Kernels.Family f = Kernels.family(type(column));
        for (Expr.Literal k : literals(column)) {
          for (CmpOp op : CmpOp.values()) {
            Expr c = col(column);
            check(new Expr.Comparison(op, c, k), rows, row -> reference(op, f, operand(c, row), k.value()));
            check(new Expr.Comparison(op, k, c), rows, row -> reference(op, f, k.value(), operand(c, row)));
          }
        }
      }
    }
  }

  @Test
  void columnAgainstColumn() {
    String[][] pairs = {{"i64", "i64b"}, {"i32", "i32b"}, {"dt", "dtb"}, {"f64", "f64b"}, {"d2", "d2b"},
        {"f64", "f64"}, {"d2", "d0"}, {"w", "d2"}, {"i64", "ts"}};
    for (int n : SIZES) {
      List<Object[]> rows = rows(n);
      for (String[] p : pairs) {
        Expr l = col(p[0]);
        Expr r = col(p[1]);
        Kernels.Family f = Kernels.family(type(p[0]));
        for (CmpOp op : CmpOp.values()) {
          check(new Expr.Comparison(op, l, r), rows, row -> reference(op, f, operand(l, row), operand(r, row)));
        }
      }
    }
  }

  @Test
  void fastPathsApply() {
    List<Object[]> rows = rows(100);
    String[][] cases = {{"i64", "i64b"}, {"i32", "i32b"}, {"dt", "dtb"}, {"f64", "f64b"}, {"d2", "d2b"}};
    for (String[] p : cases) {
      try (VectorSchemaRoot b = batch(rows)) {
        ColumnValues x = new VectorValues(b.getVector(p[0]), false);
        ColumnValues y = new VectorValues(b.getVector(p[1]), false);
        Kernels.Family f = Kernels.family(type(p[0]));
        try (BitVector out = Kernels.newBool(allocator, 100)) {
          assertThat(CompareKernels.compare(CmpOp.LT, f, x, y, 100, out)).as(p[0]).isTrue();
          out.setValueCount(100);
          for (int i = 0; i < 100; i++) {
            Boolean want = reference(CmpOp.LT, f, rows.get(i)[index(p[0])], rows.get(i)[index(p[1])]);
            assertThat(out.isNull(i) ? null : out.get(i) == 1).as(p[0] + " row " + i).isEqualTo(want);
            // value bits of NULL rows are 0
            if (out.isNull(i)) assertThat(out.getDataBuffer().getByte(i >> 3) >> (i & 7) & 1).isZero();
          }
        }
        ColumnValues k = new ScalarValues(rows.stream().map(r -> r[index(p[0])]).filter(v -> v != null).findFirst().get(), type(p[0]));
        try (BitVector out = Kernels.newBool(allocator, 100)) {
          assertThat(CompareKernels.compare(CmpOp.GE, f, k, y, 100, out)).as(p[0] + " literal").isTrue();
        }
      }
    }
  }

  static BigDecimal arithmetic(ArithOp op, BigDecimal x, BigDecimal y) {
    return switch (op) {
      case ADD -> x.add(y);
      case SUBTRACT -> x.subtract(y);
      default -> x.multiply(y);
    };
  }

  @Test
  void decimalArithmeticInPlace() {
    Expr one = new Expr.Literal(BigDecimal.ONE, SqlTypes.decimal(10, 0));
    Expr big = new Expr.Literal(new BigDecimal("9999999999999999.99"), D18_2);
    Expr nul = new Expr.Literal(null, D18_2);
    Object[][] cases = {
        {ArithOp.MULTIPLY, col("d2"), col("d2b"), SqlTypes.decimal(37, 4)},
        {ArithOp.MULTIPLY, col("d2"), col("d0"), SqlTypes.decimal(36, 2)},
        {ArithOp.MULTIPLY, col("d2"), col("d5"), SqlTypes.decimal(29, 7)},
        {ArithOp.MULTIPLY, col("d5"), col("d5"), SqlTypes.decimal(18, 10)}, // overflows the precision: an error
        {ArithOp.MULTIPLY, col("w"), col("d2"), SqlTypes.decimal(38, 4)},
        {ArithOp.MULTIPLY, col("d2"), new Expr.Arithmetic(ArithOp.SUBTRACT, one, col("d2b"), SqlTypes.decimal(19, 2)),
            SqlTypes.decimal(38, 4)},
        {ArithOp.ADD, col("d2"), col("d2b"), SqlTypes.decimal(19, 2)},
        {ArithOp.SUBTRACT, col("d2"), col("d2b"), SqlTypes.decimal(19, 2)},
        {ArithOp.SUBTRACT, col("d2"), col("d0"), SqlTypes.decimal(21, 2)},
        {ArithOp.ADD, col("d5"), col("d2"), SqlTypes.decimal(24, 5)},
        {ArithOp.ADD, col("d2"), col("d2b"), SqlTypes.decimal(18, 2)}, // may overflow: an error
        {ArithOp.SUBTRACT, one, col("d2"), SqlTypes.decimal(19, 2)},
        {ArithOp.ADD, col("d2"), big, SqlTypes.decimal(19, 2)},
        {ArithOp.MULTIPLY, big, col("d0"), SqlTypes.decimal(36, 2)},
        {ArithOp.MULTIPLY, nul, col("d0"), SqlTypes.decimal(36, 2)},
        {ArithOp.ADD, col("w"), col("d2"), SqlTypes.decimal(38, 2)},
    };
    for (int n : SIZES) {
      List<Object[]> rows = rows(n);
      for (Object[] c : cases) {
        ArithOp op = (ArithOp) c[0];
        Expr l = (Expr) c[1];
        Expr r = (Expr) c[2];
        ArrowType.Decimal t = (ArrowType.Decimal) c[3];
        Expr e = new Expr.Arithmetic(op, l, r, t);
        List<Object> fast = eval(e, rows, true);
        List<Object> slow = eval(e, rows, false);
        assertThat(fast).as(e + " vs the general path").isEqualTo(slow);
        if (fast.get(0) instanceof String) continue; // the same error both ways
        for (int i = 0; i < n; i++) {
          BigDecimal x = (BigDecimal) value(l, rows.get(i));
          BigDecimal y = (BigDecimal) value(r, rows.get(i));
          BigDecimal want = x == null || y == null ? null : arithmetic(op, x, y).setScale(t.getScale());
          assertThat(fast.get(i)).as(e + " row " + i).isEqualTo(want);
        }
      }
    }
  }

  /** An operand's value in a row, arithmetic evaluated here. */
  Object value(Expr e, Object[] row) {
    if (e instanceof Expr.Arithmetic a) {
      BigDecimal x = (BigDecimal) value(a.left(), row);
      BigDecimal y = (BigDecimal) value(a.right(), row);
      return x == null || y == null ? null : arithmetic(a.op(), x, y).setScale(((ArrowType.Decimal) a.type()).getScale());
    }
    return operand(e, row);
  }
}
