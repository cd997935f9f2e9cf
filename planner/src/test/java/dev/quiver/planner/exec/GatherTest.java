package dev.quiver.planner.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Gather} against Arrow's own per-value copy: for every type the join, sort and window operators output,
 * random source batches (with NULLs and empty strings) and random references across them (with NULL rows, repeats
 * and out-of-order rows) give the same values and validity; NULL slots of fixed-width output are zero.
 */
class GatherTest {
  private static final List<ArrowType> TYPES = List.of(new ArrowType.Int(8, true), new ArrowType.Int(16, true),
      new ArrowType.Int(32, true), new ArrowType.Int(64, true), new ArrowType.FloatingPoint(
          org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE), new ArrowType.Decimal(12, 2, 128),
      new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY), new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"),
      ArrowType.Utf8.INSTANCE, ArrowType.Binary.INSTANCE, ArrowType.Bool.INSTANCE, new ArrowType.FixedSizeBinary(3));

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
  void gathersAsArrowCopiesValueByValue(int typeIndex) {
    Field field = new Field("c", FieldType.nullable(TYPES.get(typeIndex)), null);
    Random random = new Random(typeIndex);
    try (BufferAllocator allocator = new RootAllocator()) {
      List<FieldVector> batches = new ArrayList<>();
      try {
        for (int b = 0; b < 4; b++) batches.add(randomVector(field, random.nextInt(40), random, allocator));
        for (int round = 0; round < 20; round++) {
          int count = random.nextInt(70);
          long[] refs = new long[count + 3];
          for (int k = 0; k < refs.length; k++) {
            int b = random.nextInt(batches.size());
            int rows = batches.get(b).getValueCount();
            refs[k] = rows == 0 || random.nextInt(10) == 0 ? -1 : Rows.ref(b, random.nextInt(rows));
          }
          int from = random.nextInt(4);
          count = Math.min(count, refs.length - from);
          try (FieldVector got = Gather.column(batches.toArray(new FieldVector[0]), field, refs, from, count, allocator);
              FieldVector want = field.createVector(allocator)) {
            want.setInitialCapacity(Math.max(count, 1));
            want.allocateNew();
            for (int k = 0; k < count; k++) {
              long r = refs[from + k];
              if (r < 0) want.setNull(k);
              else want.copyFromSafe(Rows.row(r), k, batches.get(Rows.batch(r)));
            }
            want.setValueCount(count);
            assertThat(got.getValueCount()).isEqualTo(count);
            for (int k = 0; k < count; k++) {
              assertThat(got.isNull(k)).as("row %d null", k).isEqualTo(want.isNull(k));
              assertThat(String.valueOf(value(got, k))).as("row %d", k).isEqualTo(String.valueOf(value(want, k)));
            }
            if (got instanceof org.apache.arrow.vector.BaseFixedWidthVector f && !(got instanceof BitVector)) {
              int width = f.getTypeWidth();
              for (int k = 0; k < count; k++) {
                if (!got.isNull(k)) continue;
                for (int i = 0; i < width; i++) {
                  assertThat(got.getDataBuffer().getByte((long) k * width + i)).as("NULL slot %d zeroed", k).isZero();
                }
              }
            }
          }
        }
      } finally {
        batches.forEach(FieldVector::close);
      }
    }
  }

  private static Object value(FieldVector v, int i) {
    Object o = v.getObject(i);
    return o instanceof byte[] b ? new String(b, StandardCharsets.ISO_8859_1) : o;
  }

  private static FieldVector randomVector(Field field, int n, Random random, BufferAllocator allocator) {
    FieldVector v = field.createVector(allocator);
    v.setInitialCapacity(Math.max(n, 1));
    v.allocateNew();
    for (int i = 0; i < n; i++) {
      if (random.nextInt(5) == 0) {
        v.setNull(i);
        continue;
      }
      long x = random.nextLong();
      if (v instanceof TinyIntVector t) {
        t.setSafe(i, (byte) x);
      } else if (v instanceof SmallIntVector t) {
        t.setSafe(i, (short) x);
      } else if (v instanceof IntVector t) {
        t.setSafe(i, (int) x);
      } else if (v instanceof BigIntVector t) {
        t.setSafe(i, x);
      } else if (v instanceof Float8Vector t) {
        t.setSafe(i, random.nextDouble() * 1e6 - 5e5);
      } else if (v instanceof DecimalVector t) {
        t.setSafe(i, BigDecimal.valueOf(x % 10_000_000_000L, 2));
      } else if (v instanceof DateDayVector t) {
        t.setSafe(i, (int) (x % 100_000));
      } else if (v instanceof TimeStampMicroTZVector t) {
        t.setSafe(i, x);
      } else if (v instanceof VarCharVector t) {
        String s = Long.toString(x, 36);
        t.setSafe(i, s.substring(0, random.nextInt(s.length())).getBytes(StandardCharsets.UTF_8)); // may be empty
      } else if (v instanceof VarBinaryVector t) {
        byte[] b = new byte[random.nextInt(6)];
        random.nextBytes(b);
        t.setSafe(i, b);
      } else if (v instanceof BitVector t) {
        t.setSafe(i, (int) (x & 1));
      } else if (v instanceof FixedSizeBinaryVector t) {
        byte[] b = new byte[3];
        random.nextBytes(b);
        t.setSafe(i, b);
      } else {
        throw new IllegalStateException(v.getClass().getName());
      }
    }
    v.setValueCount(n);
    return v;
  }
}
