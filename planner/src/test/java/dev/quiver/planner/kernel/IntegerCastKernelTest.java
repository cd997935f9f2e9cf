package dev.quiver.planner.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.types.SqlTypes;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

/**
 * Casts between integer types and from integers to DOUBLE over a column take a typed path: every value equals the
 * one-value cast ({@link Casts#cast}), NULLs stay NULL, an out-of-range value is the same DATA_ERROR (or NULL for
 * TRY_CAST).
 */
class IntegerCastKernelTest {
  private static final long[] VALUES = {0, 1, -1, 32_767, -32_768, 32_768, Integer.MAX_VALUE, Integer.MIN_VALUE,
      Integer.MAX_VALUE + 1L, Long.MAX_VALUE, Long.MIN_VALUE, 123_456_789_012L};

  @Test
  void integerCastsEqualTheOneValueCast() {
    EvalContext ctx = EvalContext.now(ZoneOffset.UTC);
    try (BufferAllocator alloc = new RootAllocator(); BigIntVector v = new BigIntVector("x", alloc)) {
      v.allocateNew(VALUES.length + 1);
      for (int i = 0; i < VALUES.length; i++) v.set(i, VALUES[i]);
      v.setNull(VALUES.length);
      v.setValueCount(VALUES.length + 1);
      try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(v))) {
        PhysicalExpr column = (b, a) -> new VectorValues(b.getVector(0), false);
        for (ArrowType to : List.of(SqlTypes.BIGINT, new ArrowType.Int(32, true), new ArrowType.Int(16, true),
            new ArrowType.Int(8, true), new ArrowType.Int(32, false), SqlTypes.DOUBLE)) {
          try (ColumnValues safe = ArithmeticKernels.cast(batch, alloc, column, SqlTypes.BIGINT, to, true, ctx)) {
            for (int i = 0; i < VALUES.length; i++) {
              Object want;
              try {
                want = Casts.cast(VALUES[i], SqlTypes.BIGINT, to, ZoneOffset.UTC);
              } catch (QuiverException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.DATA_ERROR);
                want = null;
              }
              assertThat(safe.getObject(i)).as("%d to %s", VALUES[i], to).isEqualTo(want);
            }
            assertThat(safe.isNull(VALUES.length)).isTrue();
          }
          boolean allFit = to.equals(SqlTypes.BIGINT) || to.equals(SqlTypes.DOUBLE);
          if (!allFit) {
            assertThatThrownBy(() -> ArithmeticKernels.cast(batch, alloc, column, SqlTypes.BIGINT, to, false, ctx))
                .isInstanceOfSatisfying(QuiverException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DATA_ERROR));
          }
        }
      }
    }
  }
}
