package dev.quiver.bench;

import dev.quiver.sample.RowWriter;
import dev.quiver.server.QuiverServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * H2O.ai's db-benchmark group-by task: its ten queries (the SQL of its DuckDB solution) over its G1 data, generated
 * here as its R generator does ({@code groupby-datagen.R}: {@code --rows} rows, default 10 M, K = 100, no NAs,
 * unsorted): {@code id1}/{@code id2} one of K strings {@code id001…}, {@code id3} one of rows/K strings
 * {@code id0000000001…}, {@code id4}/{@code id5} an integer in 1..K, {@code id6} in 1..rows/K, {@code v1} in 1..5,
 * {@code v2} in 1..15, {@code v3} uniform in [0, 100) rounded to 6 decimals. Written once into java.io.tmpdir as
 * {@code x.parquet} (122,880-row row groups, SNAPPY), then Quiver and DuckDB on it in the same run
 * ({@link QuerySuite}), Quiver at its default {@code --query-memory} ({@value QuiverServer#DEFAULT_QUERY_MEMORY}
 * bytes), as the issue asks. Writes {@code h2o.md} to {@code --out}.
 */
public final class H2oBenchmark {
  static final int K = 100;

  static final List<QuerySuite.Query> QUERIES = List.of(
      new QuerySuite.Query("q1", "SELECT id1, sum(v1) AS v1 FROM x GROUP BY id1"),
      new QuerySuite.Query("q2", "SELECT id1, id2, sum(v1) AS v1 FROM x GROUP BY id1, id2"),
      new QuerySuite.Query("q3", "SELECT id3, sum(v1) AS v1, avg(v3) AS v3 FROM x GROUP BY id3"),
      new QuerySuite.Query("q4", "SELECT id4, avg(v1) AS v1, avg(v2) AS v2, avg(v3) AS v3 FROM x GROUP BY id4"),
      new QuerySuite.Query("q5", "SELECT id6, sum(v1) AS v1, sum(v2) AS v2, sum(v3) AS v3 FROM x GROUP BY id6"),
      new QuerySuite.Query("q6", "SELECT id4, id5, quantile_cont(v3, 0.5) AS median_v3, stddev(v3) AS sd_v3 FROM x "
          + "GROUP BY id4, id5"),
      new QuerySuite.Query("q7", "SELECT id3, max(v1) - min(v2) AS range_v1_v2 FROM x GROUP BY id3"),
      new QuerySuite.Query("q8", "SELECT id6, v3 AS largest2_v3 FROM (SELECT id6, v3, row_number() OVER (PARTITION BY "
          + "id6 ORDER BY v3 DESC) AS order_v3 FROM x WHERE v3 IS NOT NULL) sub_query WHERE order_v3 <= 2"),
      new QuerySuite.Query("q9", "SELECT id2, id4, pow(corr(v1, v2), 2) AS r2_v1_v2 FROM x GROUP BY id2, id4"),
      new QuerySuite.Query("q10", "SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x "
          + "GROUP BY id1, id2, id3, id4, id5, id6"));

  private H2oBenchmark() {}

  public static void main(String[] args) throws Exception {
    long rows = 10_000_000;
    List<String> rest = new java.util.ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--rows")) rows = Long.parseLong(args[++i]);
      else rest.add(args[i]);
    }
    QuerySuite.Options o = QuerySuite.Options.parse(rest.toArray(String[]::new), 0);
    Path data = o.data() != null ? o.data() : generate(rows);
    QuerySuite.run(new QuerySuite.Spec("H2O.ai db-benchmark group-by on Quiver and DuckDB", "G1, " + rows
        + " rows, K = " + K + ", no NAs; Quiver at the default --query-memory", data, List.of("x"),
        o.select(QUERIES), QuiverServer.DEFAULT_QUERY_MEMORY, true), o.runs(), o.maxWarmUp(), o.out().resolve("h2o.md"));
  }

  /** The G1 table of {@code rows} rows under java.io.tmpdir ({@code quiver-h2o-<rows>/x.parquet}), generated if missing. */
  static Path generate(long rows) throws IOException {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "quiver-h2o-" + rows);
    if (Files.exists(dir.resolve("_COMPLETE"))) return dir;
    Files.createDirectories(dir);
    Path file = dir.resolve("x.parquet");
    Files.deleteIfExists(file);
    System.out.println("writing H2O G1 (" + rows + " rows) into " + dir + " …");
    LogicalTypeAnnotation string = LogicalTypeAnnotation.stringType();
    MessageType schema = Types.buildMessage()
        .required(PrimitiveTypeName.BINARY).as(string).named("id1")
        .required(PrimitiveTypeName.BINARY).as(string).named("id2")
        .required(PrimitiveTypeName.BINARY).as(string).named("id3")
        .required(PrimitiveTypeName.INT32).named("id4")
        .required(PrimitiveTypeName.INT32).named("id5")
        .required(PrimitiveTypeName.INT32).named("id6")
        .required(PrimitiveTypeName.INT32).named("v1")
        .required(PrimitiveTypeName.INT32).named("v2")
        .required(PrimitiveTypeName.DOUBLE).named("v3")
        .named("x");
    int small = (int) Math.max(1, rows / K);
    String[] ks = new String[K];
    for (int i = 0; i < K; i++) ks[i] = String.format("id%03d", i + 1);
    SplittableRandom r = new SplittableRandom(108);
    try (ParquetWriter<Object[]> w = RowWriter.open(file, schema, b -> b.withRowGroupRowCountLimit(
        TpchBenchmark.ROW_GROUP_ROWS).withCompressionCodec(CompressionCodecName.SNAPPY))) {
      for (long i = 0; i < rows; i++) {
        w.write(new Object[] {ks[r.nextInt(K)], ks[r.nextInt(K)], String.format("id%010d", r.nextInt(small) + 1),
            r.nextInt(K) + 1, r.nextInt(K) + 1, r.nextInt(small) + 1, r.nextInt(5) + 1, r.nextInt(15) + 1,
            Math.round(r.nextDouble() * 100e6) / 1e6});
      }
    }
    Files.writeString(dir.resolve("_COMPLETE"), "");
    return dir;
  }
}
