package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Checks a rewrite by evaluation: the original and the rewritten predicate run through the query
 * kernels on generated rows — NULL, NaN, ±0.0, ±Infinity, each type's min and max, ±1, and the
 * neighbours of every literal in the predicate — and must agree in three-valued logic (or, for a WHERE
 * rewrite, on which rows are TRUE). A row where the original fails must fail after the rewrite too,
 * unless the rewrite folded the whole predicate to a constant; a rewrite must not fail where the
 * original does not.
 */
public final class EquivalenceVerifier {
  static final int MAX_ROWS = 20_000;
  /** A row's outcome: TRUE, FALSE, NULL or an error. */
  enum Outcome { TRUE, FALSE, NULL, ERROR }

  private final BufferAllocator allocator;
  private final EvalContext ctx;

  public EquivalenceVerifier(BufferAllocator allocator, EvalContext ctx) {
    this.allocator = allocator;
    this.ctx = ctx;
  }

  /** Null when the two agree; else a description of the first disagreement. */
  public String compare(List<Field> fields, Expr original, Expr rewritten, boolean filter) {
    List<Object[]> rows = rows(fields, original);
    Schema schema = new Schema(fields);
    List<Outcome> a = evaluate(schema, original, rows);
    List<Outcome> b = evaluate(schema, rewritten, rows);
    for (int i = 0; i < rows.size(); i++) {
      Outcome x = a.get(i);
      Outcome y = b.get(i);
      boolean ok;
      if (x == Outcome.ERROR) ok = y == Outcome.ERROR || rewritten instanceof Expr.Literal;
      else if (y == Outcome.ERROR) ok = false;
      else ok = filter ? (x == Outcome.TRUE) == (y == Outcome.TRUE) : x == y;
      if (!ok) {
        return "row " + describe(fields, rows.get(i)) + ": original " + x + ", rewritten " + y;
      }
    }
    return null;
  }

