package dev.quiver.server.console;

import java.util.List;

/** The console's sample queries, on the bundled sample data. */
final class Samples {
  record Sample(String name, String sql) {}

  static final List<Sample> ALL = List.of(
      new Sample("Pruning by statistics: 9 of 10 row groups skipped, pages pruned in the tenth",
          "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'"),
      new Sample("The simplifier makes a predicate pushable: extract(year) becomes a date range",
          "SELECT count(*) FROM lineitem WHERE extract(year FROM l_shipdate) = 1998"),
      new Sample("A cast unwrapped: the comparison moves onto the column",
          "SELECT count(*) FROM lineitem WHERE CAST(l_shipdate AS TIMESTAMP) < TIMESTAMP '1992-02-01 12:00:00'"),
      new Sample("A join: revenue by nation",
          "SELECT n.n_name, sum(o.o_totalprice) AS revenue\nFROM orders o\n  JOIN customer c ON o.o_custkey = c.c_custkey\n"
              + "  JOIN nation n ON c.c_nationkey = n.n_nationkey\nWHERE o.o_orderdate >= DATE '1995-01-01'\n"
              + "GROUP BY n.n_name\nORDER BY revenue DESC"),
      new Sample("Events: CAST(timestamp AS DATE) becomes a half-open day",
          "SELECT count(*) FROM events WHERE CAST(event_time AS DATE) = DATE '2024-03-01'"),
      new Sample("Events: a value no dictionary holds: every row group pruned by its dictionary",
          "SELECT count(*) FROM events WHERE kind = 'refund'"),
      new Sample("Events: a rounded literal (BIGINT event_id against 1000.5) prunes 12 of 13 row groups",
          "SELECT count(*) FROM events WHERE event_id < 1000.5"),
      new Sample("Events: an out-of-range literal (retries is an unsigned TINYINT): nothing is read at all",
          "SELECT count(*) FROM events WHERE retries > 300"));

  private Samples() {}
}
