package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The input of a scalar subquery: at most one row, or the query fails. With key columns (a correlated scalar
 * subquery planned once for every outer value, the keys being that value), at most one row per distinct key: the
 * batches stream through, and the keys seen so far are remembered (one entry per outer value, charged to the
 * query's memory limit).
 */
public final class EnforceSingleRowExec extends Operator {
  private final Operator input;
  private final Schema schema;
  private final List<String> keys;
  private final Set<List<Object>> seen = new HashSet<>();
  private final MemoryReservation memory;
  private boolean done;

  EnforceSingleRowExec(Operator input, Schema schema) {
    this(input, schema, List.of(), null);
  }

  EnforceSingleRowExec(Operator input, Schema schema, List<String> keys, org.apache.arrow.memory.BufferAllocator allocator) {
    this.input = input;
    this.schema = schema;
    this.keys = List.copyOf(keys);
    this.memory = keys.isEmpty() || allocator == null ? null
        : new MemoryReservation(allocator, "the check of a correlated scalar subquery's rows");
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      if (memory != null) memory.close();
    }
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() {
    return keys.isEmpty() ? "EnforceSingleRowExec" : "EnforceSingleRowExec: per " + String.join(", ", keys);
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (!keys.isEmpty()) return perKey();
    if (done) return null;
    done = true;
    VectorSchemaRoot row = null;
    VectorSchemaRoot b;
    while ((b = input.next()) != null) {
      if (b.getRowCount() == 0) {
        b.close();
        continue;
      }
      if (row != null || b.getRowCount() > 1) {
        b.close();
        if (row != null) row.close();
        throw new QuiverException(ErrorCode.DATA_ERROR, "a scalar subquery returned more than one row");
      }
      row = b;
    }
    if (row == null) return null;
    return Rows.root(schema.getFields(), new ArrayList<>(row.getFieldVectors()), 1);
  }

  private VectorSchemaRoot perKey() {
    VectorSchemaRoot b = input.next();
    if (b == null) return null;
    List<FieldVector> keyVectors = new ArrayList<>();
    for (String k : keys) keyVectors.add(b.getVector(k));
    for (int row = 0; row < b.getRowCount(); row++) {
      List<Object> key = new ArrayList<>(keyVectors.size());
      for (FieldVector v : keyVectors) key.add(v.getObject(row));
      // a hash set entry, the key list and its boxed values
      if (memory != null) memory.add(64 + 24L * keyVectors.size());
      if (!seen.add(key)) {
        b.close();
        throw new QuiverException(ErrorCode.DATA_ERROR,
            "more than one row returned by a subquery used as an expression (a correlated scalar subquery)");
      }
    }
    return Rows.root(schema.getFields(), new ArrayList<>(b.getFieldVectors()), b.getRowCount());
  }
}
