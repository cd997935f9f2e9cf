package dev.quiver.planner.source;

import dev.quiver.common.QuiverException;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.scan.prune.ScanMetrics;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table held in memory as rows of values in physical form ({@link dev.quiver.common.Values}): for plan-rule
 * tests and operator benchmarks that should not need files. A scan writes the requested columns into new
 * vectors of the query's allocator, {@code batchRows} rows at a time; it prunes nothing (the pushed predicate is
 * a might-match hint only, so ignoring it is always correct).
 */
public record MemoryTable(String name, Schema schema, List<List<Object>> rows) implements TableSource {
  public MemoryTable {
    List<List<Object>> copy = new ArrayList<>(rows.size());
    for (List<Object> r : rows) {
      if (r.size() != schema.getFields().size()) {
        throw new IllegalArgumentException("row " + r + " has " + r.size() + " values for " + schema.getFields().size() + " columns");
      }
      copy.add(java.util.Collections.unmodifiableList(new ArrayList<>(r)));
    }
    rows = java.util.Collections.unmodifiableList(copy);
  }

  @Override public long rowCount() { return rows.size(); }

  @Override
  public String describeScan() {
    return "MemoryScanExec: table=" + name + " rows=" + rows.size();
  }

  @Override
  public BatchReader open(ScanSpec spec, BufferAllocator allocator, ScanMetrics metrics) {
    int[] index = new int[spec.columns().size()];
    List<Field> fields = new ArrayList<>();
    for (int c = 0; c < index.length; c++) {
      Field f = field(spec.columns().get(c));
      if (f == null) throw QuiverException.internal("column " + spec.columns().get(c) + " not in table " + name);
      index[c] = schema.getFields().indexOf(f);
      fields.add(f);
    }
    int batchRows = Math.max(1, spec.batchRows());
    return new BatchReader() {
      int next;

      @Override
      public VectorSchemaRoot next() {
        if (next >= rows.size()) return null;
        int n = Math.min(batchRows, rows.size() - next);
        List<FieldVector> vectors = new ArrayList<>(fields.size());
        try {
          for (int c = 0; c < fields.size(); c++) {
            FieldVector v = fields.get(c).createVector(allocator);
            vectors.add(v);
            v.setInitialCapacity(n);
            v.allocateNew();
            for (int i = 0; i < n; i++) Vectors.set(v, i, rows.get(next + i).get(index[c]));
            v.setValueCount(n);
          }
        } catch (RuntimeException | Error e) {
          vectors.forEach(FieldVector::close);
          throw e;
        }
        metrics.scanned(n, 0);
        next += n;
        return new VectorSchemaRoot(fields, vectors, n);
      }

      @Override
      public void close() {}
    };
  }
}
