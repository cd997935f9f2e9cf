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

  /**
   * Three-valued AND / OR. Over two boolean vectors a word of 64 rows at a time on the validity and value bits
   * (AND: FALSE if either is FALSE, TRUE if both are TRUE, else NULL; OR the mirror image); row by row when
   * either side is a scalar.
   */
  public static ColumnValues logical(VectorSchemaRoot batch, BufferAllocator alloc, boolean and,
      PhysicalExpr left, PhysicalExpr right) {
    int n = batch.getRowCount();
    try (ColumnValues a = left.eval(batch, alloc); ColumnValues b = right.eval(batch, alloc)) {
      BitVector out = Kernels.newBool(alloc, n);
      if (a.vector() instanceof BitVector av && b.vector() instanceof BitVector bv) {
        logicalWords(and, av, bv, out, n);
        return Kernels.done(out, n);
      }
      for (int i = 0; i < n; i++) {
        boolean an = a.isNull(i);
        boolean bn = b.isNull(i);
        boolean avl = !an && a.getBool(i);
        boolean bvl = !bn && b.getBool(i);
        if (and) {
          if ((!an && !avl) || (!bn && !bvl)) out.set(i, 0);
          else if (!an && !bn) out.set(i, 1);
        } else {
          if (avl || bvl) out.set(i, 1);
          else if (!an && !bn) out.set(i, 0);
        }
      }
      return Kernels.done(out, n);
    }
  }

  private static void logicalWords(boolean and, BitVector a, BitVector b, BitVector out, int n) {
    org.apache.arrow.memory.ArrowBuf av = a.getValidityBuffer();
    org.apache.arrow.memory.ArrowBuf ad = a.getDataBuffer();
    org.apache.arrow.memory.ArrowBuf bv = b.getValidityBuffer();
    org.apache.arrow.memory.ArrowBuf bd = b.getDataBuffer();
    org.apache.arrow.memory.ArrowBuf ov = out.getValidityBuffer();
    org.apache.arrow.memory.ArrowBuf od = out.getDataBuffer();
    int bytes = (n + 7) >>> 3;
    int i = 0;
    for (; i + 8 <= bytes; i += 8) {
      long at = av.getLong(i) & ad.getLong(i);
      long af = av.getLong(i) & ~ad.getLong(i);
      long bt = bv.getLong(i) & bd.getLong(i);
      long bf = bv.getLong(i) & ~bd.getLong(i);
      long t = and ? at & bt : at | bt;
      long f = and ? af | bf : af & bf;
      ov.setLong(i, t | f);
      od.setLong(i, t);
    }
    for (; i < bytes; i++) {
      int at = av.getByte(i) & ad.getByte(i);
      int af = av.getByte(i) & ~ad.getByte(i);
      int bt = bv.getByte(i) & bd.getByte(i);
      int bf = bv.getByte(i) & ~bd.getByte(i);
      int t = and ? at & bt : at | bt;
      int f = and ? af | bf : af & bf;
      ov.setByte(i, t | f);
      od.setByte(i, t);
    }
  }

  public static ColumnValues not(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr in) {
    int n = batch.getRowCount();
    try (ColumnValues a = in.eval(batch, alloc)) {
      BitVector out = Kernels.newBool(alloc, n);
      if (a.vector() instanceof BitVector av) {
        // NOT keeps the validity and flips the values of the valid rows
        org.apache.arrow.memory.ArrowBuf v = av.getValidityBuffer();
        org.apache.arrow.memory.ArrowBuf d = av.getDataBuffer();
        org.apache.arrow.memory.ArrowBuf ov = out.getValidityBuffer();
        org.apache.arrow.memory.ArrowBuf od = out.getDataBuffer();
        int bytes = (n + 7) >>> 3;
        int i = 0;
        for (; i + 8 <= bytes; i += 8) {
          long valid = v.getLong(i);
          ov.setLong(i, valid);
          od.setLong(i, valid & ~d.getLong(i));
        }
        for (; i < bytes; i++) {
          int valid = v.getByte(i);
          ov.setByte(i, valid);
          od.setByte(i, valid & ~d.getByte(i));
        }
        return Kernels.done(out, n);
      }
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
