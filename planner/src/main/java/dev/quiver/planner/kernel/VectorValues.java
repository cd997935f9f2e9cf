package dev.quiver.planner.kernel;

import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Values backed by an Arrow vector. */
public final class VectorValues implements ColumnValues {
  private final FieldVector vector;
  private final boolean owned;
  private final ArrowType type;
  /** How {@link #getLong} reads this vector, decided once instead of per value. */
  private final int longKind;

  public VectorValues(FieldVector vector, boolean owned) {
    this.vector = vector;
    this.owned = owned;
    this.type = vector.getField().getType();
    if (vector instanceof UInt1Vector) longKind = 1;
    else if (vector instanceof UInt2Vector) longKind = 2;
    else if (vector instanceof UInt4Vector) longKind = 3;
    else if (vector instanceof org.apache.arrow.vector.BigIntVector) longKind = 4;
    else if (vector instanceof org.apache.arrow.vector.IntVector) longKind = 5;
    else if (vector instanceof DateDayVector) longKind = 6;
    else if (vector instanceof TimeStampVector) longKind = 7;
    else if (vector instanceof BaseIntVector) longKind = 8;
    else longKind = 0;
  }

  public ArrowType type() { return type; }

  /** Whether the batch has no NULL at all: counted once (a bit scan), then isNull needs no lookup. */
  private boolean noNulls() {
    if (nullState == 0) nullState = vector.getNullCount() == 0 ? (byte) 1 : (byte) 2;
    return nullState == 1;
  }

  /** 0: not counted yet, 1: no NULL in the batch, 2: some NULL. */
  private byte nullState;

  public boolean isNull(int i) { return !noNulls() && vector.isNull(i); }

  public long getLong(int i) {
    return switch (longKind) {
      case 1 -> ((UInt1Vector) vector).get(i) & 0xFFL;
      case 2 -> ((UInt2Vector) vector).get(i);
      case 3 -> ((UInt4Vector) vector).get(i) & 0xFFFFFFFFL;
      case 4 -> ((org.apache.arrow.vector.BigIntVector) vector).get(i);
      case 5 -> ((org.apache.arrow.vector.IntVector) vector).get(i);
      case 6 -> ((DateDayVector) vector).get(i);
      case 7 -> ((TimeStampVector) vector).get(i);
      case 8 -> ((BaseIntVector) vector).getValueAsLong(i);
      default -> throw QuiverException.internal("getLong on " + type);
    };
  }

  public double getDouble(int i) {
    if (vector instanceof Float8Vector f) return f.get(i);
    if (vector instanceof Float4Vector f) return f.get(i);
    throw QuiverException.internal("getDouble on " + type);
  }

  public BigDecimal getDecimal(int i) { return ((DecimalVector) vector).getObject(i); }

  /** The low 8 of the 16 little-endian bytes, if the high 8 are only its sign; else ArithmeticException. */
  public long getUnscaledLong(int i) {
    org.apache.arrow.memory.ArrowBuf data = ((DecimalVector) vector).getDataBuffer();
    long low = data.getLong((long) i * DecimalVector.TYPE_WIDTH);
    long high = data.getLong((long) i * DecimalVector.TYPE_WIDTH + 8);
    if (high != (low >> 63)) throw new ArithmeticException("decimal does not fit a long");
    return low;
  }

  public byte[] getBytes(int i) {
    if (vector instanceof VarCharVector v) return v.get(i);
    return ((VarBinaryVector) vector).get(i);
  }

  public boolean getBool(int i) { return ((BitVector) vector).get(i) == 1; }

  public Object getObject(int i) {
    if (vector.isNull(i)) return null;
    if (vector instanceof BitVector) return getBool(i);
    if (vector instanceof Float8Vector || vector instanceof Float4Vector) return getDouble(i);
    if (vector instanceof DecimalVector) return getDecimal(i);
    if (vector instanceof VarCharVector v) return new String(v.get(i), StandardCharsets.UTF_8);
    if (vector instanceof VarBinaryVector v) return v.get(i);
    return getLong(i);
  }

  public FieldVector vector() { return vector; }

  public boolean owned() { return owned; }

  public void close() {
    if (owned) vector.close();
  }
}
