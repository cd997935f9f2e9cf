package dev.quiver.planner.expr;

/** A visitor over {@link Expr}; every node kind must be handled. */
public interface ExprVisitor<R> {
  R visitColumn(Expr.ColumnRef e);
  R visitLiteral(Expr.Literal e);
  R visitCast(Expr.Cast e);
  R visitArithmetic(Expr.Arithmetic e);
  R visitNegate(Expr.Negate e);
  R visitComparison(Expr.Comparison e);
  R visitAnd(Expr.And e);
  R visitOr(Expr.Or e);
  R visitNot(Expr.Not e);
  R visitIsNull(Expr.IsNull e);
  R visitInList(Expr.InList e);
  R visitDistinctFrom(Expr.DistinctFrom e);
  R visitLike(Expr.Like e);
  R visitCall(Expr.Call e);
  R visitCase(Expr.Case e);
}
