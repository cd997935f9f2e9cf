package dev.quiver.it;

import dev.quiver.sample.SampleData;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class WindowTimingScratchTest {
  @Test
  void timing() throws Exception {
    var dir = SampleData.ensure();
    try (TestServer server = TestServer.start(dir); Connection q = server.jdbc(); Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = duck.createStatement()) {
        s.execute("CREATE VIEW lineitem AS SELECT * FROM '" + dir.resolve("lineitem.parquet") + "'");
        s.execute("CREATE VIEW orders AS SELECT * FROM '" + dir.resolve("orders.parquet") + "'");
      }
      String[] qs = {
        "SELECT count(*), sum(r) FROM (SELECT row_number() OVER (PARTITION BY l_suppkey ORDER BY l_shipdate, l_orderkey, l_linenumber) AS r FROM lineitem) x",
        "SELECT count(*), sum(s) FROM (SELECT sum(l_quantity) OVER (PARTITION BY l_suppkey ORDER BY l_shipdate, l_orderkey, l_linenumber ROWS BETWEEN 100 PRECEDING AND CURRENT ROW) AS s FROM lineitem) x",
        "SELECT count(*), sum(s) FROM (SELECT sum(l_extendedprice) OVER (ORDER BY l_orderkey, l_linenumber ROWS BETWEEN 1000 PRECEDING AND 1000 FOLLOWING) AS s FROM lineitem) x",
        "SELECT count(*), max(s) FROM (SELECT max(l_quantity) OVER (ORDER BY l_orderkey, l_linenumber ROWS BETWEEN 1000 PRECEDING AND 1000 FOLLOWING) AS s FROM lineitem) x",
        "SELECT count(*), sum(r) FROM (SELECT rank() OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC) AS r FROM orders) x",
      };
      for (String sql : qs) {
        for (Connection c : new Connection[] {q, duck}) {
          long best = Long.MAX_VALUE;
          Object res = null;
          for (int i = 0; i < 3; i++) {
            long t = System.nanoTime();
            res = TestServer.rows(c, sql);
            best = Math.min(best, System.nanoTime() - t);
          }
          System.out.printf("TIMING %s %.0f ms %s  %s%n", c == q ? "quiver" : "duckdb", best / 1e6, res, sql.substring(0, 90));
        }
      }
    }
  }
}
