package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Vectors the scan's decoders fill are not zero-filled first; they must still hold exactly what a
 * zero-filled vector would after the same writes: every NULL slot's data zero, validity as decoded, however
 * dirty the memory they were carved from.
 */
class ScanVectorsTest {
  static final Field BIG = new Field("x", FieldType.nullable(new ArrowType.Int(64, true)), null);

  /** Frees many buffers full of 0xFF so that the next allocations reuse dirty memory. */
  static void dirty(BufferAllocator a) {
    for (int i = 0; i < 8; i++) {
      try (ArrowBuf b = a.buffer(1 << 20)) {
        b.setOne(0, b.capacity());
      }
    }
  }

  @Test
  void overwriteVectorsStartAllNullAndNullSlotsAreZero() {
    try (BufferAllocator a = new RootAllocator()) {
      dirty(a);
      try (FieldVector v = ScanVectors.allocateToOverwrite(BIG, a, 10_000)) {
        BaseFixedWidthVector f = (BaseFixedWidthVector) v;
        assertThat(f.getValueCapacity()).isGreaterThanOrEqualTo(10_000);
        for (int i = 0; i < 10_000; i++) assertThat(f.isNull(i)).isTrue();
        for (int i = 0; i < 10_000; i++) ((BigIntVector) v).set(i, i);
        ScanVectors.setNulls(v, 3, 5);
        v.setValueCount(10_000);
        for (int i = 0; i < 10_000; i++) {
          boolean isNull = i >= 3 && i < 8;
          assertThat(f.isNull(i)).isEqualTo(isNull);
          assertThat(f.getDataBuffer().getLong(8L * i)).isEqualTo(isNull ? 0 : i);
        }
      }
    }
  }

  @Test
  void compactKeepsValuesNullsAndZeroNullSlots() {
    try (BufferAllocator a = new RootAllocator()) {
      int n = 5_000;
      boolean[] keep = new boolean[n];
      int count = 0;
      for (int i = 0; i < n; i++) if (keep[i] = i % 3 != 1) count++;
      for (boolean withNulls : new boolean[] {false, true}) {
        dirty(a);
        BigIntVector v = (BigIntVector) ScanVectors.allocate(BIG, a, n);
        for (int i = 0; i < n; i++) {
          if (withNulls && i % 7 == 0) v.setNull(i);
          else v.set(i, i * 31L);
        }
        v.setValueCount(n);
        dirty(a);
        try (BigIntVector out = (BigIntVector) ScanVectors.compact(v, keep, count, a)) {
          assertThat(out.getValueCount()).isEqualTo(count);
          int k = 0;
          for (int i = 0; i < n; i++) {
            if (!keep[i]) continue;
            boolean isNull = withNulls && i % 7 == 0;
            assertThat(out.isNull(k)).isEqualTo(isNull);
            assertThat(out.getDataBuffer().getLong(8L * k)).isEqualTo(isNull ? 0 : i * 31L);
            k++;
          }
        }
      }
    }
  }

  /** Through the scan: nullable INT64 and DECIMAL columns, PLAIN and dictionary pages, after dirty memory. */
  @Test
  void scannedNullSlotsAreZero(@TempDir Path dir) throws Exception {
    MessageType schema = Types.buildMessage()
        .optional(PrimitiveTypeName.INT64).named("x")
        .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("d")
        .optional(PrimitiveTypeName.INT32).named("small")
        .named("t");
    SimpleGroupFactory g = new SimpleGroupFactory(schema);
    int n = 30_000;
    java.nio.file.Files.createDirectories(dir.resolve("t"));
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve("t").resolve("a.parquet")))
        .withType(schema).withRowGroupRowCountLimit(10_000).withPageRowCountLimit(1_000).build()) {
      for (int i = 0; i < n; i++) {
        Group r = g.newGroup();
        if (i % 5 != 0) r.append("x", (long) i * 1_000_003L);
        if (i % 4 != 1) r.append("d", (long) (i % 100) - 50);
        if (i % 3 != 2) r.append("small", i % 10); // dictionary pages
        w.write(r);
      }
    }
    Catalog c = Catalog.open(dir.toString());
    try (BufferAllocator a = new RootAllocator()) {
      for (int round = 0; round < 2; round++) {
        dirty(a);
        int row = 0;
        try (ParquetScan scan = new ParquetScan(c, c.table("t"), List.of("x", "d", "small"), new ScanPredicate.Const(true),
            a, new ScanMetrics(), 4_096, true, ScanOptions.shared())) {
          VectorSchemaRoot next;
          while ((next = scan.next()) != null) {
            try (VectorSchemaRoot b = next) {
              BaseFixedWidthVector x = (BaseFixedWidthVector) b.getVector(0);
              BaseFixedWidthVector d = (BaseFixedWidthVector) b.getVector(1);
              BaseFixedWidthVector s = (BaseFixedWidthVector) b.getVector(2);
              for (int i = 0; i < b.getRowCount(); i++, row++) {
                assertThat(x.isNull(i)).isEqualTo(row % 5 == 0);
                assertThat(x.getDataBuffer().getLong(8L * i)).isEqualTo(row % 5 == 0 ? 0 : (long) row * 1_000_003L);
                assertThat(d.isNull(i)).isEqualTo(row % 4 == 1);
                long dl = d.getDataBuffer().getLong(16L * i);
                long dh = d.getDataBuffer().getLong(16L * i + 8);
                long expect = row % 4 == 1 ? 0 : (row % 100) - 50;
                assertThat(dl).isEqualTo(expect);
                assertThat(dh).isEqualTo(expect >> 63);
                assertThat(s.isNull(i)).isEqualTo(row % 3 == 2);
                assertThat(s.getDataBuffer().getInt(4L * i)).isEqualTo(row % 3 == 2 ? 0 : row % 10);
              }
            }
          }
        }
        assertThat(row).isEqualTo(n);
      }
    }
  }
}
