package dev.quiver.bench;

import dev.quiver.sample.TpcdsQueries;
import dev.quiver.sample.TpcdsTables;
import java.nio.file.Path;
import java.util.List;

/**
 * The 99 TPC-DS queries (103 texts; {@code sample-data}'s {@code tpcds/qNN.sql}) on the 24 TPC-DS tables from
 * {@code io.trino.tpcds} at {@code --sf} (default 1; generated once into the cache, {@link TpcdsTables}) or on
 * {@code --data DIR} holding them as {@code <table>.parquet}: Quiver and DuckDB on the same files in the same run
 * ({@link QuerySuite}); a query Quiver cannot answer yet gets a row saying why. Writes {@code tpcds.md} to
 * {@code --out}.
 */
public final class TpcdsBenchmark {
  private TpcdsBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path data = null;
    double sf = 1;
    int runs = 5;
    int maxWarmUp = Timing.MAX_WARM_UP;
    Path out = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data" -> data = Path.of(args[++i]);
        case "--sf" -> sf = Double.parseDouble(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--max-warm-up" -> maxWarmUp = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (data == null) {
      System.out.println("TPC-DS SF " + sf + " (generated on first use into the cache) ...");
      long t0 = System.nanoTime();
      data = TpcdsTables.ensure(sf);
      System.out.printf("data in %s (%.1f s)%n", data, (System.nanoTime() - t0) / 1e9);
    }
    List<String> tables = TpcdsTables.tables().stream().map(t -> t.getName()).toList();
    List<QuerySuite.Query> queries = TpcdsQueries.names().stream()
        .map(n -> new QuerySuite.Query(n, TpcdsQueries.sql(n))).toList();
    QuerySuite.run(new QuerySuite.Spec("TPC-DS on Quiver and DuckDB", "24 tables from io.trino.tpcds "
        + TpcdsTables.GENERATOR_VERSION, data, tables, queries), runs, maxWarmUp, out.resolve("tpcds.md"));
  }
}
