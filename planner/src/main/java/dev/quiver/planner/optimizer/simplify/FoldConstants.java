package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Replaces a node whose children are all literals by its value, computed by the query kernels on a
 * one-row batch.
 * <p>Before: {@code l_shipdate < CAST('1995-01-01' AS DATE)}; after: {@code l_shipdate < DATE '1995-01-01'}.
 * <p>Legal because the kernels that would compute the value per row at run time compute it once here.
 * Volatile calls ({@code random()}) never fold; stable ones ({@code now()}) fold to the query's start.
 * An error while folding leaves the node for run time (it may never run), except for a CAST of a
 * literal, which fails the query now with the cast's message.
 */
public final class FoldConstants implements ExprRule {
  private static final Schema EMPTY = new Schema(List.of());

  @Override
  public String name() {
    return "FoldConstants";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (node instanceof Expr.Literal || node instanceof Expr.ColumnRef) return node;
    if (node instanceof Expr.Call c && c.volatility() == Expr.Volatility.VOLATILE) return node;
    for (Expr c : node.children()) {
      if (!(c instanceof Expr.Literal)) return node;
    }
    try (VectorSchemaRoot oneRow = VectorSchemaRoot.create(EMPTY, context.allocator())) {
      oneRow.setRowCount(1);
      try (ColumnValues v = ExprCompiler.compile(node, EMPTY, context.eval()).eval(oneRow, context.allocator())) {
        return new Expr.Literal(v.getObject(0), node.type());
      }
    } catch (QuiverException ex) {
      if (ex.code() != ErrorCode.DATA_ERROR) throw ex;
      if (node instanceof Expr.Cast) throw ex;
      return node;
    }
  }
}
