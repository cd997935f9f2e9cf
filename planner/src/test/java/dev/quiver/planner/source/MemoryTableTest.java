package dev.quiver.planner.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.read.ScanOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class MemoryTableTest {
  static final Schema SCHEMA = new Schema(List.of(Field.nullable("k", new ArrowType.Int(64, true)),
      Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), Field.nullable("s", new ArrowType.Utf8())));

  @Test
  void scansTheRequestedColumnsInBatchesFromTheQueryAllocator() {
    List<List<Object>> rows = new ArrayList<>();
    for (long i = 0; i < 10; i++) rows.add(Arrays.asList(i, i % 3 == 0 ? null : i * 0.5, "r" + i));
    MemoryTable t = new MemoryTable("m", SCHEMA, rows);
    List<List<Object>> got = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    ScanMetrics metrics = new ScanMetrics();
    try (BufferAllocator allocator = new RootAllocator();
        TableSource.BatchReader r = t.open(new TableSource.ScanSpec(List.of("s", "x"), null, null, 4, true, ScanOptions.shared()),
            allocator, metrics)) {
      for (VectorSchemaRoot next = r.next(); next != null; next = r.next()) {
        try (VectorSchemaRoot b = next) {
          sizes.add(b.getRowCount());
          assertThat(b.getSchema().getFields()).extracting(Field::getName).containsExactly("s", "x");
          for (int i = 0; i < b.getRowCount(); i++) {
            got.add(Arrays.asList(String.valueOf(b.getVector(0).getObject(i)), b.getVector(1).getObject(i)));
          }
        }
      }
    }
    assertThat(sizes).containsExactly(4, 4, 2);
    assertThat(metrics.rowsScanned()).isEqualTo(10);
    List<List<Object>> expected = new ArrayList<>();
    for (List<Object> row : rows) expected.add(Arrays.asList(row.get(2), row.get(1)));
    assertThat(got).isEqualTo(expected);
  }

  @Test
  void rowsMustFitTheSchema() {
    assertThatThrownBy(() -> new MemoryTable("m", SCHEMA, List.of(List.of(1L))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 values for 3 columns");
  }
}
