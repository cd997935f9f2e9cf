package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.optimizer.simplify.CastUnwrapping.Converted;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code CAST(c AS T) [NOT] IN (literals)} becomes an IN list on c, without the items no value of c
 * can equal.
 * <p>Before: {@code CAST(a AS BIGINT) IN (NULL, 1, 9223372036854775807)} (a SMALLINT); after:
 * {@code a IN (NULL, 1)}.
 * <p>Legal for injective casts: an item that converts exactly stays (converted), one that cannot equal
 * any value is dropped (NULL items stay); with nothing left IN is a false guard, NOT IN a true one.
 */
public final class UnwrapCastInList implements ExprRule {
  @Override
  public String name() {
    return "UnwrapCastInList";
  }

  @Override
  public Expr apply(Expr node, OptimizerContext context) {
    if (!(node instanceof Expr.InList in) || !(in.value() instanceof Expr.Cast cast) || in.list().isEmpty()) return node;
    Expr c = cast.input();
    ArrowType s = c.type();
    if (c instanceof Expr.Literal || !CastUnwrapping.injective(s, cast.type())) return node;
    List<Expr> items = new ArrayList<>();
    for (Expr i : in.list()) {
      if (!(i instanceof Expr.Literal l)) return node;
      if (l.value() == null) {
        items.add(Expr.Literal.nullOf(s));
        continue;
      }
      Converted k = CastUnwrapping.convert(l.value(), cast.type(), s);
      if (k == null) continue; // a decimal with too many digits equals no value of c
      if (k.exact() || (k.position() == CastUnwrapping.Position.AT_MAX && k.value() != null)
          || (k.position() == CastUnwrapping.Position.AT_MIN && k.value() != null)) {
        items.add(new Expr.Literal(k.value(), s));
      }
    }
    if (items.isEmpty()) return in.negated() ? Guards.trueIfNotNull(c) : Guards.falseIfNotNull(c);
    return new Expr.InList(c, items, in.negated());
  }
}
