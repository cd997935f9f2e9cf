package dev.quiver.planner;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Small tables for planner tests. {@code t}: one row per combination of interesting values, every
 * column nullable. {@code bools}: the nine pairs of TRUE / FALSE / NULL.
 */
public final class TestTables {
  static final MessageType T = Types.buildMessage()
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named("i8")
      .optional(PrimitiveTypeName.INT32).named("i32")
      .optional(PrimitiveTypeName.INT64).named("i64")
      .optional(PrimitiveTypeName.DOUBLE).named("f64")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 10)).named("dec")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("d")
      .optional(PrimitiveTypeName.BOOLEAN).named("b")
      .named("t");
  static final Integer[] I32 = {null, Integer.MIN_VALUE, -1, 0, 1, 5, 7, Integer.MAX_VALUE};
  static final Double[] F64 = {null, Double.NaN, -0.0, 0.0, 1.5, -1.5, Double.POSITIVE_INFINITY};

  private TestTables() {}

  /** Rows of {@code t}: (i32, f64) over the cross product of {@link #I32} and {@link #F64}. */
  static List<Object[]> rows() {
    List<Object[]> out = new ArrayList<>();
    int n = 0;
    for (Integer i : I32) {
      for (Double f : F64) {
        Integer i8 = i == null ? null : Math.floorMod(i, 200) - 100;
        Long i64 = i == null ? null : (long) i * 3;
        Long dec = f == null || f.isNaN() || f.isInfinite() ? null : Math.round(f * 100) + (i == null ? 0 : i % 1000);
        String s = n % 4 == 0 ? null : "s" + (n % 5);
        Integer d = n % 6 == 0 ? null : 18_000 + n;
        Boolean b = n % 3 == 0 ? null : n % 3 == 1;
        out.add(new Object[] {i8, i, i64, f, dec, s, d, b});
        n++;
      }
    }
    return out;
  }

  public static Catalog create(Path dir) throws IOException {
    SimpleGroupFactory f = new SimpleGroupFactory(T);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t.parquet")))
        .withType(T).withRowGroupRowCountLimit(8).build()) {
      for (Object[] r : rows()) {
        Group g = f.newGroup();
        for (int c = 0; c < r.length; c++) {
          Object v = r[c];
          if (v == null) continue;
          String name = T.getFieldName(c);
          if (v instanceof Integer x) g.append(name, x);
          else if (v instanceof Long x) g.append(name, x);
          else if (v instanceof Double x) g.append(name, x);
          else if (v instanceof Boolean x) g.append(name, x);
          else g.append(name, (String) v);
        }
        w.write(g);
      }
    }
    MessageType bools = Types.buildMessage().optional(PrimitiveTypeName.BOOLEAN).named("x")
        .optional(PrimitiveTypeName.BOOLEAN).named("y").named("bools");
    SimpleGroupFactory bf = new SimpleGroupFactory(bools);
    Boolean[] values = {Boolean.TRUE, Boolean.FALSE, null};
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("bools.parquet")))
        .withType(bools).build()) {
      for (Boolean x : values) {
        for (Boolean y : values) {
          Group g = bf.newGroup();
          if (x != null) g.append("x", x);
          if (y != null) g.append("y", y);
          w.write(g);
        }
      }
    }
    return Catalog.open(dir.toString());
  }

  /**
   * Writes small TPC-H tables into {@code dir} (scale factor 0.001: nation 25 rows, region 5, supplier 10,
   * customer 150, orders 1,500), in row groups of 100 rows, with the sample data's schemas, for tests that
   * read like the it-tests' queries over the sample data.
   */
  public static void writeTpch(Path dir) throws IOException {
    for (var table : java.util.List.of(dev.quiver.sample.TpchTables.NATION, dev.quiver.sample.TpchTables.REGION,
        dev.quiver.sample.TpchTables.SUPPLIER, dev.quiver.sample.TpchTables.CUSTOMER,
        dev.quiver.sample.TpchTables.ORDERS)) {
      table.write(dir.resolve(table.name() + ".parquet"), 0.001, 100, b -> b);
    }
  }

  /** Runs {@code sql} and returns its rows as {@code getObject} values. */
  static List<List<Object>> run(QueryEngine engine, BufferAllocator allocator, String sql) {
    return rows(engine, engine.prepare(sql, allocator), allocator);
  }

  /** Runs {@code sql} with {@code settings} under an allocator of its own, closed after: a leak fails the test. */
  static List<List<Object>> run(QueryEngine engine, String sql, QuerySettings settings) {
    try (BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator(256 << 20)) {
      return rows(engine, engine.prepare(sql, allocator, settings), allocator);
    }
  }

  /** The rows of {@code q}, executed under {@code allocator}, as {@code getObject} values. */
  private static List<List<Object>> rows(QueryEngine engine, PreparedQuery q, BufferAllocator allocator) {
    List<List<Object>> out = new ArrayList<>();
    try (QueryExecution ex = engine.execute(q, allocator)) {
      VectorSchemaRoot next;
      while ((next = ex.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (var v : b.getFieldVectors()) row.add(v.getObject(i));
            out.add(row);
          }
        }
      }
    }
    return out;
  }

  /** The text of {@code EXPLAIN ANALYZE sql}. */
  static String explain(QueryEngine engine, String sql, QuerySettings settings) {
    return String.join("\n", run(engine, "EXPLAIN ANALYZE " + sql, settings).stream()
        .map(r -> String.valueOf(r.get(0))).toList());
  }

  /** The sum of {@code name=N} over a plan's lines (its scans'). */
  static long metric(String plan, String name) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b" + name + "=(\\d+)").matcher(plan);
    long sum = 0;
    while (m.find()) sum += Long.parseLong(m.group(1));
    return sum;
  }
}
