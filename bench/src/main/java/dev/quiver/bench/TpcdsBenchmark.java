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
    QuerySuite.Options o = QuerySuite.Options.parse(args, 1);
    Path data = o.data();
    double sf = o.sf();
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
        + TpcdsTables.GENERATOR_VERSION, data, tables, o.select(queries)), o.runs(), o.maxWarmUp(), o.out().resolve("tpcds.md"));
  }
}
