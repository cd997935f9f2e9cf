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
  void limitOfThousandsOfDigits() {
    // names and positions that are no names, unions, subqueries that come too late: errors.slt, set_operations.slt
    assertThat(error("SELECT i32 FROM t LIMIT " + "7".repeat(2_000)).getMessage())
        .isEqualTo("integer literal of 2000 digits is too large");
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
