package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Expr.CmpOp;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.operators.relational.IsDistinctExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Binds comparisons and the predicates built on them: {@code BETWEEN}, {@code IN (list)}, {@code IS [NOT] DISTINCT
 * FROM}, {@code LIKE}/{@code ILIKE}, and {@code CASE}, whose WHEN values are compared with its subject.
 */
final class PredicateBinder {
  private final ExprBinder binder;

  PredicateBinder(ExprBinder binder) {
    this.binder = binder;
  }

  Expr comparison(CmpOp op, BinaryExpression b) {
    if (b.getRightExpression() instanceof net.sf.jsqlparser.expression.AnyComparisonExpression any) {
      ExprBinder.Subqueries subqueries = binder.subqueries(b);
      Expr value = ExprBinder.settleParameters(binder.bind(b.getLeftExpression()));
      return subqueries.any(op, value, any.getSelect(), any.getAnyType() == net.sf.jsqlparser.expression.AnyType.ALL, b);
    }
    return compare(op, binder.bind(b.getLeftExpression()), binder.bind(b.getRightExpression()), b);
  }

  Expr compare(CmpOp op, Expr l0, Expr r0, Object text) {
    Expr l = Coercion.materialize(l0, r0);
    Expr r = Coercion.materialize(r0, l);
    ArrowType t = Coercion.meet(l, r, text, binder.constantsTakeOtherSideType);
    return new Expr.Comparison(op, Coercion.coerce(l, t), Coercion.coerce(r, t));
  }

  Expr in(InExpression in) {
    Expression right = in.getRightExpression();
    if (right instanceof net.sf.jsqlparser.statement.select.Select sub) {
      ExprBinder.Subqueries subqueries = binder.subqueries(in);
      Expr value = ExprBinder.settleParameters(binder.bind(in.getLeftExpression()));
      Expr result = subqueries.in(value, sub, in);
      return in.isNot() ? new Expr.Not(result) : result;
    }
    if (!(right instanceof ExpressionList<?> list)) {
      throw QuiverException.unsupported("IN over " + SqlPositions.snippet(right));
    }
    if (list.size() > binder.limits.maxInListItems()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "an IN list of " + list.size() + " items is over the limit of "
          + binder.limits.maxInListItems() + " items" + SqlPositions.suffix(binder.sql, "IN"));
    }
    Expr bound = binder.bind(in.getLeftExpression());
    List<Expr> raw = new ArrayList<>();
    for (Expression x : list) raw.add(binder.bind(x));
    Expr value = Parameters.isMarker(bound)
        ? Coercion.materialize(bound, raw.stream().filter(x -> !Parameters.isMarker(x)).findFirst().orElse(bound)) : bound;
    List<Expr> items = new ArrayList<>();
    for (Expr x : raw) items.add(Coercion.materialize(x, value));
    ArrowType t = value.type();
    boolean adopt = binder.constantsTakeOtherSideType && !Coercion.isConstant(value)
        && items.stream().allMatch(i -> Coercion.isConstant(i) && Coercion.castableTo(i, value.type()));
    if (!adopt) {
      for (Expr item : items) t = Coercion.common(t, item.type(), in);
      t = Coercion.settled(t);
    }
    List<Expr> coerced = new ArrayList<>();
    for (Expr item : items) coerced.add(Coercion.coerceItem(item, t));
    return new Expr.InList(Coercion.coerce(value, t), coerced, in.isNot());
  }

  Expr between(Between b) {
    Expr v = binder.bind(b.getLeftExpression());
    Expr lo = binder.bind(b.getBetweenExpressionStart());
    Expr hi = binder.bind(b.getBetweenExpressionEnd());
    Expr both = new Expr.And(compare(CmpOp.GE, v, lo, b), compare(CmpOp.LE, v, hi, b));
    return b.isNot() ? new Expr.Not(both) : both;
  }

  Expr distinct(IsDistinctExpression d) {
    Expr l0 = binder.bind(d.getLeftExpression());
    Expr r0 = binder.bind(d.getRightExpression());
    Expr l = Coercion.materialize(l0, r0);
    Expr r = Coercion.materialize(r0, l);
    ArrowType t = Coercion.meet(l, r, d, binder.constantsTakeOtherSideType);
    return new Expr.DistinctFrom(Coercion.coerce(l, t), Coercion.coerce(r, t), d.isNot());
  }

  /**
   * {@code x [NOT] LIKE|ILIKE p [ESCAPE e]}. With ESCAPE, the pattern is rewritten by {@code like_escape(p, e)}
   * into the default form (backslash escapes), which constant folding does at plan time for a literal pattern.
   */
  Expr like(LikeExpression l) {
    String kw = l.getLikeKeyWord().name();
    if (!kw.equals("LIKE") && !kw.equals("ILIKE")) throw QuiverException.unsupported(kw);
    Expr input = binder.bind(l.getLeftExpression());
    Expr pattern = binder.bind(l.getRightExpression());
    if (l.getEscape() != null) {
      Expr escape = binder.bind(l.getEscape());
      if (!SqlTypes.isString(escape.type()) && !SqlTypes.isNull(escape.type())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "the ESCAPE of " + kw + " must be a string, not "
            + SqlTypes.sqlName(escape.type()) + ": " + SqlPositions.snippet(l));
      }
      if (escape instanceof Expr.Literal e && e.value() instanceof String s && s.codePointCount(0, s.length()) > 1) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "invalid escape string '" + SqlPositions.snippet(s)
            + "': the escape of " + kw + " must be empty or one character" + SqlPositions.suffix(binder.sql, "ESCAPE"));
      }
      if (SqlTypes.isString(pattern.type()) || SqlTypes.isNull(pattern.type())) {
        pattern = binder.calls.call("like_escape", List.of(Coercion.coerce(pattern, SqlTypes.VARCHAR), Coercion.coerce(escape, SqlTypes.VARCHAR)), l);
      }
    }
    for (Expr x : List.of(input, pattern)) {
      if (!SqlTypes.isString(x.type()) && !SqlTypes.isNull(x.type())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, kw + " is not defined for " + SqlTypes.sqlName(x.type()) + ": " + SqlPositions.snippet(l));
      }
    }
    return new Expr.Like(Coercion.coerce(input, SqlTypes.VARCHAR), Coercion.coerce(pattern, SqlTypes.VARCHAR), kw.equals("ILIKE"), l.isNot());
  }

  Expr caseWhen(CaseExpression c) {
    Expr subject = c.getSwitchExpression() == null ? null : binder.bind(c.getSwitchExpression());
    List<Expr> conditions = new ArrayList<>();
    List<Expr> results = new ArrayList<>();
    for (net.sf.jsqlparser.expression.WhenClause w : c.getWhenClauses()) {
      if (subject == null) {
        conditions.add(binder.bool(w.getWhenExpression(), "CASE WHEN"));
      } else {
        conditions.add(compare(CmpOp.EQ, subject, binder.bind(w.getWhenExpression()), c));
      }
      results.add(binder.bind(w.getThenExpression()));
    }
    Expr otherwise = c.getElseExpression() == null ? Expr.Literal.nullOf(SqlTypes.NULL) : binder.bind(c.getElseExpression());
    ArrowType t = otherwise.type();
    for (Expr r : results) t = Coercion.common(t, r.type(), c);
    t = Coercion.settled(t);
    List<Expr.When> whens = new ArrayList<>();
    for (int i = 0; i < conditions.size(); i++) whens.add(new Expr.When(conditions.get(i), Coercion.coerce(results.get(i), t)));
    return new Expr.Case(whens, Coercion.coerce(otherwise, t), t);
  }
}
