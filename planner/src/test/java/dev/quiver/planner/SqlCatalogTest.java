package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.planner.kernel.Functions;
import dev.quiver.planner.sql.FunctionCatalog;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

/**
 * What the planner says it supports (SqlFeatures, FunctionCatalog, ColumnOrigins) is what it does: every
 * supported feature's probe runs and gives its expected rows, every unsupported one is refused as
 * UNSUPPORTED, every listed function binds and every registered function is listed.
 */
class SqlCatalogTest extends EngineTest {

  @Test
  void everyFeatureIsSupportedExactlyWhenItsProbeRuns() {
    for (SqlFeatures.Feature f : SqlFeatures.Feature.values()) {
      if (SqlFeatures.supported(engine, allocator, f)) {
        assertThat(TestTables.run(engine, allocator, f.probe())).as(f + ": " + f.probe()).isEqualTo(f.expected());
      } else {
        assertThatThrownBy(() -> engine.prepare(f.probe(), allocator)).as(f + ": " + f.probe())
            .isInstanceOf(QuiverException.class)
            .satisfies(e -> assertThat(((QuiverException) e).code()).isEqualTo(ErrorCode.UNSUPPORTED));
      }
    }
  }

  @Test
  void theFeaturesQuiverHasAreReported() {
    // what Quiver's planner does today; a feature lost is a regression, a feature gained is reported by itself
    var supported = SqlFeatures.probe(engine, allocator);
    for (SqlFeatures.Feature f : List.of(SqlFeatures.Feature.GROUP_BY, SqlFeatures.Feature.OUTER_JOIN,
        SqlFeatures.Feature.FULL_OUTER_JOIN, SqlFeatures.Feature.UNION, SqlFeatures.Feature.UNION_ALL,
        SqlFeatures.Feature.SUBQUERY_IN_EXISTS, SqlFeatures.Feature.SUBQUERY_IN_IN,
        SqlFeatures.Feature.SUBQUERY_IN_COMPARISON, SqlFeatures.Feature.CORRELATED_SUBQUERY,
        SqlFeatures.Feature.EXPRESSION_IN_ORDER_BY, SqlFeatures.Feature.ORDER_BY_UNRELATED)) {
      assertThat(supported.get(f)).as(f.toString()).isTrue();
    }
  }

  @Test
  void everyListedFunctionBindsAndRuns() {
    Set<String> names = new HashSet<>();
    for (FunctionCatalog.Entry e : FunctionCatalog.ENTRIES) {
      assertThat(names.add(e.name())).as("listed twice: " + e.name()).isTrue();
      assertThat(e.example().toLowerCase()).as(e.name()).startsWith(e.name());
      String sql = "SELECT " + e.example() + " AS v";
      List<List<Object>> rows = TestTables.run(engine, allocator, sql);
      assertThat(rows).as(sql).hasSize(1);
      PreparedQuery q = engine.prepare(sql, allocator);
      ArrowType type = q.schema().getFields().get(0).getType();
      if (e.implementation() != null) {
        // the name reaches the registered function it claims (before constant folding)
        assertThat(String.join("\n", QueryEngine.render(q.analyzed()))).as(sql).contains(e.implementation() + "(");
      }
      switch (e.category()) {
        case NUMERIC -> assertThat(SqlTypes.isNumeric(type)).as(sql + " gives a number").isTrue();
        case DATETIME -> assertThat(SqlTypes.isTemporal(type) || e.example().contains("DATE '"))
            .as(sql + " is about dates and times").isTrue();
        case STRING -> assertThat(e.example()).as(sql + " takes a string").contains("'");
        default -> { }
      }
    }
  }

  @Test
  void everyRegisteredFunctionIsListed() {
    Set<String> listed = new TreeSet<>();
    for (FunctionCatalog.Entry e : FunctionCatalog.ENTRIES) if (e.implementation() != null) listed.add(e.implementation());
    Set<String> registered = new TreeSet<>(Functions.names());
    registered.removeAll(FunctionCatalog.INTERNAL);
    assertThat(listed).isEqualTo(registered);
    assertThat(FunctionCatalog.names(FunctionCatalog.Category.NUMERIC)).contains("ABS", "ROUND");
    assertThat(FunctionCatalog.names(FunctionCatalog.Category.STRING)).contains("SUBSTRING", "UPPER");
  }

  @Test
  void columnOriginsFollowBareColumnsToTheirTable() {
    List<ColumnOrigins.Origin> o = ColumnOrigins.of(engine.prepare(
        "SELECT x.i32, x.i32 + 1 AS plus, y.s AS renamed, 7 AS seven, x.i32 AS again FROM t x JOIN t y ON x.i64 = y.i64"
            + " WHERE x.s <> 'a' ORDER BY 1 LIMIT 5", allocator).plan());
    assertThat(o).containsExactly(new ColumnOrigins.Origin("t", "i32"), null, new ColumnOrigins.Origin("t", "s"), null,
        new ColumnOrigins.Origin("t", "i32"));
    assertThat(ColumnOrigins.of(engine.prepare("SELECT s, count(*) FROM t GROUP BY s", allocator).plan()))
        .containsExactly(new ColumnOrigins.Origin("t", "s"), null);
    assertThat(ColumnOrigins.of(engine.prepare("SELECT i32 FROM t UNION ALL SELECT i32 FROM t", allocator).plan()))
        .containsExactly((ColumnOrigins.Origin) null);
    assertThat(ColumnOrigins.of(engine.prepare("SELECT CAST(i32 AS BIGINT) AS c, x FROM t, bools", allocator).plan()))
        .containsExactly(null, new ColumnOrigins.Origin("bools", "x"));
    assertThat(ColumnOrigins.of(engine.prepare("SELECT b FROM (SELECT i8 AS b FROM t) sub", allocator).plan()))
        .containsExactly(new ColumnOrigins.Origin("t", "i8"));
  }
}
