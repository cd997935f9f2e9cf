package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * var/stddev over sliding ROWS frames (a segment tree per partition) against a brute force in exact decimal
 * arithmetic over each row's frame: integer and double arguments with NULLs and large offsets from zero (where a
 * subtracting sliding sum would lose digits), frames before, around and after the row, empty at the partition's ends,
 * and one-value frames (NULL for the sample functions).
 */
class WindowVarianceTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  static final List<Object[]> ROWS = new ArrayList<>(); // p, v, d, id

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.INT32).named("p")
      .optional(PrimitiveTypeName.INT64).named("v")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .required(PrimitiveTypeName.INT32).named("id")
      .named("w");

  @BeforeAll
  static void write() throws IOException {
    Files.createDirectories(dir.resolve("w"));
    Random r = new Random(5);
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("w/a.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(1_500).build()) {
      for (int i = 0; i < 6_000; i++) {
        Integer p = r.nextInt(20) == 0 ? null : r.nextInt(7);
        Long v = r.nextInt(8) == 0 ? null : (long) r.nextInt(1_000) - 500 + (r.nextBoolean() ? 1_000_000_000L : 0);
        Double d = r.nextInt(8) == 0 ? null : 1e8 + r.nextGaussian() * 3;
        Group row = g.newGroup();
        if (p != null) row.append("p", p);
        if (v != null) row.append("v", v);
        if (d != null) row.append("d", d);
        row.append("id", i);
        w.write(row);
        ROWS.add(new Object[] {p, v, d, i});
      }
    }
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT.withBatchRows(500));
  }

  @Test
  void slidingVariancesEqualABruteForce() {
    String[][] frames = {
        {"5 PRECEDING", "2 FOLLOWING", "-5", "2"},
        {"1 PRECEDING", "CURRENT ROW", "-1", "0"},
        {"3 FOLLOWING", "40 FOLLOWING", "3", "40"},
        {"30 PRECEDING", "10 PRECEDING", "-30", "-10"}};
    String[] funcs = {"var_samp", "var_pop", "stddev_samp", "stddev_pop"};
    Map<Object, List<Object[]>> partitions = new LinkedHashMap<>();
    for (Object[] row : ROWS) partitions.computeIfAbsent(String.valueOf(row[0]), x -> new ArrayList<>()).add(row);
    for (String[] frame : frames) {
      for (String func : funcs) {
        for (int arg : new int[] {1, 2}) {
          String col = arg == 1 ? "v" : "d";
          String sql = "SELECT id, " + func + "(" + col + ") OVER (PARTITION BY p ORDER BY id ROWS BETWEEN " + frame[0]
              + " AND " + frame[1] + ") AS x FROM w";
          Map<Integer, Double> expected = new HashMap<>();
          for (List<Object[]> part : partitions.values()) { // rows in id order already
            for (int j = 0; j < part.size(); j++) {
              int lo = Math.max(0, j + Integer.parseInt(frame[2]));
              int hi = Math.min(part.size() - 1, j + Integer.parseInt(frame[3]));
              List<BigDecimal> xs = new ArrayList<>();
              for (int k = lo; k <= hi; k++) {
                Object x = part.get(k)[arg];
                if (x != null) xs.add(x instanceof Long l ? BigDecimal.valueOf(l) : new BigDecimal((Double) x));
              }
              expected.put((Integer) part.get(j)[3], exact(func, xs));
            }
          }
          List<List<Object>> rows = TestTables.run(engine, sql, QuerySettings.DEFAULT);
          assertThat(rows).hasSize(ROWS.size());
          for (List<Object> row : rows) {
            int id = ((Number) row.get(0)).intValue();
            Double want = expected.get(id);
            Double got = (Double) row.get(1);
            if (want == null) {
              assertThat(got).as("%s id %d", sql, id).isNull();
            } else {
              assertThat(got).as("%s id %d", sql, id).isNotNull();
              assertThat(Math.abs(got - want)).as("%s id %d: %s vs %s", sql, id, got, want)
                  .isLessThanOrEqualTo(1e-6 * Math.max(1, Math.abs(want)));
            }
          }
        }
      }
    }
  }

  private static Double exact(String func, List<BigDecimal> xs) {
    boolean sample = func.endsWith("samp");
    int n = xs.size();
    if (n == 0 || sample && n == 1) return null;
    MathContext mc = MathContext.DECIMAL128;
    BigDecimal sum = BigDecimal.ZERO;
    for (BigDecimal x : xs) sum = sum.add(x);
    BigDecimal mean = sum.divide(BigDecimal.valueOf(n), mc);
    BigDecimal ss = BigDecimal.ZERO;
    for (BigDecimal x : xs) ss = ss.add(x.subtract(mean).pow(2), mc);
    double var = ss.divide(BigDecimal.valueOf(sample ? n - 1 : n), mc).doubleValue();
    return func.startsWith("stddev") ? Math.sqrt(var) : var;
  }
}
