package dev.quiver.planner.source;

import dev.quiver.common.QuiverException;
import dev.quiver.scan.predicate.RowPredicate;
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
 * a might-match hint only, so ignoring it is always correct) and keeps only the rows the scan's filter keeps.
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
    List<Field> fields = new ArrayList<>();
    for (String c : spec.columns()) {
      Field f = field(c);
      if (f == null) throw QuiverException.internal("column " + c + " not in table " + name);
      fields.add(f);
    }
    int batchRows = Math.max(1, spec.batchRows());
    RowPredicate filter = spec.filter();
    List<Field> filterFields = new ArrayList<>();
    if (filter != null) for (String c : filter.columns()) filterFields.add(field(c));
    dev.quiver.scan.read.BatchPipeline.Factory pipeline = spec.pipeline();
    BatchReader read = new BatchReader() {
      int next;

      @Override
      public VectorSchemaRoot next() {
        while (next < rows.size()) {
          int n = Math.min(batchRows, rows.size() - next);
          List<List<Object>> batch = rows.subList(next, next + n);
          next += n;
          metrics.scanned(n, 0);
          if (filter != null) {
            boolean[] keep = new boolean[n];
            int kept;
            try (VectorSchemaRoot tested = write(filterFields, batch)) {
              kept = filter.select(tested, allocator, keep);
            }
            metrics.filteredLate(n - kept);
            if (kept == 0) continue;
            List<List<Object>> passed = new ArrayList<>(kept);
            for (int i = 0; i < n; i++) if (keep[i]) passed.add(batch.get(i));
            batch = passed;
          }
          return write(fields, batch);
        }
        return null;
      }

      private VectorSchemaRoot write(List<Field> columns, List<List<Object>> batch) {
        int n = batch.size();
        List<FieldVector> vectors = new ArrayList<>(columns.size());
        try {
          for (Field f : columns) {
            int at = schema.getFields().indexOf(f);
            FieldVector v = f.createVector(allocator);
            vectors.add(v);
            v.setInitialCapacity(n);
            v.allocateNew();
            for (int i = 0; i < n; i++) Vectors.set(v, i, batch.get(i).get(at));
            v.setValueCount(n);
          }
        } catch (RuntimeException | Error e) {
          vectors.forEach(FieldVector::close);
          throw e;
        }
        return new VectorSchemaRoot(columns, vectors, n);
      }

      @Override
      public void close() {}
    };
    return pipeline == null ? read : pipelined(read, pipeline);
  }

  /**
   * Runs a pipeline over each batch of {@code read} as if every batch were a row-group task of its own (a
   * pipeline per batch: accept, finish, close), so that what runs in a Parquet scan's tasks is tested here too.
   */
  private static BatchReader pipelined(BatchReader read, dev.quiver.scan.read.BatchPipeline.Factory pipeline) {
    return new BatchReader() {
      final java.util.ArrayDeque<VectorSchemaRoot> ready = new java.util.ArrayDeque<>();

      @Override
      public VectorSchemaRoot next() {
        while (ready.isEmpty()) {
          VectorSchemaRoot b = read.next();
          if (b == null) return null;
          List<VectorSchemaRoot> out = new ArrayList<>();
          try (dev.quiver.scan.read.BatchPipeline p = pipeline.create()) {
            p.accept(b, out);
            p.finish(out);
          } catch (RuntimeException | Error e) {
            out.forEach(VectorSchemaRoot::close);
            throw e;
          }
          ready.addAll(out);
        }
        return ready.poll();
      }

      @Override
      public void close() {
        ready.forEach(VectorSchemaRoot::close);
        ready.clear();
        read.close();
      }
    };
  }
}
