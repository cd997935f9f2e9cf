package dev.quiver.planner.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.ArithOp;
import dev.quiver.planner.expr.Expr.CmpOp;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The whole-batch fast paths of the comparison and arithmetic kernels (unscaled longs, LONG-family
 * arrays, result bits a byte at a time) against BigDecimal / long arithmetic done here row by row:
 * NULLs, mixed scales, values that do not fit a long (the exact path), results that overflow a long.
 */
class BatchKernelsTest {
  static final ArrowType.Decimal D15_2 = new ArrowType.Decimal(15, 2, 128);
  static final ArrowType.Decimal D15_3 = new ArrowType.Decimal(15, 3, 128);
  static final ArrowType.Decimal D38_2 = new ArrowType.Decimal(38, 2, 128);
  static final ArrowType I64 = new ArrowType.Int(64, true);
  static final int ROWS = 1_003; // not a multiple of 8: the last result byte is partial

  final BufferAllocator allocator = new RootAllocator();
  final EvalContext ctx = EvalContext.utcNow();
  final List<Object[]> rows = new ArrayList<>();
  final Schema schema = new Schema(List.of(
      new Field("a", FieldType.nullable(D15_2), null), new Field("b", FieldType.nullable(D15_3), null),
      new Field("w", FieldType.nullable(D38_2), null), new Field("x", FieldType.nullable(I64), null),
      new Field("y", FieldType.nullable(I64), null)));

  @AfterEach
  void close() {
    allocator.close();
  }

  BatchKernelsTest() {
    Random r = new Random(20261130);
    for (int i = 0; i < ROWS; i++) {
      BigDecimal a = i % 17 == 0 ? null : BigDecimal.valueOf(r.nextLong() % 100_000_000_000_000L, 2);
      BigDecimal b = i % 13 == 0 ? null : i % 5 == 0 && a != null ? a.setScale(3) : BigDecimal.valueOf(r.nextLong() % 999_999_999_999_999L, 3);
      // some values of w need more than 64 bits: the batch then takes the exact path
      BigDecimal w = i % 11 == 0 ? null : i == 500 ? new BigDecimal(BigInteger.TEN.pow(20), 2) : BigDecimal.valueOf(r.nextInt(), 2);
      Long x = i % 7 == 0 ? null : i % 3 == 0 ? Long.MIN_VALUE + r.nextInt(3) : r.nextLong() % 1000;
      Long y = i % 9 == 0 ? null : r.nextLong() % 1000;
      rows.add(new Object[] {a, b, w, x, y});
    }
  }

  VectorSchemaRoot batch() {
    List<FieldVector> vectors = new ArrayList<>();
    for (int c = 0; c < schema.getFields().size(); c++) {
      FieldVector v = schema.getFields().get(c).createVector(allocator);
      v.setInitialCapacity(ROWS);
      v.allocateNew();
      for (int i = 0; i < ROWS; i++) Vectors.set(v, i, rows.get(i)[c]);
      v.setValueCount(ROWS);
      vectors.add(v);
    }
    return new VectorSchemaRoot(schema.getFields(), vectors, ROWS);
  }

  static Expr col(String name, ArrowType t) {
    return new Expr.ColumnRef(name, t, true);
  }

  int index(String column) {
    for (int c = 0; c < schema.getFields().size(); c++) if (schema.getFields().get(c).getName().equals(column)) return c;
    throw new IllegalArgumentException(column);
  }

  /** Row values of an operand: a column's, or a literal's for every row. */
  Object operand(Expr e, int row) {
    if (e instanceof Expr.ColumnRef c) return rows.get(row)[index(c.name())];
    return ((Expr.Literal) e).value();
  }

  static Boolean compare(CmpOp op, Object l, Object r) {
    if (l == null || r == null) return null;
    int c = l instanceof BigDecimal x ? x.compareTo((BigDecimal) r) : Long.compare((Long) l, (Long) r);
    return switch (op) {
      case EQ -> c == 0; case NE -> c != 0; case LT -> c < 0; case LE -> c <= 0; case GT -> c > 0; case GE -> c >= 0;
    };
  }

