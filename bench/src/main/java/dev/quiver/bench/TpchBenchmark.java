package dev.quiver.bench;

import dev.quiver.sample.SampleData;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The 22 TPC-H queries (validation parameters; {@code sample-data}'s {@code tpch/qNN.sql}) on the
 * sample data (SF 0.1) or on {@code --data DIR} holding the eight tables as {@code <table>.parquet}:
 * Quiver and DuckDB on the same files in the same run ({@link QuerySuite}). Writes {@code tpch.md} to {@code --out}.
 */
public final class TpchBenchmark {
  static final int ROW_GROUP_ROWS = 122_880;
  static final List<String> TABLES = List.of("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region");

  private TpchBenchmark() {}

  public static void main(String[] args) throws Exception {
    QuerySuite.Options o = QuerySuite.Options.parse(args, 0);
    Path data = o.data();
    double sf = o.sf();
    if (data == null) data = sf > 0 ? generate(sf) : SampleData.ensure();
    List<QuerySuite.Query> queries = new ArrayList<>();
    for (int q = 1; q <= 22; q++) {
      String name = String.format(Locale.ROOT, "q%02d", q);
      try (InputStream in = TpchBenchmark.class.getResourceAsStream("/tpch/" + name + ".sql")) {
        queries.add(new QuerySuite.Query(name, new String(in.readAllBytes(), StandardCharsets.UTF_8)));
      }
    }
    QuerySuite.run(new QuerySuite.Spec("TPC-H on Quiver and DuckDB", "eight tables", data, TABLES, o.select(queries)), o.runs(),
        o.maxWarmUp(), o.out().resolve("tpch.md"));
  }

  /**
   * The eight tables at {@code sf} under java.io.tmpdir ({@code quiver-tpch-sf<sf>}), generated if missing:
   * generator ({@code dbgen}) order, {@value #ROW_GROUP_ROWS}-row row groups (DuckDB's default), SNAPPY.
   */
  static Path generate(double sf) throws java.io.IOException {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "quiver-tpch-sf" + sf);
    if (Files.exists(dir.resolve("_COMPLETE"))) return dir;
    Files.createDirectories(dir);
    System.out.println("writing TPC-H SF " + sf + " into " + dir + " …");
    dev.quiver.sample.Lineitem.write(dir.resolve("lineitem.parquet"), sf, dev.quiver.sample.Lineitem.Order.NATURAL,
        ROW_GROUP_ROWS, b -> b);
    for (dev.quiver.sample.TpchTables.Table<?> t : dev.quiver.sample.TpchTables.ALL) {
      t.write(dir.resolve(t.name() + ".parquet"), sf, ROW_GROUP_ROWS, b -> b);
    }
    Files.writeString(dir.resolve("_COMPLETE"), "");
    return dir;
  }
}