  private static String describe(List<Field> fields, Object[] row) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < fields.size(); i++) {
      if (i > 0) sb.append(", ");
      sb.append(fields.get(i).getName()).append('=').append(row[i]);
    }
    return sb.append('}').toString();
  }

  private List<Outcome> evaluate(Schema schema, Expr e, List<Object[]> rows) {
    List<Outcome> out = new ArrayList<>();
    try (VectorSchemaRoot batch = batch(schema, rows, 0, rows.size())) {
      out.addAll(run(e, schema, batch));
      return out;
    } catch (QuiverException whole) {
      out.clear();
      for (int i = 0; i < rows.size(); i++) {
        try (VectorSchemaRoot one = batch(schema, rows, i, i + 1)) {
          out.addAll(run(e, schema, one));
        } catch (QuiverException err) {
          out.add(Outcome.ERROR);
        }
      }
      return out;
    }
  }

  private List<Outcome> run(Expr e, Schema schema, VectorSchemaRoot batch) {
    List<Outcome> out = new ArrayList<>();
    try (ColumnValues v = ExprCompiler.compile(e, schema, ctx).eval(batch, allocator)) {
      for (int i = 0; i < batch.getRowCount(); i++) {
        out.add(v.isNull(i) ? Outcome.NULL : v.getBool(i) ? Outcome.TRUE : Outcome.FALSE);
      }
    }
    return out;
  }

  private VectorSchemaRoot batch(Schema schema, List<Object[]> rows, int from, int to) {
    List<FieldVector> vectors = new ArrayList<>();
    for (int c = 0; c < schema.getFields().size(); c++) {
      Field f = schema.getFields().get(c);
      FieldVector v = f.createVector(allocator);
      v.setInitialCapacity(Math.max(1, to - from));
      v.allocateNew();
      for (int r = from; r < to; r++) Vectors.set(v, r - from, rows.get(r)[c]);
      v.setValueCount(to - from);
      vectors.add(v);
    }
    VectorSchemaRoot root = new VectorSchemaRoot(schema.getFields(), vectors, to - from);
    root.setRowCount(to - from);
    return root;
  }

  /** Rows over the cross product of each column's interesting values (sampled when too many). */
  List<Object[]> rows(List<Field> fields, Expr predicate) {
    List<Object> literals = new ArrayList<>();
    List<ArrowType> literalTypes = new ArrayList<>();
    collect(predicate, literals, literalTypes);
    List<List<Object>> perColumn = new ArrayList<>();
    long product = 1;
    for (Field f : fields) {
      List<Object> vs = new ArrayList<>(values(f, literals, literalTypes));
      perColumn.add(vs);
      product *= vs.size();
    }
    List<Object[]> rows = new ArrayList<>();
    if (fields.isEmpty()) {
      rows.add(new Object[0]);
    } else if (product <= MAX_ROWS) {
      cross(perColumn, 0, new Object[fields.size()], rows);
    } else {
      Random r = new Random(42);
      for (int i = 0; i < MAX_ROWS; i++) {
        Object[] row = new Object[fields.size()];
        for (int c = 0; c < row.length; c++) row[c] = perColumn.get(c).get(r.nextInt(perColumn.get(c).size()));
        rows.add(row);
      }
    }
    return rows;
  }

  private static void cross(List<List<Object>> cols, int c, Object[] row, List<Object[]> out) {
    if (c == cols.size()) {
      out.add(row.clone());
      return;
    }
    for (Object v : cols.get(c)) {
      row[c] = v;
      cross(cols, c + 1, row, out);
    }
  }

  private static void collect(Expr e, List<Object> literals, List<ArrowType> types) {
    if (e instanceof Expr.Literal l && l.value() != null) {
      literals.add(l.value());
      types.add(l.type());
    }
    for (Expr c : e.children()) collect(c, literals, types);
  }

  private static Set<Object> values(Field f, List<Object> literals, List<ArrowType> literalTypes) {
    ArrowType t = f.getType();
    Set<Object> out = new LinkedHashSet<>();
    if (f.isNullable()) out.add(null);
    if (t instanceof ArrowType.Bool) {
      out.add(true);
      out.add(false);
    } else if (t instanceof ArrowType.Int i) {
      BigInteger min = i.getIsSigned() ? BigInteger.ONE.shiftLeft(i.getBitWidth() - 1).negate() : BigInteger.ZERO;
      BigInteger max = i.getIsSigned() ? BigInteger.ONE.shiftLeft(i.getBitWidth() - 1).subtract(BigInteger.ONE)
          : BigInteger.ONE.shiftLeft(i.getBitWidth()).subtract(BigInteger.ONE);
      List<BigDecimal> seeds = new ArrayList<>(List.of(new BigDecimal(min), new BigDecimal(max), BigDecimal.ZERO,
          BigDecimal.ONE, BigDecimal.ONE.negate(), BigDecimal.valueOf(2), BigDecimal.valueOf(5)));
      for (int k = 0; k < literals.size(); k++) {
        BigDecimal d = numeric(literals.get(k), literalTypes.get(k));
        if (d != null) seeds.add(d);
      }
      for (BigDecimal s : seeds) {
        for (BigDecimal v : List.of(s.setScale(0, RoundingMode.FLOOR), s.setScale(0, RoundingMode.CEILING))) {
          for (int delta = -1; delta <= 1; delta++) {
            BigInteger x = v.toBigInteger().add(BigInteger.valueOf(delta));
            if (x.compareTo(min) >= 0 && x.compareTo(max) <= 0) out.add(x.longValue());
          }
        }
      }
    } else if (t instanceof ArrowType.FloatingPoint fp) {
      boolean single = fp.getPrecision() == FloatingPointPrecision.SINGLE;
      List<Double> seeds = new ArrayList<>(List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0,
          -0.0, 1.0, -1.0, single ? (double) Float.MAX_VALUE : Double.MAX_VALUE, 2.5));
      for (int k = 0; k < literals.size(); k++) {
        if (literals.get(k) instanceof Double d) seeds.add(d);
        else {
          BigDecimal b = numeric(literals.get(k), literalTypes.get(k));
          if (b != null) seeds.add(b.doubleValue());
        }
      }
      for (double s : seeds) {
        if (single) {
          float f0 = (float) s;
          for (float x : new float[] {f0, Math.nextUp(f0), Math.nextDown(f0)}) out.add((double) x);
        } else {
          for (double x : new double[] {s, Math.nextUp(s), Math.nextDown(s)}) out.add(x);
        }
      }
    } else if (t instanceof ArrowType.Decimal d) {
      BigDecimal ulp = BigDecimal.ONE.movePointLeft(d.getScale());
      BigDecimal max = BigDecimal.TEN.pow(d.getPrecision() - d.getScale()).subtract(ulp);
      List<BigDecimal> seeds = new ArrayList<>(List.of(BigDecimal.ZERO, max, max.negate(), BigDecimal.ONE));
      for (int k = 0; k < literals.size(); k++) {
        BigDecimal b = numeric(literals.get(k), literalTypes.get(k));
        if (b != null) seeds.add(b);
      }
      for (BigDecimal s : seeds) {
        for (RoundingMode m : List.of(RoundingMode.FLOOR, RoundingMode.CEILING)) {
          BigDecimal v = s.setScale(d.getScale(), m);
          for (BigDecimal x : List.of(v, v.add(ulp), v.subtract(ulp))) {
            if (x.abs().compareTo(max) <= 0) out.add(x);
          }
        }
      }
    } else if (t instanceof ArrowType.Utf8) {
      out.addAll(List.of("", "foo", "foobar", "bar", "baz", "qux", "123", "0123", "-5", "a", "FOO"));
      for (Object l : literals) if (l instanceof String s) {
        out.add(s);
        out.add(s + "x");
        out.add(s.replace("%", "").replace("_", "x"));
      }
    } else if (t instanceof ArrowType.Date) {
      List<Long> seeds = new ArrayList<>(List.of(0L, 1L, -1L, 19_723L));
      for (int k = 0; k < literals.size(); k++) {
        if (literalTypes.get(k) instanceof ArrowType.Date) seeds.add((Long) literals.get(k));
        if (literalTypes.get(k) instanceof ArrowType.Timestamp ts) {
          seeds.add(Math.floorDiv((Long) literals.get(k), 86_400L * dev.quiver.planner.kernel.Casts.unitsPerSecond(ts.getUnit())));
        }
        if (literalTypes.get(k) instanceof ArrowType.Int && literals.get(k) instanceof Long y && y > 1000 && y < 3000) {
          seeds.add(java.time.LocalDate.of((int) (long) y, 1, 1).toEpochDay());
        }
      }
      for (long s : seeds) for (long dlt = -1; dlt <= 1; dlt++) out.add(s + dlt);
    } else if (t instanceof ArrowType.Timestamp ts) {
      long per = dev.quiver.planner.kernel.Casts.unitsPerSecond(ts.getUnit());
      List<Long> seeds = new ArrayList<>(List.of(0L, per, -per, 1_704_067_200L * per));
      for (int k = 0; k < literals.size(); k++) {
        ArrowType lt = literalTypes.get(k);
        if (lt instanceof ArrowType.Timestamp lts) {
          long v = (Long) literals.get(k);
          long from = dev.quiver.planner.kernel.Casts.unitsPerSecond(lts.getUnit());
          if (from >= per) {
            seeds.add(Math.floorDiv(v, from / per));
            seeds.add(Math.floorDiv(v, from / per) + 1);
          } else {
            seeds.add(v * (per / from));
          }
        } else if (lt instanceof ArrowType.Date) {
          long day = (Long) literals.get(k);
          for (long dd = -1; dd <= 2; dd++) {
            seeds.add((day + dd) * 86_400L * per);
            seeds.add((day + dd) * 86_400L * per - 8L * 3600 * per); // a UTC+8 midnight
          }
        } else if (lt instanceof ArrowType.Int && literals.get(k) instanceof Long y && y > 1000 && y < 3000) {
          seeds.add(java.time.LocalDate.of((int) (long) y, 1, 1).toEpochDay() * 86_400L * per);
        }
      }
      for (long s : seeds) for (long dlt = -1; dlt <= 1; dlt++) out.add(s + dlt);
    } else {
      throw new IllegalArgumentException("no generator for " + SqlTypes.sqlName(t));
    }
    return out;
  }

  private static BigDecimal numeric(Object v, ArrowType t) {
    if (v instanceof Double d) return d.isNaN() || d.isInfinite() ? null : new BigDecimal(d);
    if (v instanceof BigDecimal b) return b;
    if (v instanceof Long l && t instanceof ArrowType.Int) return dev.quiver.planner.kernel.Casts.exact(l, t);
    if (v instanceof String s && s.matches("-?\\d{1,19}")) return new BigDecimal(s);
    return null;
  }
}