  @Test
  void comparisonsMatchRowByRowArithmetic() {
    List<Expr[]> pairs = List.of(
        new Expr[] {col("a", D15_2), col("b", D15_3)},
        new Expr[] {col("a", D15_2), new Expr.Literal(new BigDecimal("0.05"), new ArrowType.Decimal(3, 2, 128))},
        new Expr[] {col("b", D15_3), new Expr.Literal(new BigDecimal("24"), new ArrowType.Decimal(2, 0, 128))},
        new Expr[] {col("w", D38_2), col("a", D15_2)},
        new Expr[] {col("x", I64), col("y", I64)},
        new Expr[] {col("x", I64), new Expr.Literal(0L, I64)},
        new Expr[] {col("x", I64), new Expr.Literal(null, I64)});
    for (Expr[] p : pairs) {
      for (CmpOp op : CmpOp.values()) {
        Expr e = new Expr.Comparison(op, p[0], p[1]);
        try (VectorSchemaRoot b = batch(); ColumnValues v = ExprCompiler.compile(e, schema, ctx).eval(b, allocator)) {
          for (int i = 0; i < ROWS; i++) {
            Boolean want = compare(op, operand(p[0], i), operand(p[1], i));
            Boolean got = v.isNull(i) ? null : v.getBool(i);
            assertThat(got).as(e + " row " + i).isEqualTo(want);
          }
          int[] selected = new int[ROWS];
          int count = BatchValues.selectTrue(v, ROWS, selected);
          List<Integer> trueRows = new ArrayList<>();
          for (int i = 0; i < ROWS; i++) if (Boolean.TRUE.equals(compare(op, operand(p[0], i), operand(p[1], i)))) trueRows.add(i);
          assertThat(java.util.Arrays.stream(selected, 0, count).boxed().toList()).as(e.toString()).isEqualTo(trueRows);
        }
      }
    }
  }

  @Test
  void decimalArithmeticMatchesBigDecimal() {
    ArrowType.Decimal sum = new ArrowType.Decimal(38, 3, 128);
    ArrowType.Decimal product = new ArrowType.Decimal(38, 5, 128);
    ArrowType.Decimal wideProduct = new ArrowType.Decimal(38, 4, 128);
    List<Object[]> cases = List.of(
        new Object[] {ArithOp.ADD, col("a", D15_2), col("b", D15_3), sum},
        new Object[] {ArithOp.SUBTRACT, col("a", D15_2), col("b", D15_3), sum},
        new Object[] {ArithOp.MULTIPLY, col("a", D15_2), col("b", D15_3), product}, // many overflow a long
        new Object[] {ArithOp.SUBTRACT, new Expr.Literal(new BigDecimal("1"), new ArrowType.Decimal(1, 0, 128)), col("b", D15_3), sum},
        new Object[] {ArithOp.MULTIPLY, col("w", D38_2), col("a", D15_2), wideProduct});
    for (Object[] c : cases) {
      ArithOp op = (ArithOp) c[0];
      Expr l = (Expr) c[1];
      Expr r = (Expr) c[2];
      ArrowType.Decimal t = (ArrowType.Decimal) c[3];
      Expr e = new Expr.Arithmetic(op, l, r, t);
      try (VectorSchemaRoot b = batch(); ColumnValues v = ExprCompiler.compile(e, schema, ctx).eval(b, allocator)) {
        for (int i = 0; i < ROWS; i++) {
          BigDecimal x = (BigDecimal) operand(l, i);
          BigDecimal y = (BigDecimal) operand(r, i);
          BigDecimal want = x == null || y == null ? null : switch (op) {
            case ADD -> x.add(y);
            case SUBTRACT -> x.subtract(y);
            default -> x.multiply(y);
          };
          BigDecimal got = v.isNull(i) ? null : v.getDecimal(i);
          if (want == null) {
            assertThat(got).as(e + " row " + i).isNull();
          } else {
            assertThat(got).as(e + " row " + i).isNotNull();
            assertThat(got.compareTo(want)).as(e + " row " + i + ": " + got + " vs " + want).isZero();
          }
        }
      }
    }
  }
}
