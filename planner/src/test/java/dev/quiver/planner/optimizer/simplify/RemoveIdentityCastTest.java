package dev.quiver.planner.optimizer.simplify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A cast to the type its input already has goes away, wherever it stands; checked by evaluation. */
class RemoveIdentityCastTest {
  BufferAllocator allocator = new RootAllocator();
  RuleTester t = new RuleTester(allocator, List.of(
      new Field("d", FieldType.nullable(SimplifierConformanceTest.type("DATE")), null),
      new Field("i", FieldType.nullable(SimplifierConformanceTest.type("INT64")), null),
      new Field("s", FieldType.nullable(SimplifierConformanceTest.type("VARCHAR")), null)));

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void identityCastsGoAway() {
    assertThat(t.where("CAST(i AS BIGINT) * 2 > 5")).isEqualTo("(i * 2) > 5");
    assertThat(t.where("length(CAST(s AS VARCHAR)) = 3")).isEqualTo("length(s) = 3");
    assertThat(t.where("CAST(d AS DATE) = DATE '2024-01-01'")).isEqualTo("d = DATE '2024-01-01'");
  }
}
