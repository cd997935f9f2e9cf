package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.kernel.Kernels;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
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
 * The window's sort (a radix sort key by key for integer and double keys) against a brute force: row_number() over
 * a partitioning with NULL keys, ordered by a double with NaN, -0.0, 0.0 and the infinities, and an integer with the
 * extremes, both with NULLs, in every direction and NULL placement, the id last so the order is total. Expected
 * numbers come from a Java comparator over the rows as written. Over 600,000 rows without PARTITION BY the sort is
 * split into stretches sorted on several threads and merged: the same numbers, ties in input order.
 */
class WindowSortTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  static final List<Object[]> ROWS = new ArrayList<>(); // p, d, k, id
  /** 600,000 rows: a window without PARTITION BY over them is one bucket whose sort is split across threads. */
  static final List<Object[]> BIG = new ArrayList<>();

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.INT32).named("p")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .optional(PrimitiveTypeName.INT64).named("k")
      .required(PrimitiveTypeName.INT32).named("id")
      .named("w");

  @BeforeAll
  static void write() throws IOException {
    write("w", 9_000, 2_000, ROWS);
    write("big", 600_000, 50_000, BIG);
    engine = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT.withBatchRows(700));
  }

  /** Writes {@code count} rows of the shape above as table {@code table}, and into {@code rows}. */
  private static void write(String table, int count, int rowGroup, List<Object[]> rows) throws IOException {
    Files.createDirectories(dir.resolve(table));
    Random r = new Random(11);
    double[] doubles = {0.0, -0.0, Double.NaN, 1.5, -2.25, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE, -Double.MAX_VALUE};
    long[] longs = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1};
    SimpleGroupFactory g = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve(table + "/a.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(rowGroup).build()) {
      for (int i = 0; i < count; i++) {
        Integer p = r.nextInt(15) == 0 ? null : r.nextInt(6);
        Double d = r.nextInt(12) == 0 ? null : r.nextInt(3) == 0 ? doubles[r.nextInt(doubles.length)] : r.nextInt(20) / 4.0;
        Long k = r.nextInt(12) == 0 ? null : r.nextInt(4) == 0 ? longs[r.nextInt(longs.length)] : (long) r.nextInt(9) - 4;
        Group row = g.newGroup();
        if (p != null) row.append("p", p);
        if (d != null) row.append("d", d);
        if (k != null) row.append("k", k);
        row.append("id", i);
        w.write(row);
        rows.add(new Object[] {p, d, k, i});
      }
    }
  }

  private static Comparator<Object[]> key(int column, boolean asc, boolean nullsFirst) {
    return (x, y) -> {
      Object a = x[column];
      Object b = y[column];
      if (a == null || b == null) return a == null && b == null ? 0 : (a == null) == nullsFirst ? -1 : 1;
      int c = a instanceof Double da ? Kernels.compareDouble(da, (Double) b) : Long.compare((Long) a, (Long) b);
      return asc ? c : -c;
    };
  }

  @Test
  void rowNumbersFollowTheOrderOfABruteForceSort() {
    for (boolean dAsc : new boolean[] {true, false}) {
      for (boolean dNullsFirst : new boolean[] {true, false}) {
        for (boolean kAsc : new boolean[] {true, false}) {
          boolean kNullsFirst = dAsc ^ kAsc;
          String order = "d " + (dAsc ? "ASC" : "DESC") + " NULLS " + (dNullsFirst ? "FIRST" : "LAST") + ", k "
              + (kAsc ? "ASC" : "DESC") + " NULLS " + (kNullsFirst ? "FIRST" : "LAST") + ", id";
          String sql = "SELECT id, row_number() OVER (PARTITION BY p ORDER BY " + order + ") AS rn FROM w";
          Comparator<Object[]> cmp = key(1, dAsc, dNullsFirst).thenComparing(key(2, kAsc, kNullsFirst))
              .thenComparing(x -> (Integer) x[3]);
          Map<Object, List<Object[]>> partitions = new LinkedHashMap<>();
          for (Object[] row : ROWS) partitions.computeIfAbsent(String.valueOf(row[0]), x -> new ArrayList<>()).add(row);
          Map<Long, Long> expected = new HashMap<>();
          for (List<Object[]> part : partitions.values()) {
            part.sort(cmp);
            for (int j = 0; j < part.size(); j++) expected.put((long) (Integer) part.get(j)[3], (long) j + 1);
          }
          Map<Long, Long> got = new HashMap<>();
          for (List<Object> row : TestTables.run(engine, sql, QuerySettings.DEFAULT)) {
            got.put(((Number) row.get(0)).longValue(), ((Number) row.get(1)).longValue());
          }
          assertThat(got).as(sql).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void aLargeSortSplitAcrossThreadsKeepsTheOrderAndTies() {
    for (boolean dAsc : new boolean[] {true, false}) {
      // no id: rows tied on both keys are numbered in input order, across the stretches' merge too
      String order = "d " + (dAsc ? "ASC NULLS FIRST" : "DESC NULLS LAST") + ", k DESC NULLS FIRST";
      String sql = "SELECT id, row_number() OVER (ORDER BY " + order + ") AS rn FROM big";
      List<Object[]> sorted = new ArrayList<>(BIG); // in input order: List.sort is stable
      sorted.sort(key(1, dAsc, dAsc).thenComparing(key(2, false, true)));
      Map<Long, Long> expected = new HashMap<>();
      for (int j = 0; j < sorted.size(); j++) expected.put((long) (Integer) sorted.get(j)[3], (long) j + 1);
      Map<Long, Long> got = new HashMap<>();
      for (List<Object> row : TestTables.run(engine, sql, QuerySettings.DEFAULT)) {
        got.put(((Number) row.get(0)).longValue(), ((Number) row.get(1)).longValue());
      }
      assertThat(got).as(sql).isEqualTo(expected);
    }
  }
}
