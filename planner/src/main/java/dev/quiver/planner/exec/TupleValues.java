package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.PhysicalExpr;
import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Several columns of one batch read together as one aggregate argument (string_agg's value, then its ORDER BY
 * keys): a row is NULL when its value is; the accumulator reads {@link #parts()}.
 */
record TupleValues(ColumnValues[] parts) implements ColumnValues {
  /** An argument that evaluates every one of {@code exprs} over the batch. */
  static PhysicalExpr of(List<PhysicalExpr> exprs) {
    return (batch, allocator) -> {
      ColumnValues[] parts = new ColumnValues[exprs.size()];
      try {
        for (int i = 0; i < parts.length; i++) parts[i] = exprs.get(i).eval(batch, allocator);
      } catch (RuntimeException e) {
        for (ColumnValues p : parts) if (p != null) p.close();
        throw e;
      }
      return new TupleValues(parts);
    };
  }

  @Override public ArrowType type() { return parts[0].type(); }
  @Override public boolean isNull(int i) { return parts[0].isNull(i); }
  @Override public long getLong(int i) { return parts[0].getLong(i); }
  @Override public double getDouble(int i) { return parts[0].getDouble(i); }
  @Override public BigDecimal getDecimal(int i) { return parts[0].getDecimal(i); }
  @Override public long getUnscaledLong(int i) { return parts[0].getUnscaledLong(i); }
  @Override public byte[] getBytes(int i) { return parts[0].getBytes(i); }
  @Override public boolean getBool(int i) { return parts[0].getBool(i); }
  @Override public Object getObject(int i) { return parts[0].getObject(i); }
  @Override public FieldVector vector() { return null; }
  @Override public boolean owned() { return false; }
  @Override public void close() { for (ColumnValues p : parts) p.close(); }
}
