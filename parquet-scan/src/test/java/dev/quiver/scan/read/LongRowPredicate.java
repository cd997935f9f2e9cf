package dev.quiver.scan.read;

import dev.quiver.scan.predicate.RowPredicate;
import java.util.List;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A row predicate for scan tests (the planner implements the real one): keeps the rows whose integer
 * {@code column} is not NULL and passes {@code test} (unsigned vectors give their unsigned value). Counts
 * its calls so tests can see it ran.
 */
record LongRowPredicate(String column, LongPredicate test, java.util.concurrent.atomic.AtomicLong calls)
    implements RowPredicate {
  LongRowPredicate(String column, LongPredicate test) {
    this(column, test, new java.util.concurrent.atomic.AtomicLong());
  }

  @Override
  public List<String> columns() {
    return List.of(column);
  }

  @Override
  public int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep) {
    calls.incrementAndGet();
    if (batch.getFieldVectors().size() != 1 || !batch.getVector(0).getName().equals(column)) {
      throw new AssertionError("expected a batch of " + column + ", got " + batch.getSchema());
    }
    FieldVector v = batch.getVector(0);
    int count = 0;
    for (int i = 0; i < batch.getRowCount(); i++) {
      keep[i] = !v.isNull(i) && test.test(((BaseIntVector) v).getValueAsLong(i));
      if (keep[i]) count++;
    }
    return count;
  }
}
