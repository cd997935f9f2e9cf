package dev.quiver.planner.kernel;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** A single value standing for every row of a batch (a literal). */
public record ScalarValues(Object value, ArrowType type) implements ColumnValues {
  public boolean isNull(int i) { return value == null; }
  public long getLong(int i) { return (Long) value; }
  public double getDouble(int i) { return (Double) value; }
  public BigDecimal getDecimal(int i) { return (BigDecimal) value; }
  public long getUnscaledLong(int i) { return ((BigDecimal) value).unscaledValue().longValueExact(); }
  public byte[] getBytes(int i) {
    return value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) value;
  }
  public boolean getBool(int i) { return (Boolean) value; }
  public Object getObject(int i) { return value; }
  public FieldVector vector() { return null; }
  public boolean owned() { return false; }
  public void close() {}
}
