package dev.quiver.server;

import dev.quiver.planner.PreparedQuery;
import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QueryExecution;
import dev.quiver.sample.Lineitem;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Real queries for the start-up warm-up (issue 28, item 5): scans with pushed filters, string filters judged by
 * dictionary, grouped and DISTINCT aggregation, a join, a top-N and a window, over a small TPC-H lineitem (SF 0.02,
 * 120,000 rows) that the warm-up writes to a temporary directory of its own and deletes at its end. They run through
 * an engine of their own over that directory, never through the server's catalog: no client sees the table, and the
 * server's counters do not move. What they warm is the code every query shares — Parquet decoding, the kernels, the
 * hash tables, sorting — which a fresh JVM otherwise runs interpreted during a newcomer's first queries (the first run
 * of a benchmark query was up to 5–9× its steady state).
 */
final class WarmUpData implements AutoCloseable {
  /** The queries, in turn. */
  static final List<String> QUERIES = List.of(
      "SELECT sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' "
          + "AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
      "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount)), avg(l_discount), "
          + "count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus "
          + "ORDER BY 1, 2",
      "SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL') AND l_quantity < 10",
      "SELECT count(*), min(l_orderkey) FROM lineitem WHERE l_shipdate >= DATE '1995-03-01' "
          + "AND l_shipdate < DATE '1995-04-01' AND l_comment LIKE '%ly%'",
      "SELECT l_suppkey, count(DISTINCT l_partkey), max(l_comment) FROM lineitem GROUP BY l_suppkey "
          + "ORDER BY 2 DESC, 1 LIMIT 5",
      "SELECT a.l_shipmode, count(*), sum(b.l_tax) FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey "
          + "AND a.l_linenumber = b.l_linenumber + 1 GROUP BY a.l_shipmode",
      "SELECT l_orderkey, l_linenumber, l_extendedprice FROM lineitem ORDER BY l_extendedprice DESC LIMIT 10",
      "SELECT l_orderkey, rank() OVER (PARTITION BY l_shipmode ORDER BY l_extendedprice DESC) AS r FROM lineitem "
          + "WHERE l_orderkey < 20000 ORDER BY r, l_orderkey LIMIT 10");

  private final Path dir;
  private final QueryEngine engine;
  private int next;

  private WarmUpData(Path dir, QueryEngine engine) {
    this.dir = dir;
    this.engine = engine;
  }

  /** Writes the table and opens an engine over it. */
  static WarmUpData create() throws IOException {
    Path dir = Files.createTempDirectory("quiver-warm-up-");
    try {
      Lineitem.write(dir.resolve("lineitem.parquet"), 0.02, Lineitem.Order.NATURAL, 32_768, b -> b);
      return new WarmUpData(dir, new QueryEngine(Catalog.open(dir.toString())));
    } catch (IOException | RuntimeException | Error e) {
      delete(dir);
      throw e;
    }
  }

  /** Runs the next query to its end (results dropped). */
  void runNext(BufferAllocator allocator) {
    String sql = QUERIES.get(next++ % QUERIES.size());
    PreparedQuery q = engine.prepare(sql, allocator);
    try (QueryExecution e = engine.execute(q, allocator)) {
      VectorSchemaRoot batch;
      while ((batch = e.next()) != null) batch.close();
    } catch (Exception e) {
      throw new IllegalStateException("warm-up query failed: " + sql, e);
    }
  }

  /** The directory of the table (deleted at {@link #close}). */
  Path dir() {
    return dir;
  }

  @Override
  public void close() {
    delete(dir);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary directory: nothing depends on it
    }
  }
}
