package dev.quiver.planner.kernel;

import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Creating result vectors and writing physical-form values into them. */
public final class Vectors {
  private Vectors() {}

  /** A new, allocated vector of {@code type} with room for {@code n} values, all null. */
  public static FieldVector create(String name, ArrowType type, BufferAllocator allocator, int n) {
    FieldVector v = new Field(name, FieldType.nullable(type), null).createVector(allocator);
    v.setInitialCapacity(Math.max(n, 1));
    v.allocateNew();
    return v;
  }

  /** Writes a value in physical form (null writes NULL). */
  public static void set(FieldVector v, int i, Object value) {
    if (value == null) {
      v.setNull(i);
    } else if (v instanceof BitVector b) {
      b.setSafe(i, (Boolean) value ? 1 : 0);
    } else if (v instanceof Float8Vector f) {
      f.setSafe(i, (Double) value);
    } else if (v instanceof Float4Vector f) {
      f.setSafe(i, (float) (double) (Double) value);
    } else if (v instanceof DecimalVector d) {
      d.setSafe(i, (BigDecimal) value);
    } else if (v instanceof VarCharVector s) {
      s.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof VarBinaryVector b) {
      b.setSafe(i, (byte[]) value);
    } else {
      setLong(v, i, (Long) value);
    }
  }

  public static void setLong(FieldVector v, int i, long value) {
    if (v instanceof BigIntVector b) b.setSafe(i, value);
    else if (v instanceof IntVector b) b.setSafe(i, (int) value);
    else if (v instanceof SmallIntVector b) b.setSafe(i, (short) value);
    else if (v instanceof TinyIntVector b) b.setSafe(i, (byte) value);
    else if (v instanceof DateDayVector b) b.setSafe(i, (int) value);
    else if (v instanceof TimeStampVector b) b.setSafe(i, value);
    else if (v instanceof UInt8Vector b) b.setSafe(i, value);
    else if (v instanceof UInt4Vector b) b.setSafe(i, (int) value);
    else if (v instanceof UInt2Vector b) b.setSafe(i, (char) value);
    else if (v instanceof UInt1Vector b) b.setSafe(i, (byte) value);
    else throw QuiverException.internal("setLong on " + v.getField().getType());
  }
}
