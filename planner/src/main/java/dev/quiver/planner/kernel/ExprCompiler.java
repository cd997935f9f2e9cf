package dev.quiver.planner.kernel;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.ExprVisitor;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Compiles {@link Expr} trees into {@link PhysicalExpr}s over an input schema. The same compiled
 * kernels run queries and fold constants (on a one-row batch), so both agree by construction.
 */
public final class ExprCompiler implements ExprVisitor<PhysicalExpr> {
  private final Schema input;
  private final EvalContext ctx;

  private ExprCompiler(Schema input, EvalContext ctx) {
    this.input = input;
    this.ctx = ctx;
  }

  public static PhysicalExpr compile(Expr e, Schema input, EvalContext ctx) {
    return e.accept(new ExprCompiler(input, ctx));
  }

  @Override
  public PhysicalExpr visitColumn(Expr.ColumnRef e) {
    List<Field> fields = input.getFields();
    int index = -1;
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(e.name())) {
        index = i;
        break;
      }
    }
    if (index < 0) throw QuiverException.internal("column " + e.name() + " not in input " + input);
    int at = index;
    return (batch, alloc) -> {
      FieldVector v = batch.getVector(at);
      return new VectorValues(v, false);
    };
  }

  @Override
  public PhysicalExpr visitLiteral(Expr.Literal e) {
    ScalarValues s = new ScalarValues(e.value(), e.type());
    return (batch, alloc) -> s;
  }

  @Override
  public PhysicalExpr visitCast(Expr.Cast e) {
    PhysicalExpr in = e.input().accept(this);
    return (batch, alloc) -> ArithmeticKernels.cast(batch, alloc, in, e.input().type(), e.type(), e.safe(), ctx);
  }

  @Override
  public PhysicalExpr visitArithmetic(Expr.Arithmetic e) {
    PhysicalExpr l = e.left().accept(this);
    PhysicalExpr r = e.right().accept(this);
    return (batch, alloc) -> ArithmeticKernels.arithmetic(batch, alloc, e.op(), l, r, e.type());
  }

  @Override
  public PhysicalExpr visitNegate(Expr.Negate e) {
    PhysicalExpr in = e.input().accept(this);
    return (batch, alloc) -> ArithmeticKernels.negate(batch, alloc, in, e.type());
  }

  @Override
  public PhysicalExpr visitComparison(Expr.Comparison e) {
    PhysicalExpr l = e.left().accept(this);
    PhysicalExpr r = e.right().accept(this);
    Kernels.Family family = Kernels.family(e.left().type());
    return (batch, alloc) -> Kernels.compare(batch, alloc, e.op(), family, l, r);
  }

  @Override
  public PhysicalExpr visitAnd(Expr.And e) {
    PhysicalExpr l = e.left().accept(this);
    PhysicalExpr r = e.right().accept(this);
    return (batch, alloc) -> LogicKernels.logical(batch, alloc, true, l, r);
  }

  @Override
  public PhysicalExpr visitOr(Expr.Or e) {
    PhysicalExpr l = e.left().accept(this);
    PhysicalExpr r = e.right().accept(this);
    return (batch, alloc) -> LogicKernels.logical(batch, alloc, false, l, r);
  }

  @Override
  public PhysicalExpr visitNot(Expr.Not e) {
    PhysicalExpr in = e.input().accept(this);
    return (batch, alloc) -> LogicKernels.not(batch, alloc, in);
  }

  @Override
  public PhysicalExpr visitIsNull(Expr.IsNull e) {
    PhysicalExpr in = e.input().accept(this);
    return (batch, alloc) -> LogicKernels.isNull(batch, alloc, in, e.negated());
  }

  @Override
  public PhysicalExpr visitInList(Expr.InList e) {
    PhysicalExpr value = e.value().accept(this);
    List<PhysicalExpr> items = new ArrayList<>();
    for (Expr x : e.list()) items.add(x.accept(this));
    Kernels.Family family = Kernels.family(e.value().type());
    if (family == Kernels.Family.BYTES && !e.list().isEmpty() && e.list().stream().allMatch(x -> x instanceof Expr.Literal)) {
      // constant strings: each row's bytes compared in place with the items' (no copy of the value per row)
      Kernels.BytesItems set = new Kernels.BytesItems(items);
      return (batch, alloc) -> Kernels.inBytes(batch, alloc, value, set, e.negated());
    }
    if (items.size() >= Kernels.IN_SET_ITEMS && family != Kernels.Family.NULL
        && e.list().stream().allMatch(x -> x instanceof Expr.Literal)) {
      // constant items: read once into a hash set, probed once per row
      Kernels.InSet set = new Kernels.InSet(family, items);
      return (batch, alloc) -> Kernels.in(batch, alloc, value, set, e.negated());
    }
    return (batch, alloc) -> Kernels.in(batch, alloc, family, value, items, e.negated());
  }

  @Override
  public PhysicalExpr visitDistinctFrom(Expr.DistinctFrom e) {
    PhysicalExpr l = e.left().accept(this);
    PhysicalExpr r = e.right().accept(this);
    Kernels.Family family = Kernels.family(e.left().type());
    return (batch, alloc) -> Kernels.distinctFrom(batch, alloc, family, l, r, e.not());
  }

  @Override
  public PhysicalExpr visitLike(Expr.Like e) {
    PhysicalExpr in = e.input().accept(this);
    PhysicalExpr pattern = e.pattern().accept(this);
    return (batch, alloc) -> LikeKernels.like(batch, alloc, in, pattern, e.caseInsensitive(), e.negated());
  }

  @Override
  public PhysicalExpr visitCall(Expr.Call e) {
    Functions.Def def = Functions.lookup(e.name());
    if (def == null) throw QuiverException.internal("unknown function " + e.name());
    List<PhysicalExpr> args = new ArrayList<>();
    ArrowType[] types = new ArrowType[e.args().size()];
    for (int i = 0; i < types.length; i++) {
      args.add(e.args().get(i).accept(this));
      types[i] = e.args().get(i).type();
    }
    return (batch, alloc) -> Functions.call(batch, alloc, def, args, types, e.type(), ctx);
  }

  @Override
  public PhysicalExpr visitCase(Expr.Case e) {
    List<PhysicalExpr> conditions = new ArrayList<>();
    List<PhysicalExpr> results = new ArrayList<>();
    for (Expr.When w : e.whens()) {
      conditions.add(w.condition().accept(this));
      results.add(w.result().accept(this));
    }
    PhysicalExpr otherwise = e.otherwise().accept(this);
    return (batch, alloc) -> LogicKernels.caseWhen(batch, alloc, conditions, results, otherwise, e.type());
  }
}
