package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * median, percentile_cont and percentile_disc against a brute-force evaluation of their definitions (sorted
 * lists per group; the continuous percentile interpolated in exact decimal arithmetic, the discrete one the first
 * value whose cumulative share reaches the fraction, compared exactly) over random data with NULLs, duplicates and
 * groups that have no value, for 1 to 1000 groups and without GROUP BY, with the scan's parallel pipelines on and
 * off. approx_count_distinct within 5% of the exact count on 100,000 distinct values (and exact on small groups).
 */
class AnalyticAggregatesTest {
  @TempDir
  static Path dir;
  static QueryEngine on;
  static QueryEngine off;
  static final int ROWS = 6000;
  /** Rows of the table r: g (0..999), x DOUBLE, i BIGINT, s VARCHAR, each nullable. */
  static final List<Object[]> DATA = new ArrayList<>();

  static final MessageType R = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("g")
      .optional(PrimitiveTypeName.DOUBLE).named("x")
      .optional(PrimitiveTypeName.INT64).named("i")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .named("r");
  static final MessageType H = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("v")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .required(PrimitiveTypeName.INT64).named("few")
      .named("h");

  @BeforeAll
  static void write() throws IOException {
    Random r = new Random(27);
    SimpleGroupFactory f = new SimpleGroupFactory(R);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("r.parquet")))
        .withType(R).withRowGroupRowCountLimit(500).withPageRowCountLimit(100).build()) {
      for (int n = 0; n < ROWS; n++) {
        long g = r.nextInt(1000);
        boolean noValues = g >= 990; // groups 990..999 have no x, i or s at all
        Double x = noValues || r.nextInt(8) == 0 ? null : r.nextBoolean() ? r.nextInt(40) / 4.0 : r.nextGaussian() * 1e3;
        Long i = noValues || r.nextInt(8) == 0 ? null : (long) r.nextInt(200) - 100;
        String s = noValues || r.nextInt(8) == 0 ? null : "v" + r.nextInt(300);
        DATA.add(new Object[] {g, x, i, s});
        Group row = f.newGroup();
        row.append("g", g);
        if (x != null) row.append("x", x);
        if (i != null) row.append("i", i);
        if (s != null) row.append("s", s);
        w.write(row);
      }
    }
    SimpleGroupFactory h = new SimpleGroupFactory(H);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("h.parquet")))
        .withType(H).withRowGroupRowCountLimit(20_000).build()) {
      for (long n = 0; n < 100_000; n++) {
        Group row = h.newGroup();
        row.append("v", n * 1_000_003L);
        row.append("s", "key-" + n);
        row.append("few", n % 500);
        w.write(row);
      }
    }
    on = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT.withBatchRows(700));
    off = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT.withBatchRows(700).withParallelPipelines(false));
  }

  @AfterAll
  static void close() {
    on = null;
    off = null;
  }

  static List<List<Object>> run(QueryEngine engine, String sql) {
    try (BufferAllocator allocator = new RootAllocator()) {
      return TestTables.run(engine, allocator, sql);
    }
  }

  /** percentile_cont(f) over {@code sorted} by its definition, in exact decimal arithmetic; null over none. */
  static BigDecimal cont(List<Double> sorted, double f) {
    int n = sorted.size();
    if (n == 0) return null;
    BigDecimal rn = BigDecimal.valueOf(n - 1).multiply(new BigDecimal(f));
    int lo = rn.intValue(); // floor: rn >= 0
    int hi = rn.compareTo(BigDecimal.valueOf(lo)) == 0 ? lo : lo + 1;
    BigDecimal low = new BigDecimal(sorted.get(lo));
    if (lo == hi) return low;
    return low.add(new BigDecimal(sorted.get(hi)).subtract(low).multiply(rn.subtract(BigDecimal.valueOf(lo))));
  }

  /** percentile_disc(f): the first value of {@code sorted} whose cumulative share (k + 1) / n reaches f. */
  static <T> T disc(List<T> sorted, BigDecimal f) {
    int n = sorted.size();
    for (int k = 0; k < n; k++) {
      if (BigDecimal.valueOf(k + 1).compareTo(f.multiply(BigDecimal.valueOf(n))) >= 0) return sorted.get(k);
    }
    return null; // n == 0
  }

  static void assertClose(Object actual, BigDecimal expected, String what) {
    if (expected == null) {
      assertThat(actual).as(what).isNull();
      return;
    }
    assertThat(actual).as(what).isInstanceOf(Double.class);
    double e = expected.doubleValue();
    assertThat((Double) actual).as(what).isCloseTo(e, within(1e-12 * Math.max(1, Math.abs(e))));
  }

  @Test
  void percentilesAnswerTheirDefinitionsPerGroupForManyGroupCountsInEveryPlan() {
    String aggregates = "median(x), percentile_cont(0.1) WITHIN GROUP (ORDER BY x), "
        + "percentile_cont(0.9) WITHIN GROUP (ORDER BY x DESC), quantile_cont(i, 0.33), "
        + "percentile_disc(0.37) WITHIN GROUP (ORDER BY i), percentile_disc(0.5) WITHIN GROUP (ORDER BY s DESC), "
        + "quantile_disc(x, 0.28), percentile_disc(1) WITHIN GROUP (ORDER BY x), count(*)";
    for (int groups : new int[] {0, 1, 7, 100, 1000}) {
      String sql = groups == 0 ? "SELECT 0 AS k, " + aggregates + " FROM r"
          : "SELECT g % " + groups + " AS k, " + aggregates + " FROM r GROUP BY g % " + groups;
      Map<Long, List<Object[]>> byGroup = new HashMap<>();
      for (Object[] row : DATA) byGroup.computeIfAbsent(groups == 0 ? 0 : (Long) row[0] % groups, k -> new ArrayList<>()).add(row);
      for (QueryEngine engine : List.of(on, off)) {
        List<List<Object>> got = run(engine, sql);
        assertThat(got).as(sql).hasSize(byGroup.size());
        Set<Long> seen = new HashSet<>();
        for (List<Object> row : got) {
          long k = ((Number) row.get(0)).longValue();
          assertThat(seen.add(k)).isTrue();
          List<Object[]> rows = byGroup.get(k);
          List<Double> xs = new ArrayList<>();
          List<Double> is = new ArrayList<>();
          List<String> ss = new ArrayList<>();
          for (Object[] r : rows) {
            if (r[1] != null) xs.add((Double) r[1]);
            if (r[2] != null) is.add(((Long) r[2]).doubleValue());
            if (r[3] != null) ss.add((String) r[3]);
          }
          xs.sort(Comparator.naturalOrder());
          is.sort(Comparator.naturalOrder());
          ss.sort(Comparator.reverseOrder()); // ASCII: the byte order is the string order
          List<Double> xsDesc = new ArrayList<>(xs);
          xsDesc.sort(Comparator.reverseOrder());
          String at = sql + " group " + k;
          assertClose(row.get(1), cont(xs, 0.5), at + " median");
          assertClose(row.get(2), cont(xs, 0.1), at + " percentile_cont(0.1)");
          assertClose(row.get(3), cont(xsDesc, 0.9), at + " percentile_cont(0.9) DESC");
          assertClose(row.get(4), cont(is, 0.33), at + " quantile_cont(i, 0.33)");
          Double iDisc = disc(is, new BigDecimal("0.37"));
          assertThat(row.get(5)).as(at + " percentile_disc(0.37)").isEqualTo(iDisc == null ? null : iDisc.longValue());
          String sDisc = disc(ss, new BigDecimal("0.5"));
          assertThat(row.get(6) == null ? null : row.get(6).toString()).as(at + " percentile_disc(0.5) DESC").isEqualTo(sDisc);
          assertThat(row.get(7)).as(at + " quantile_disc(x, 0.28)").isEqualTo(disc(xs, new BigDecimal("0.28")));
          assertThat(row.get(8)).as(at + " percentile_disc(1)").isEqualTo(xs.isEmpty() ? null : xs.get(xs.size() - 1));
          assertThat(row.get(9)).isEqualTo((long) rows.size());
        }
      }
    }
  }

  @Test
  void percentilesStaySinglePhaseBesideSplittableAggregates() {
    String sql = "EXPLAIN SELECT g % 10, count(*), min(i), median(x), corr(x, i) FROM r GROUP BY g % 10";
    String plan = String.join("\n", run(on, sql).stream().map(r -> r.get(0).toString()).toList());
    assertThat(plan).contains("AggregateExec: groupBy=").doesNotContain("mode=partial");
    String split = String.join("\n", run(on, "EXPLAIN SELECT g % 10, count(*), min(i) FROM r GROUP BY g % 10").stream()
        .map(r -> r.get(0).toString()).toList());
    assertThat(split).contains("mode=partial"); // the same without them is split across the scan's tasks
    String bools = String.join("\n", run(on, "EXPLAIN SELECT g % 10, bool_and(x > 0), bool_or(i > 0), every(s > 'v5') "
        + "FROM r GROUP BY g % 10").stream().map(r -> r.get(0).toString()).toList());
    assertThat(bools).contains("mode=partial"); // bool_and and bool_or merge by AND and OR
  }

  @Test
  void theValuesAPercentileKeepsAreChargedToTheQuerysMemory() {
    String sql = "SELECT median(x), percentile_disc(0.5) WITHIN GROUP (ORDER BY s), approx_count_distinct(i) FROM r";
    List<List<Object>> expected = run(off, sql);
    boolean refused = false;
    for (long limit : new long[] {16 << 10, 64 << 10, 256 << 10, 4 << 20}) {
      try (BufferAllocator allocator = new RootAllocator(limit)) { // closing it fails on a leak
        assertThat(TestTables.run(on, allocator, sql)).isEqualTo(expected);
      } catch (dev.quiver.common.QuiverException e) {
        assertThat(e.code()).isEqualTo(dev.quiver.common.ErrorCode.RESOURCE_EXHAUSTED);
        refused |= e.getMessage().startsWith("the hash aggregation needs more memory");
      } catch (org.apache.arrow.memory.OutOfMemoryException e) {
        // an Arrow allocation refused outright: also an answer, as long as nothing leaked
      }
    }
    assertThat(refused).as("a small limit refuses the values the percentiles keep").isTrue();
  }

  @Test
  void approxCountDistinctIsWithinFivePercentOnAHundredThousandValuesAndExactOnSmallGroups() {
    for (QueryEngine engine : List.of(on, off)) {
      List<Object> row = run(engine, "SELECT approx_count_distinct(v), approx_count_distinct(s), "
          + "approx_count_distinct(few), approx_count_distinct(v % 1000), count(DISTINCT v) FROM h").get(0);
      assertThat(row.get(4)).isEqualTo(100_000L);
      assertThat((Long) row.get(0)).isBetween(95_000L, 105_000L);
      assertThat((Long) row.get(1)).isBetween(95_000L, 105_000L);
      assertThat(row.get(2)).isEqualTo(500L);
      assertThat((Long) row.get(3)).isBetween(980L, 1020L); // 1000 distinct: past the exact phase, estimated
      for (List<Object> g : run(engine, "SELECT v % 4, approx_count_distinct(v), approx_count_distinct(few) FROM h "
          + "GROUP BY v % 4")) {
        assertThat((Long) g.get(1)).as("group " + g.get(0)).isBetween(23_750L, 26_250L);
        assertThat(g.get(2)).as("group " + g.get(0)).isEqualTo(125L); // n % 500 where n % 4 is the group's
      }
    }
  }

  @Test
  void twoArgumentStatisticsOverAScanMatchAnExactTwoPassComputation() {
    // corr and regr_slope over the rows where both x and i are non-NULL, by exact sums of (x - mean)(i - mean)
    List<double[]> pairs = new ArrayList<>();
    for (Object[] r : DATA) if (r[1] != null && r[2] != null) pairs.add(new double[] {(Double) r[1], ((Long) r[2]).doubleValue()});
    MathContext mc = MathContext.DECIMAL128;
    BigDecimal n = BigDecimal.valueOf(pairs.size());
    BigDecimal sx = BigDecimal.ZERO;
    BigDecimal sy = BigDecimal.ZERO;
    for (double[] p : pairs) {
      sx = sx.add(new BigDecimal(p[0]));
      sy = sy.add(new BigDecimal(p[1]));
    }
    BigDecimal mx = sx.divide(n, mc);
    BigDecimal my = sy.divide(n, mc);
    BigDecimal sxx = BigDecimal.ZERO;
    BigDecimal syy = BigDecimal.ZERO;
    BigDecimal sxy = BigDecimal.ZERO;
    for (double[] p : pairs) {
      BigDecimal dx = new BigDecimal(p[0]).subtract(mx);
      BigDecimal dy = new BigDecimal(p[1]).subtract(my);
      sxx = sxx.add(dx.multiply(dx));
      syy = syy.add(dy.multiply(dy));
      sxy = sxy.add(dx.multiply(dy));
    }
    double corr = sxy.doubleValue() / Math.sqrt(sxx.doubleValue() * syy.doubleValue());
    for (QueryEngine engine : List.of(on, off)) {
      List<Object> row = run(engine, "SELECT regr_count(i, x), corr(i, x), regr_slope(i, x), regr_sxx(i, x), "
          + "covar_samp(x, i), regr_avgx(i, x) FROM r").get(0);
      assertThat(row.get(0)).isEqualTo((long) pairs.size());
      assertThat((Double) row.get(1)).isCloseTo(corr, within(1e-12));
      assertThat((Double) row.get(2)).isCloseTo(sxy.divide(sxx, mc).doubleValue(), within(1e-12));
      assertThat((Double) row.get(3)).isCloseTo(sxx.doubleValue(), within(1e-9 * sxx.doubleValue()));
      assertThat((Double) row.get(4)).isCloseTo(sxy.divide(n.subtract(BigDecimal.ONE), mc).doubleValue(),
          within(1e-9 * Math.abs(sxy.doubleValue() / pairs.size())));
      assertThat((Double) row.get(5)).isCloseTo(mx.doubleValue(), within(1e-9));
    }
  }
}
