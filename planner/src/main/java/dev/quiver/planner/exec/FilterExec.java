package dev.quiver.planner.exec;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Keeps the rows for which the condition is TRUE (not FALSE, not NULL). */
public final class FilterExec extends Operator {
  private final Operator input;
  private final Expr condition;
  private final PhysicalExpr compiled;
  private final BufferAllocator allocator;

  FilterExec(Operator input, Expr condition, BufferAllocator allocator, dev.quiver.planner.kernel.EvalContext ctx) {
    this.input = input;
    this.condition = condition;
    this.compiled = ExprCompiler.compile(condition, input.schema(), ctx);
    this.allocator = allocator;
  }

  @Override public Schema schema() { return input.schema(); }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() { return "FilterExec: " + condition; }

  @Override
  protected VectorSchemaRoot produce() {
    while (true) {
      VectorSchemaRoot batch = input.next();
      if (batch == null) return null;
      VectorSchemaRoot kept = filter(batch, compiled, allocator);
      if (kept != null) return kept;
    }
  }

  /**
   * The rows of {@code batch} for which {@code condition} is TRUE: {@code batch} itself when all are, else a new
   * batch ({@code batch} closed), or null when none is ({@code batch} closed). On an error {@code batch} is closed.
   */
  static VectorSchemaRoot filter(VectorSchemaRoot batch, PhysicalExpr condition, BufferAllocator allocator) {
    int n = batch.getRowCount();
    int[] selected = new int[n];
    int count = 0;
    try (ColumnValues mask = condition.eval(batch, allocator)) {
      count = dev.quiver.planner.kernel.BatchValues.selectTrue(mask, n, selected);
    } catch (RuntimeException | Error e) {
      batch.close();
      throw e;
    }
    if (count == n) return batch;
    if (count == 0) {
      batch.close();
      return null;
    }
    try (batch) {
      return take(batch, selected, count, allocator);
    }
  }

  /**
   * Copies the selected rows of a fixed-width vector run by run: one memory copy per run of consecutive
   * rows for the values, then the validity bits.
   */
  static void copyRuns(org.apache.arrow.vector.BaseFixedWidthVector src, org.apache.arrow.vector.BaseFixedWidthVector dst,
      int[] selected, int count) {
    int width = src.getTypeWidth();
    org.apache.arrow.memory.ArrowBuf from = src.getDataBuffer();
    org.apache.arrow.memory.ArrowBuf to = dst.getDataBuffer();
    org.apache.arrow.memory.ArrowBuf validity = dst.getValidityBuffer();
    int i = 0;
    while (i < count) {
      int start = i;
      while (i + 1 < count && selected[i + 1] == selected[i] + 1) i++;
      int len = i - start + 1;
      to.setBytes((long) start * width, from, (long) selected[start] * width, (long) len * width);
      i++;
    }
    for (int k = 0; k < count; k++) {
      org.apache.arrow.vector.BitVectorHelper.setValidityBit(validity, k, src.isNull(selected[k]) ? 0 : 1);
    }
  }

  /** A new batch with rows {@code selected[0..count)} of {@code batch}. */
  static VectorSchemaRoot take(VectorSchemaRoot batch, int[] selected, int count, BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    try {
      for (FieldVector src : batch.getFieldVectors()) {
        FieldVector dst = src.getField().createVector(allocator);
        out.add(dst);
        fields.add(src.getField());
        dst.setInitialCapacity(count);
        dst.allocateNew();
        if (src instanceof org.apache.arrow.vector.BaseFixedWidthVector f && !(src instanceof org.apache.arrow.vector.BitVector)) {
          copyRuns(f, (org.apache.arrow.vector.BaseFixedWidthVector) dst, selected, count);
        } else {
          for (int i = 0; i < count; i++) dst.copyFromSafe(selected[i], i, src);
        }
        dst.setValueCount(count);
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    VectorSchemaRoot root = new VectorSchemaRoot(fields, out, count);
    root.setRowCount(count);
    return root;
  }
}
