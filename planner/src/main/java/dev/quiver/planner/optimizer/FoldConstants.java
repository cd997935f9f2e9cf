package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Replaces a column-free subtree by its value, computed by the query kernels on a one-row batch.
 * Bottom-up, so a node only checks whether its children are already literals.
 * <p>Before: {@code l_shipdate < CAST('1995-01-01' AS DATE)}; after: {@code l_shipdate < DATE '1995-01-01'}.
 * <p>Legal because the kernels that would compute the value per row at run time compute it once here.
 * An error while folding leaves the subtree for run time (it might never run), except for a CAST of a
 * literal, which fails the query now with the cast's message.
 */
public final class FoldConstants extends ExpressionRule {
  private static final Schema EMPTY = new Schema(List.of());

  @Override
  public String name() {
    return "FoldConstants";
  }

  @Override
  Expr rewrite(Expr e, OptimizerContext context) {
    return Exprs.transformUp(e, node -> fold(node, context));
  }

  private static Expr fold(Expr node, OptimizerContext context) {
    if (node.children().isEmpty()) return node; // literals stay; columns never fold
    for (Expr c : node.children()) {
      if (!(c instanceof Expr.Literal)) return node;
    }
    try (VectorSchemaRoot oneRow = VectorSchemaRoot.create(EMPTY, context.allocator())) {
      oneRow.setRowCount(1);
      try (ColumnValues v = ExprCompiler.compile(node, EMPTY).eval(oneRow, context.allocator())) {
        return new Expr.Literal(v.getObject(0), node.type());
      }
    } catch (QuiverException ex) {
      if (node instanceof Expr.Cast && ex.code() == ErrorCode.DATA_ERROR) throw ex;
      if (ex.code() == ErrorCode.DATA_ERROR) return node;
      throw ex;
    }
  }
}
