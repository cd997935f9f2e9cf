package dev.quiver.planner.kernel;

import java.math.BigDecimal;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The values of one expression over one batch, as kernels read them: a vector (owned by this object or
 * borrowed from the batch) or a scalar standing for every row. Accessors take the row index and must
 * only be called for non-null rows, with the accessor matching the type's family.
 */
public interface ColumnValues extends AutoCloseable {
  ArrowType type();

  boolean isNull(int i);

  long getLong(int i);

  double getDouble(int i);

  BigDecimal getDecimal(int i);

  /**
   * The unscaled value of a DECIMAL as a long, read without building a BigDecimal; ArithmeticException
   * when it does not fit (never for precision up to 18).
   */
  long getUnscaledLong(int i);

  byte[] getBytes(int i);

  boolean getBool(int i);

  /** The value in the physical form of {@link dev.quiver.common.Values}, or null. */
  Object getObject(int i);

  /** The vector behind these values, or null for a scalar. */
  FieldVector vector();

  /** Whether {@link #vector()} belongs to this object (and is closed with it). */
  boolean owned();

  @Override
  void close();
}
