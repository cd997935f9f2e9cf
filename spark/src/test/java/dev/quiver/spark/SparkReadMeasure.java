package dev.quiver.spark;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: TPC-H Q1 and Q6 in Spark {@code local[2]} through the connector vs Spark's own Parquet reader on the
 * same files, best of 3 each. {@code mvn -pl spark -am test -Dtest=SparkReadMeasure -Dquiver.measure=true
 * -Dsurefire.failIfNoSpecifiedTests=false}; the numbers are in target/surefire-reports/*-output.txt.
 */
@EnabledIfSystemProperty(named = "quiver.measure", matches = "true")
class SparkReadMeasure {
  @Test
  void q1AndQ6() throws Exception {
    Path data = SampleData.ensure();
    try (QuiverServer server = QuiverServer.start(data.toString(), "127.0.0.1", 0, QuiverServer.DEFAULT_QUERY_MEMORY)) {
      SparkSession spark = SparkSession.builder().master("local[2]").config("spark.ui.enabled", "false")
          .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.sql.catalog.quiver", QuiverCatalog.class.getName())
          .config("spark.sql.catalog.quiver.url", "grpc://127.0.0.1:" + server.port()).getOrCreate();
      try {
        spark.read().parquet(data.resolve("lineitem.parquet").toString()).createOrReplaceTempView("pq_lineitem");
        for (String q : new String[] {"q01", "q06"}) {
          String sql = QuiverSparkTest.tpch(q);
          for (String[] source : new String[][] {{"quiver", "quiver.main.lineitem"}, {"parquet", "pq_lineitem"}}) {
            String text = sql.replaceAll("\\blineitem\\b", source[1]);
            long best = Long.MAX_VALUE;
            for (int i = 0; i < 4; i++) { // one warm-up, then best of 3
              long t0 = System.nanoTime();
              spark.sql(text).collectAsList();
              long ms = (System.nanoTime() - t0) / 1_000_000;
              if (i > 0) best = Math.min(best, ms);
            }
            System.out.println("MEASURE " + q + " " + source[0] + " best of 3: " + best + " ms");
          }
        }
      } finally {
        spark.stop();
      }
    }
  }
}
