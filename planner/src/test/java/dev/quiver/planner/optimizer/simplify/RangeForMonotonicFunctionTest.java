package dev.quiver.planner.optimizer.simplify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Ranges for monotonic date functions and CASE / LIKE rewrites beyond the conformance table, by evaluation. */
class RangeForMonotonicFunctionTest {
  BufferAllocator allocator = new RootAllocator();
  RuleTester t = new RuleTester(allocator, List.of(
      new Field("d", FieldType.nullable(SimplifierConformanceTest.type("DATE")), null),
      new Field("ts", FieldType.nullable(SimplifierConformanceTest.type("TIMESTAMP(us)")), null),
      new Field("i", FieldType.notNullable(SimplifierConformanceTest.type("INT64")), null),
      new Field("s", FieldType.nullable(SimplifierConformanceTest.type("VARCHAR")), null)));

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void extractYearBecomesARange() {
    assertThat(t.where("extract(year FROM d) = 2024")).isEqualTo("d >= DATE '2024-01-01' AND d < DATE '2025-01-01'");
    assertThat(t.where("extract(year FROM d) >= 2024")).isEqualTo("d >= DATE '2024-01-01'");
    assertThat(t.where("extract(year FROM d) > 2024")).isEqualTo("d >= DATE '2025-01-01'");
    assertThat(t.where("extract(year FROM d) < 2024")).isEqualTo("d < DATE '2024-01-01'");
    assertThat(t.where("extract(year FROM d) <= 2024")).isEqualTo("d < DATE '2025-01-01'");
    assertThat(t.where("extract(year FROM ts) <> 1969")).isEqualTo("ts < TIMESTAMP '1969-01-01 00:00:00' OR ts >= TIMESTAMP '1970-01-01 00:00:00'");
    assertThat(t.where("date_part('month', d) = 3")).isEqualTo("date_part('month', d) = 3"); // not monotonic
  }

  @Test
  void dateTruncOnAndOffBoundaries() {
    assertThat(t.where("date_trunc('month', ts) = TIMESTAMP '2024-02-01 00:00:00'"))
        .isEqualTo("ts >= TIMESTAMP '2024-02-01 00:00:00' AND ts < TIMESTAMP '2024-03-01 00:00:00'");
    // a literal that is no month start: date_trunc never equals it, and the other bounds move to the next month
    assertThat(t.where("date_trunc('month', ts) = TIMESTAMP '2024-02-15 00:00:00'")).isEqualTo("FALSE");
    assertThat(t.where("date_trunc('month', ts) >= TIMESTAMP '2024-02-15 00:00:00'")).isEqualTo("ts >= TIMESTAMP '2024-03-01 00:00:00'");
    assertThat(t.where("date_trunc('month', ts) < TIMESTAMP '2024-02-15 00:00:00'")).isEqualTo("ts < TIMESTAMP '2024-03-01 00:00:00'");
    assertThat(t.where("date_trunc('year', d) <= DATE '2024-01-01'")).isEqualTo("d < DATE '2025-01-01'");
    assertThat(t.where("date_trunc('day', ts) > TIMESTAMP '1969-12-31 00:00:00'")).isEqualTo("ts >= TIMESTAMP '1970-01-01 00:00:00'");
    assertThat(t.where("CAST(ts AS DATE) BETWEEN DATE '2024-01-01' AND DATE '2024-01-31'"))
        .isEqualTo("ts >= TIMESTAMP '2024-01-01 00:00:00' AND ts < TIMESTAMP '2024-02-01 00:00:00'");
  }

  @Test
  void caseNeverRunsADeadBranch() {
    assertThat(t.where("CASE WHEN FALSE THEN i / 0 > 1 ELSE i > 5 END")).isEqualTo("i > 5");
    assertThat(t.where("CASE WHEN i > 3 THEN TRUE ELSE FALSE END")).isEqualTo("i > 3");
    assertThat(t.where("coalesce(s, 'x') = 'x'")).isEqualTo("coalesce(s, 'x') = 'x'");
    assertThat(t.where("s LIKE 'ab%' AND s NOT LIKE 'abc'")).isEqualTo("s LIKE 'ab%' AND s <> 'abc'");
  }
}
