package dev.quiver.planner.kernel;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
/** The boolean kernels: three-valued AND / OR, NOT, IS [NOT] NULL, and CASE, which evaluates each branch on its rows only. */
final class LogicKernels {
  private LogicKernels() {}

  /** Three-valued AND / OR. */
  public static ColumnValues logical(VectorSchemaRoot batch, BufferAllocator alloc, boolean and,
      PhysicalExpr left, PhysicalExpr right) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      BitVector out = Kernels.newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        boolean an = a.isNull(i);
        boolean bn = b.isNull(i);
        boolean av = !an && a.getBool(i);
        boolean bv = !bn && b.getBool(i);
        if (and) {
          if ((!an && !av) || (!bn && !bv)) out.set(i, 0);
          else if (!an && !bn) out.set(i, 1);
        } else {
          if (av || bv) out.set(i, 1);
          else if (!an && !bn) out.set(i, 0);
        }
      }
      return Kernels.done(out, n);
    }
  }

  public static ColumnValues not(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      BitVector out = Kernels.newBool(alloc, n);
      for (int i = 0; i < n; i++) {
        if (!a.isNull(i)) out.set(i, a.getBool(i) ? 0 : 1);
      }
      return Kernels.done(out, n);
    }
  }

  public static ColumnValues isNull(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in, boolean negated) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      BitVector out = Kernels.newBool(alloc, n);
      for (int i = 0; i < n; i++) out.set(i, a.isNull(i) != negated ? 1 : 0);
      return Kernels.done(out, n);
    }
  }

  /** CASE: the first WHEN whose condition is TRUE gives the row's result; its branch alone is evaluated for it. */
  public static ColumnValues caseWhen(VectorSchemaRoot batch, BufferAllocator alloc, List<PhysicalExpr> conditions,
      List<PhysicalExpr> results, PhysicalExpr otherwise, ArrowType type) {
    int n = batch.getRowCount();
    FieldVector out = Vectors.create("", type, alloc, n);
    boolean[] decided = new boolean[n];
    // branches decide rows out of order; variable-width vectors must be written in row order
    Object[] values = new Object[n];
    try {
      for (int w = 0; w <= conditions.size(); w++) {
        int[] rows = new int[n];
        int count = 0;
        if (w < conditions.size()) {
          try (ColumnValues c = conditions.get(w).eval(batch, alloc)) {
            for (int i = 0; i < n; i++) {
              if (!decided[i] && !c.isNull(i) && c.getBool(i)) rows[count++] = i;
            }
          }
        } else {
          for (int i = 0; i < n; i++) if (!decided[i]) rows[count++] = i;
        }
        if (count == 0) continue;
        // evaluate the branch only on the rows that take it, so errors of other branches never surface
        try (VectorSchemaRoot sub = count == n ? null : takeRows(batch, rows, count, alloc)) {
          VectorSchemaRoot src = sub == null ? batch : sub;
          try (ColumnValues r = (w < conditions.size() ? results.get(w) : otherwise).eval(src, alloc)) {
            for (int k = 0; k < count; k++) {
              values[rows[k]] = r.getObject(k);
              decided[rows[k]] = true;
            }
          }
        }
      }
      for (int i = 0; i < n; i++) Vectors.set(out, i, values[i]);
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
    return Kernels.done(out, n);
  }

  private static VectorSchemaRoot takeRows(VectorSchemaRoot batch, int[] rows, int count, BufferAllocator alloc) {
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector src : batch.getFieldVectors()) {
      FieldVector dst = src.getField().createVector(alloc);
      vectors.add(dst);
      dst.setInitialCapacity(count);
      dst.allocateNew();
      for (int i = 0; i < count; i++) dst.copyFromSafe(rows[i], i, src);
      dst.setValueCount(count);
    }
    VectorSchemaRoot r = new VectorSchemaRoot(batch.getSchema().getFields(), vectors, count);
    r.setRowCount(count);
    return r;
  }
}
