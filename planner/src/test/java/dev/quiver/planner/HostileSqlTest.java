package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

/** Bugs the SQL fuzzer found, checked for their right answers (the fuzzer itself only checks for clean ones). */
class HostileSqlTest extends EngineTest {

  private List<List<Object>> run(String sql) {
    return TestTables.run(engine, allocator, sql);
  }

  private QuiverException error(String sql) {
    QuiverException e = catchThrowableOfType(QuiverException.class, () -> run(sql));
    assertThat(e).as(sql).isNotNull();
    return e;
  }

  @Test
  void untypedNullColumnsAreIntegersThatSortJoinAndLimit() {
    // Arrow's Null vectors could not be copied: every sort, join and limit over a bare NULL column failed
    assertThat(engine.prepare("SELECT NULL AS x", allocator).schema().getFields().get(0).getType())
        .isEqualTo(new ArrowType.Int(32, true));
    assertThat(run("SELECT NULL AS x FROM t ORDER BY i32")).hasSize(56).allSatisfy(r -> assertThat(r.get(0)).isNull());
    assertThat(run("SELECT i32 FROM t ORDER BY NULL")).hasSize(56);
    assertThat(run("SELECT NULL FROM t LIMIT 3")).hasSize(3);
    assertThat(run("SELECT a.x, b.i32 FROM (SELECT NULL AS x FROM t) a JOIN t b ON true")).hasSize(56 * 56);
    assertThat(run("SELECT * FROM (SELECT NULL AS x FROM t) a LEFT JOIN t b ON a.x = b.i32")).hasSize(56);
    assertThat(run("SELECT (SELECT NULL) FROM t")).hasSize(56);
    assertThat(run("SELECT count(*) FROM t GROUP BY NULL")).containsExactly(List.of(56L));
  }

  @Test
  void unionChainsAreOneUnionWithTheSameAnswers() {
    assertThat(run("SELECT 1 UNION ALL SELECT 1 UNION ALL SELECT 1")).hasSize(3);
    assertThat(run("SELECT 1 UNION SELECT 1 UNION ALL SELECT 1")).hasSize(2);
    assertThat(run("SELECT 1 UNION ALL SELECT 1 UNION SELECT 1")).hasSize(1);
    assertThat(run("SELECT 1 UNION ALL (SELECT 1 UNION SELECT 1)")).hasSize(2);
    assertThat(run("(SELECT 1 UNION ALL SELECT 1) UNION ALL SELECT 1")).hasSize(3);
    assertThat(run("SELECT x FROM (VALUES (1), (2), (2)) AS v(x) UNION ALL SELECT 2 UNION SELECT 3")).hasSize(3);
    // typed together: NULL, then 'a' make a VARCHAR column (pairwise, NULL UNION NULL had become INTEGER first)
    assertThat(run("SELECT NULL UNION SELECT NULL UNION SELECT 'a'")).containsExactlyInAnyOrder(
        java.util.Arrays.asList((Object) null), List.of(new org.apache.arrow.vector.util.Text("a")));
    assertThat(run("SELECT DISTINCT NULL AS x FROM t UNION ALL SELECT 'b' UNION ALL (SELECT 'c' ORDER BY 1 LIMIT 1)"))
        .hasSize(3);
    assertThat(run("SELECT x FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, y) ORDER BY x DESC")).containsExactly(List.of(2), List.of(1));
    assertThat(error("SELECT 1 UNION SELECT 1, 2").getMessage())
        .isEqualTo("each UNION query must have the same number of columns (1 and 2)");
    assertThat(error("SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT DATE '2020-01-01'").getMessage())
        .isEqualTo("UNION ALL column 1 has types INTEGER and DATE, which do not match");
  }

  @Test
  void namesAndPositionsThatAreNoNames() {
    assertThat(error("SELECT count(*) FROM \"..\"").code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(error("SELECT i32 FROM t ORDER BY 999999999999999999999999999999999999999").getMessage())
        .startsWith("ORDER BY position 0 is not in the select list");
    // 4294967297 wrapped around to 1 as an int
    assertThat(error("SELECT i32 FROM t GROUP BY 4294967297").code()).isEqualTo(ErrorCode.INVALID_QUERY);
    assertThat(error("SELECT i32 FROM t LIMIT " + "7".repeat(2_000)).getMessage())
        .isEqualTo("integer literal of 2000 digits is too large");
  }

  @Test
  void subqueriesWhereTheirJoinWouldComeTooLate() {
    QuiverException e = error("SELECT count(DISTINCT (SELECT count(*) FROM bools)) + 1");
    assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED);
    assertThat(e.getMessage()).isEqualTo("a subquery inside an aggregate function is not supported");
    assertThat(error("SELECT count(*) FROM t GROUP BY (SELECT 1)").code()).isEqualTo(ErrorCode.UNSUPPORTED);
  }

  @Test
  void correlatedReferencesOutsideTheWhereOfASubqueryAreUnsupported() {
    // they were read from the subquery's rows, which do not have them: INTERNAL "column i32 not in input"
    for (String q : List.of("SELECT i32, (SELECT t.i32 + 1) FROM t", "SELECT (SELECT max(t.i32)) FROM t",
        "SELECT count(*) FROM t WHERE EXISTS (SELECT t.i32 FROM bools)",
        "SELECT count(*) FROM t WHERE i32 IN (SELECT t.i32 FROM bools)", "SELECT i32 FROM t WHERE i32 = (SELECT max(i32) - 1)")) {
      QuiverException e = error(q);
      assertThat(e.code()).as(q).isEqualTo(ErrorCode.UNSUPPORTED);
      assertThat(e.getMessage()).as(q).isEqualTo("a correlated reference outside the subquery's WHERE clause is not supported");
    }
    // correlated in the WHERE they still work
    assertThat(run("SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM bools WHERE x = t.b)")).hasSize(1);
    assertThat(run("SELECT (SELECT count(*) FROM bools WHERE bools.x = t.b) FROM t")).hasSize(56);
  }

  @Test
  void roundToAnyNumberOfDigits() {
    assertThat(run("SELECT round(1.25e0, 4294967296), round(1.25e0, -2147483649), round(CAST(1234 AS BIGINT), -20),"
        + " round(CAST(1234 AS BIGINT), 9223372036854775807), round(CAST(12.34 AS DECIMAL(4,2)), -9223372036854775807)"))
        .containsExactly(List.of(1.25, 0.0, 0L, 1234L, new java.math.BigDecimal("0.00")));
  }

  @Test
  void longLiteralsAndPatterns() {
    // LIKE quoted each character as \Q…\E: a 2,001-character pattern with a '_' was over the 10,000 limit
    assertThat(run("SELECT count(*) FROM t WHERE s LIKE '" + "x".repeat(2_001) + "_'")).containsExactly(List.of(0L));
    assertThat(run("SELECT '" + "ab".repeat(1_000) + "c' LIKE '" + "a_".repeat(1_000) + "_'")).containsExactly(List.of(true));
    QuiverException e = error("SELECT CAST('" + "7".repeat(300_000) + "' AS DECIMAL(38,0))");
    assertThat(e.code()).isEqualTo(ErrorCode.DATA_ERROR);
    assertThat(e.getMessage()).startsWith("invalid DECIMAL(38,0) value: '777").endsWith("…' (300000 characters)")
        .hasSizeLessThan(300);
    assertThat(error("SELECT 0." + "7".repeat(5_000)).getMessage()).isEqualTo("numeric literal of 5002 characters is too long");
  }
}
