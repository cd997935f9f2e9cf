package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.TestTables;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.sql.Analyzer;
import dev.quiver.planner.sql.SqlParser;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Tests one plan rule the way Trino's {@code RuleTester} does: build a small plan over {@link TestTables}
 * ({@code t}: i8, i32, i64, f64, dec, s, d, b, 56 rows; {@code bools}: x, y, 9 rows), apply the rule through
 * the driver ({@link Optimizer}, one pass: every node the rule's pattern matches, once) and assert the
 * rewritten plan as EXPLAIN text, or that the rule does not fire.
 * <p>Plans come from SQL as the analyzer builds them ({@link #analyzed}) or are put together from its
 * pieces ({@link #scan}, {@link #predicate}) with the plan's own constructors.
 */
final class RuleTester implements AutoCloseable {
  private final Catalog catalog;
  private final BufferAllocator allocator = new RootAllocator();

  RuleTester(Path dir) throws IOException {
    catalog = TestTables.create(dir);
  }

  /** The plan of {@code sql} as analyzed, before any rule (no optimizer runs: a broken rule fails only its tests). */
  LogicalPlan analyzed(String sql) {
    return new Analyzer(catalog, sql).analyze(SqlParser.parse(sql));
  }

  /** A scan of every column of {@code table}, as the analyzer builds it. */
  LogicalPlan.TableScan scan(String table) {
    return find(analyzed("SELECT * FROM " + table), LogicalPlan.TableScan.class);
  }

  /** {@code predicate} (SQL over the columns of {@code t}), bound as the analyzer binds a WHERE clause. */
  Expr predicate(String predicate) {
    return find(analyzed("SELECT * FROM t WHERE " + predicate), LogicalPlan.Filter.class).condition();
  }

  /** The first node of class {@code type} in {@code plan}, top-down. */
  static <T extends LogicalPlan> T find(LogicalPlan plan, Class<T> type) {
    if (type.isInstance(plan)) return type.cast(plan);
    for (LogicalPlan c : plan.children()) {
      T found = findOrNull(c, type);
      if (found != null) return found;
    }
    throw new AssertionError("no " + type.getSimpleName() + " in\n" + explain(plan));
  }

  private static <T extends LogicalPlan> T findOrNull(LogicalPlan plan, Class<T> type) {
    if (type.isInstance(plan)) return type.cast(plan);
    for (LogicalPlan c : plan.children()) {
      T found = findOrNull(c, type);
      if (found != null) return found;
    }
    return null;
  }

  static String explain(LogicalPlan plan) {
    return String.join("\n", QueryEngine.render(plan));
  }

  /** {@code rule} applied to {@code plan} through the driver, one pass. */
  Applied apply(Rule rule, LogicalPlan plan) {
    OptimizerContext context = new OptimizerContext(allocator, EvalContext.utcNow());
    return new Applied(rule, plan, new Optimizer(List.of(rule)).withMaxPasses(1).optimize(plan, context));
  }

  /** What one rule did to one plan. */
  record Applied(Rule rule, LogicalPlan before, Optimizer.Result result) {
    LogicalPlan plan() {
      return result.plan();
    }

    String explain() {
      return RuleTester.explain(result.plan());
    }

    /** Asserts that the rule changed the plan (one EXPLAIN VERBOSE step named after it). */
    Applied fires() {
      assertThat(result.steps()).as(rule.name() + " did not fire on\n" + RuleTester.explain(before)).hasSize(1);
      assertThat(result.steps().get(0).rule()).startsWith(rule.name());
      assertThat(result.plan()).isNotSameAs(before);
      return this;
    }

    /** Asserts that the rule fired and the plan is now exactly {@code lines} (EXPLAIN, one node a line). */
    Applied becomes(String... lines) {
      fires();
      assertThat(explain()).isEqualTo(String.join("\n", lines));
      return this;
    }

    /** Asserts that the rule left the plan alone: the very same instance, no step. */
    void doesNotFire() {
      assertThat(result.steps()).as(rule.name() + " fired on\n" + RuleTester.explain(before) + "\ngiving\n" + explain())
          .isEmpty();
      assertThat(result.plan()).isSameAs(before);
    }
  }

  @Override
  public void close() {
    allocator.close();
  }
}
