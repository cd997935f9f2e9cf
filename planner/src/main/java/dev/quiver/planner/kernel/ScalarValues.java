package dev.quiver.planner.kernel;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** A single value standing for every row of a batch (a literal); derived forms are computed once. */
public final class ScalarValues implements ColumnValues {
  private final Object value;
  private final ArrowType type;
  private final byte[] bytes;
  private final Long unscaled;

  public ScalarValues(Object value, ArrowType type) {
    this.value = value;
    this.type = type;
    this.bytes = value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : value instanceof byte[] b ? b : null;
    Long u = null;
    if (value instanceof BigDecimal d) {
      try {
        u = d.unscaledValue().longValueExact();
      } catch (ArithmeticException wide) {
        u = null;
      }
    }
    this.unscaled = u;
  }

  public Object value() { return value; }
  public ArrowType type() { return type; }
  public boolean isNull(int i) { return value == null; }
  public long getLong(int i) { return (Long) value; }
  public double getDouble(int i) { return (Double) value; }
  public BigDecimal getDecimal(int i) { return (BigDecimal) value; }
  public long getUnscaledLong(int i) {
    if (unscaled == null) throw new ArithmeticException("decimal does not fit a long");
    return unscaled;
  }
  public byte[] getBytes(int i) { return bytes; }
  public boolean getBool(int i) { return (Boolean) value; }
  public Object getObject(int i) { return value; }
  public FieldVector vector() { return null; }
  public boolean owned() { return false; }
  public void close() {}
}
