package dev.quiver.bench;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QuerySettings;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.sample.Events;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.RootAllocator;

/**
 * How long planning a large predicate takes: Quiver's parse + analyze + optimize (simplifier on and
 * off) against DuckDB planning the same SQL (EXPLAIN, which parses, binds and optimizes without
 * running), in the same run, reported as ratios. Usage: {@code PlanningBenchmark [targetNodes] [runs]}.
 */
public final class PlanningBenchmark {
  private PlanningBenchmark() {}

  /** One predicate shape: a term template over the events table, joined with AND / OR. */
  record Shape(String name, String joiner, String term) {}

  static final List<Shape> SHAPES = List.of(
      new Shape("OR of cast-wrapped equalities", " OR ", "CAST(user_id AS BIGINT) = %d"),
      new Shape("AND of ranges and IN lists", " AND ", "(event_id > %d OR kind IN ('click', 'view', 'x%1$d'))"),
      new Shape("nested AND/OR with constants", " OR ", "(retries = %d AND latency_ms < 100 + %1$d * 2)"));

  public static void main(String[] args) throws Exception {
    int target = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    Path dir = Files.createTempDirectory("quiver-planning-bench");
    Path file = dir.resolve("events.parquet");
    Events.write(file, 10_000, 1, 8_192);
    QueryEngine on = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT);
    QueryEngine off = new QueryEngine(Catalog.open(dir.toString()), QuerySettings.DEFAULT.withSimplify(false));
    System.out.printf(Locale.ROOT, "%-32s %8s %12s %12s %12s %10s%n", "shape", "nodes", "quiver ms", "no-simpl ms",
        "duckdb ms", "duck/quiver");
    try (RootAllocator allocator = new RootAllocator();
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = duck.createStatement()) {
        s.execute("CREATE VIEW events AS SELECT * FROM read_parquet('" + file + "')");
      }
      for (Shape shape : SHAPES) {
        String sql = sql(on, allocator, shape, target);
        int nodes = nodes(on.prepare(sql, allocator).analyzed());
        double q = median(runs, () -> on.prepare(sql, allocator));
        double qOff = median(runs, () -> off.prepare(sql, allocator));
        double d = median(runs, () -> {
          try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) { /* drain */ }
          }
        });
        System.out.printf(Locale.ROOT, "%-32s %8d %12.1f %12.1f %12.1f %10.2f%n", shape.name(), nodes, q, qOff, d, d / q);
      }
    }
  }

  /** The smallest query of this shape whose analyzed predicate has at least {@code target} nodes. */
  static String sql(QueryEngine engine, RootAllocator allocator, Shape shape, int target) {
    int terms = 16;
    while (true) {
      String sql = build(shape, terms);
      if (nodes(engine.prepare(sql, allocator).analyzed()) >= target) return sql;
      terms *= 2;
      if (terms > 1 << 16) throw new IllegalStateException("shape never reaches " + target + " nodes");
      String half = build(shape, terms * 3 / 4);
      if (nodes(engine.prepare(half, allocator).analyzed()) >= target) return half;
    }
  }

  static String build(Shape shape, int terms) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < terms; i++) parts.add(String.format(Locale.ROOT, shape.term(), i));
    return "SELECT count(*) FROM events WHERE " + String.join(shape.joiner(), parts);
  }

  /** Expression nodes in the plan's filter. */
  static int nodes(LogicalPlan plan) {
    int n = 0;
    if (plan instanceof LogicalPlan.Filter f) n += count(f.condition());
    for (LogicalPlan c : plan.children()) n += nodes(c);
    return n;
  }

  static int count(Expr e) {
    int n = 1;
    for (Expr c : e.children()) n += count(c);
    return n;
  }

  interface Body {
    void run() throws Exception;
  }

  /** Median milliseconds of {@code runs} runs after two warm-up runs. */
  static double median(int runs, Body body) throws Exception {
    for (int i = 0; i < 2; i++) body.run();
    double[] ms = new double[runs];
    for (int i = 0; i < runs; i++) {
      long t0 = System.nanoTime();
      body.run();
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    Arrays.sort(ms);
    return ms[runs / 2];
  }

}
