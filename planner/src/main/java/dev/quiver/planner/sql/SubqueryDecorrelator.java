package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import dev.quiver.planner.plan.LogicalPlan.SortKey;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.sql.Correlation.Mode;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.Select;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Subqueries become joins. An AND-term of WHERE that is {@code [NOT] EXISTS} or {@code [NOT] IN} (subquery)
 * becomes a semi / anti join (NOT IN a null-aware anti join, so a NULL in the subquery yields no row) whose
 * condition holds the subquery's correlated predicates, taken out of its WHERE. A scalar subquery becomes a
 * LEFT join with its single row (checked at run time); when correlated — by any predicates of its WHERE, as a
 * single aggregate — it is grouped by the correlation keys (equalities) or by the domain of outer values joined
 * into it ({@link #correlate}) and LEFT-joined on them; a missing group reads the value over no rows (count 0: the
 * COUNT bug). Used as values, EXISTS is such a count compared with 0 ({@link #existsValue}) and IN a mark join
 * ({@link #inValue}). Correlations outside the subquery's WHERE are refused: its rows would not carry the outer
 * columns.
 */
final class SubqueryDecorrelator {
  private final Analyzer analyzer;

  SubqueryDecorrelator(Analyzer analyzer) {
    this.analyzer = analyzer;
  }

  private static Expr.ColumnRef ref(Field f) {
    return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
  }

  private static Field field(LogicalPlan plan, String name) {
    for (Field f : plan.schema().getFields()) if (f.getName().equals(name)) return f;
    throw QuiverException.internal("column " + name + " not in " + plan.schema());
  }

  /** Plans an AND-term of WHERE that is [NOT] EXISTS or [NOT] IN (subquery) as a join; false otherwise. */
  boolean subqueryPredicate(Expression term, Block b) {
    Expression t = term;
    boolean not = false;
    while (t instanceof ParenthesedExpressionList<?> p && p.size() == 1) t = p.get(0);
    if (t instanceof NotExpression n) {
      not = true;
      t = n.getExpression();
      while (t instanceof ParenthesedExpressionList<?> p && p.size() == 1) t = p.get(0);
    }
    if (t instanceof ExistsExpression ex && ex.getRightExpression() instanceof Select sub) {
      not ^= ex.isNot();
      Correlation corr = new Correlation(Mode.EXISTS);
      Rel r = analyzer.query(sub, b.scope, corr);
      Expr cond = corr.conjuncts.isEmpty() ? null : Exprs.and(corr.conjuncts);
      if (cond == null) r = new Rel(new LogicalPlan.Limit(r.plan(), 1, 0), r.visible());
      boolean negated = not;
      b.plan = new LogicalPlan.Join(b.plan, r.plan(), negated ? JoinType.ANTI : JoinType.SEMI, cond);
      return true;
    }
    if (t instanceof InExpression in && in.getRightExpression() instanceof Select sub) {
      not ^= in.isNot();
      Correlation corr = new Correlation(Mode.IN);
      Rel r = analyzer.query(sub, b.scope, corr);
      List<Field> fields = r.plan().schema().getFields();
      int width = r.visible().size();
      if (width != 1) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "the subquery of IN must return one column, not " + width + ": "
            + SqlPositions.snippet(in));
      }
      Expr value = ExprBinder.settleParameters(b.binder(false, List.of()).bind(in.getLeftExpression()));
      Expr item = ref(fields.get(0));
      ArrowType common = SqlTypes.isNull(value.type()) ? item.type() : SqlTypes.comparisonCommon(value.type(), item.type());
      if (common == null) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot compare " + SqlTypes.sqlName(value.type()) + " with "
            + SqlTypes.sqlName(item.type()) + ": " + SqlPositions.snippet(in));
      }
      List<Expr> conds = new ArrayList<>();
      conds.add(new Expr.Comparison(Expr.CmpOp.EQ, Coercion.coerce(value, common), Coercion.coerce(item, common)));
      conds.addAll(corr.conjuncts);
      b.flush();
      b.plan = new LogicalPlan.Join(b.plan, r.plan(), not ? JoinType.NULL_AWARE_ANTI : JoinType.SEMI, Exprs.and(conds));
      return true;
    }
    return false;
  }

  /**
   * A scalar subquery: uncorrelated, a LEFT join with its (at most one) row; correlated on equalities,
   * grouped by its correlation keys and LEFT-joined on them. Returns the reference to its value.
   */
  Expr scalarSubquery(Select sub, Block b) {
    Correlation corr = new Correlation(Mode.SCALAR);
    corr.outerPlan = b.plan;
    Rel r = analyzer.query(sub, b.scope, corr);
    List<Field> fields = r.plan().schema().getFields();
    Field value = fields.get(0);
    if (corr.conjuncts.isEmpty()) {
      if (r.visible().size() != 1) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "a scalar subquery must return one column, not " + r.visible().size());
      }
      LogicalPlan one = new LogicalPlan.EnforceSingleRow(r.plan());
      b.pending.add(p -> new LogicalPlan.Join(p, one, JoinType.LEFT, Expr.Literal.TRUE));
      b.subqueryColumns.add(value.getName());
      return new Expr.ColumnRef(value.getName(), value.getType(), true);
    }
    List<Expr> conds = new ArrayList<>();
    for (int i = 0; i < corr.keyNames.size(); i++) {
      Field k = field(r.plan(), corr.keyNames.get(i));
      Expr outerKey = corr.outerKeys.get(i);
      ArrowType common = SqlTypes.comparisonCommon(k.getType(), outerKey.type());
      Expr o = Coercion.coerce(outerKey, common);
      Expr in = Coercion.coerce(ref(k), common);
      conds.add(corr.nullSafeKeys && outerKey.nullable() ? new Expr.DistinctFrom(o, in, true)
          : new Expr.Comparison(Expr.CmpOp.EQ, o, in));
    }
    NoRows shape = NoRows.of(r.plan(), value.getName());
    if (shape == null) {
      throw QuiverException.unsupported("a correlated scalar subquery whose aggregation is joined with a further subquery");
    }
    LogicalPlan inner = shape.plan();
    b.pending.add(p -> new LogicalPlan.Join(p, inner, JoinType.LEFT, Exprs.and(conds)));
    Expr result = new Expr.ColumnRef(value.getName(), value.getType(), true);
    if (shape.value() == NoRows.NULL) return result;
    if (shape.countOnly()) {
      // the COUNT bug: a group with no rows is absent, and its count must read 0, not NULL
      return new Expr.Call("coalesce", List.of(result, shape.value()), value.getType(), false, Expr.Volatility.IMMUTABLE);
    }
    // the COUNT bug in general: no group found means no inner rows, and the subquery's value is then its value
    // over no rows (its HAVING and SELECT over aggregates of nothing), not NULL. A matched group's key is never
    // NULL (it equals the outer key), so a NULL key marks an outer row that found none.
    Field key = field(inner, corr.keyNames.get(0));
    Expr noGroup = new Expr.IsNull(new Expr.ColumnRef(key.getName(), key.getType(), true), false);
    return new Expr.Case(List.of(new Expr.When(noGroup, shape.value())), result, value.getType());
  }

  /**
   * {@code [NOT] EXISTS (subquery)} where its value is used (under OR, NOT, CASE, in the select list): the scalar
   * subquery {@code (SELECT count(*) FROM … WHERE …)} compared with 0. Legal for a subquery without GROUP BY,
   * HAVING, aggregates, DISTINCT, LIMIT or OFFSET — it has a row exactly when its FROM and WHERE admit one, and its
   * select list and ORDER BY do not matter — and correlated through its WHERE by any predicate, as
   * {@link #scalarSubquery} is. The count is never NULL (0 over no rows), so neither is the value.
   */
  Expr existsValue(ExistsExpression exists, Block b) {
    Expression right = exists.getRightExpression();
    Select s = right instanceof Select sel ? sel : null;
    while (s instanceof net.sf.jsqlparser.statement.select.ParenthesedSelect p) s = p.getSelect();
    if (!(s instanceof net.sf.jsqlparser.statement.select.PlainSelect ps) || ps.getGroupBy() != null
        || ps.getHaving() != null || ps.getLimit() != null || ps.getOffset() != null || ps.getFetch() != null
        || ps.getDistinct() != null || ps.getWithItemsList() != null || SelectBinder.hasAggregate(ps)) {
      throw QuiverException.unsupported("EXISTS over a subquery with GROUP BY, HAVING, aggregates, DISTINCT, LIMIT "
          + "or a set operation, other than as an AND-term of WHERE: " + SqlPositions.snippet(exists));
    }
    net.sf.jsqlparser.statement.select.PlainSelect counted = new net.sf.jsqlparser.statement.select.PlainSelect();
    counted.setFromItem(ps.getFromItem());
    counted.setJoins(ps.getJoins());
    counted.setWhere(ps.getWhere());
    net.sf.jsqlparser.expression.Function count = new net.sf.jsqlparser.expression.Function();
    count.setName("count");
    count.setParameters(new net.sf.jsqlparser.expression.operators.relational.ExpressionList<>(
        new net.sf.jsqlparser.statement.select.AllColumns()));
    counted.addSelectItem(count);
    Expr n = scalarSubquery(counted, b);
    return new Expr.Comparison(exists.isNot() ? Expr.CmpOp.EQ : Expr.CmpOp.GT, n, new Expr.Literal(0L, n.type()));
  }

  /**
   * {@code value IN (subquery)} where its value is used: a mark join. The enclosing block is LEFT-joined with the
   * subquery's distinct values on {@code value = item} (at most one match per row) and with one row of counts over
   * the subquery (its rows, its non-NULL items). The value is three-valued as SQL defines it: TRUE when a match was
   * found; otherwise FALSE over no rows; otherwise NULL when {@code value} is NULL or an item is; otherwise FALSE.
   * {@code NOT IN} is its negation. Uncorrelated subqueries only (a correlated one as a value is refused).
   */
  Expr inValue(Expr value, Select sub, Expression written, Block b) {
    Rel r = analyzer.query(sub, b.scope, null);
    int width = r.visible().size();
    if (width != 1) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the subquery of IN must return one column, not " + width + ": "
          + SqlPositions.snippet(written));
    }
    java.util.Set<String> enclosing = new java.util.HashSet<>(b.scope.outerNames());
    for (Field f : b.plan.schema().getFields()) enclosing.add(f.getName());
    if (hasReference(r.plan(), enclosing)) {
      throw QuiverException.unsupported("a correlated IN (subquery) other than as an AND-term of WHERE: "
          + SqlPositions.snippet(written));
    }
    Expr item = ref(r.plan().schema().getFields().get(0));
    ArrowType common = SqlTypes.isNull(value.type()) ? item.type() : SqlTypes.comparisonCommon(value.type(), item.type());
    if (common == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot compare " + SqlTypes.sqlName(value.type()) + " with "
          + SqlTypes.sqlName(item.type()) + ": " + SqlPositions.snippet(written));
    }
    Names names = analyzer.cx().names();
    String found = names.fresh("__in_value");
    String rows = names.fresh("__in_rows");
    String items = names.fresh("__in_items");
    Expr v = Coercion.coerce(value, common);
    Expr.ColumnRef foundRef = new Expr.ColumnRef(found, common, true);
    LogicalPlan values = SetOperationBinder.distinct(
        new LogicalPlan.Project(r.plan(), List.of(new NamedExpr(Coercion.coerce(item, common), found))));
    LogicalPlan counts = new LogicalPlan.Aggregate(r.plan(), List.of(), List.of(
        new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, rows, false),
        new AggregateCall(AggFunc.COUNT, item, SqlTypes.BIGINT, items, false)));
    Expr matches = new Expr.Comparison(Expr.CmpOp.EQ, v, foundRef);
    b.pending.add(p -> new LogicalPlan.Join(new LogicalPlan.Join(p, values, JoinType.LEFT, matches), counts,
        JoinType.LEFT, Expr.Literal.TRUE));
    b.subqueryColumns.addAll(List.of(found, rows, items));
    Expr.ColumnRef rowCount = new Expr.ColumnRef(rows, SqlTypes.BIGINT, true);
    Expr.ColumnRef itemCount = new Expr.ColumnRef(items, SqlTypes.BIGINT, true);
    Expr zero = new Expr.Literal(0L, SqlTypes.BIGINT);
    return new Expr.Case(List.of(
        new Expr.When(new Expr.IsNull(foundRef, true), Expr.Literal.TRUE),
        new Expr.When(new Expr.Comparison(Expr.CmpOp.EQ, rowCount, zero), Expr.Literal.FALSE),
        new Expr.When(new Expr.Or(new Expr.IsNull(v, false), new Expr.Comparison(Expr.CmpOp.GT, rowCount, itemCount)),
            new Expr.Literal(null, SqlTypes.BOOLEAN))),
        Expr.Literal.FALSE, SqlTypes.BOOLEAN);
  }

  /**
   * A correlated scalar subquery's plan {@code plan} (a projection, possibly over its HAVING filter, over the
   * aggregation grouped by the correlation keys) with its HAVING folded into the value — {@code CASE WHEN having
   * THEN value END}, so that a group HAVING rejects is still found and reads NULL — and {@code value}, the value
   * column over no rows as a constant expression: every aggregate over nothing (count 0, the others NULL)
   * substituted into the HAVING and the SELECT expression. {@code countOnly}: the value is a bare count.
   */
  record NoRows(LogicalPlan plan, Expr value, boolean countOnly) {
    static NoRows of(LogicalPlan plan, String column) {
      if (plan instanceof LogicalPlan.Aggregate a) {
        Expr v = overNothing(a, new Expr.ColumnRef(column, field(a, column).getType(), true));
        if (v == null) return null;
        return nullOverNothing(v) ? new NoRows(a, NULL, false) : new NoRows(a, v, isCount(a, column));
      }
      if (!(plan instanceof LogicalPlan.Project p)) return null;
      Expr having = null;
      LogicalPlan below = p.input();
      if (below instanceof LogicalPlan.Filter f) {
        having = f.condition();
        below = f.input();
      }
      if (!(below instanceof LogicalPlan.Aggregate a)) return null;
      List<NamedExpr> exprs = new ArrayList<>(p.exprs());
      int i = 0;
      while (i < exprs.size() && !exprs.get(i).name().equals(column)) i++;
      if (i == exprs.size()) return null;
      Expr e = exprs.get(i).expr();
      Expr v = overNothing(a, e);
      if (v == null) return null;
      // NULL over no rows whatever HAVING says: the join's NULL is right, and the plan stays as it is
      if (nullOverNothing(v)) return new NoRows(plan, NULL, false);
      boolean countOnly = having == null && e instanceof Expr.ColumnRef c && isCount(a, c.name());
      if (having != null) {
        Expr h = overNothing(a, having);
        if (h == null) return null;
        exprs.set(i, new NamedExpr(new Expr.Case(List.of(new Expr.When(having, e)), new Expr.Literal(null, e.type()), e.type()),
            column));
        v = new Expr.Case(List.of(new Expr.When(h, v)), new Expr.Literal(null, e.type()), e.type());
      }
      return new NoRows(new LogicalPlan.Project(a, exprs), v, countOnly);
    }

    private static final Expr NULL = new Expr.Literal(null, new org.apache.arrow.vector.types.pojo.ArrowType.Null());

    /** Whether {@code e} is surely NULL: a NULL literal, or an operator that is NULL when an operand is. */
    static boolean nullOverNothing(Expr e) {
      if (e instanceof Expr.Literal l) return l.value() == null;
      if (e instanceof Expr.Arithmetic || e instanceof Expr.Negate || e instanceof Expr.Cast || e instanceof Expr.Comparison) {
        return e.children().stream().anyMatch(NoRows::nullOverNothing);
      }
      return false;
    }

    private static boolean isCount(LogicalPlan.Aggregate a, String name) {
      return a.aggregates().stream().anyMatch(c -> c.name().equals(name) && c.func() == AggFunc.COUNT);
    }

    /** {@code e} over {@code a}'s output with every aggregate over no rows substituted; null if it reads a group key. */
    private static Expr overNothing(LogicalPlan.Aggregate a, Expr e) {
      for (String c : Exprs.columns(e)) {
        if (a.aggregates().stream().noneMatch(call -> call.name().equals(c))) return null;
      }
      Expr v = Exprs.transformUp(e, x -> {
        if (!(x instanceof Expr.ColumnRef c)) return x;
        for (AggregateCall call : a.aggregates()) {
          if (call.name().equals(c.name())) {
            return new Expr.Literal(call.func() == AggFunc.COUNT ? (Object) 0L : null, call.type());
          }
        }
        return x;
      });
      return v;
    }
  }

  /**
   * The join keys of a correlated scalar subquery, into {@code corr.innerKeys} and {@code corr.outerKeys}, with
   * {@code plan} (the subquery's FROM and uncorrelated WHERE) returned as it must be grouped by the inner keys.
   * <p>When every correlated predicate is an equality between an inner expression and one over outer columns only,
   * those expressions are the keys and {@code plan} is unchanged (the common, cheap case).
   * <p>Otherwise (any predicate: {@code x.b < t1.b}, {@code x.c > t1.c AND x.d <> t1.d}, an OR, …) the dependent
   * join is eliminated as Neumann and Kemper's "Unnesting Arbitrary Queries" does: the <em>domain</em> D — the
   * distinct values of the outer columns the predicates read, from the enclosing block's plan — is joined into the
   * subquery on those predicates, with D's columns in place of the outer ones; the subquery is then grouped by D's
   * columns, and the enclosing block LEFT-joins its result on its outer columns = D's. Legal because the predicates
   * read the outer row only through those columns, so the subquery's rows for an outer row are exactly the joined
   * rows of its D value; rows of an outer value no predicate admits form no group, and read the subquery's value
   * over no rows as in the equality case (the COUNT bug). A NULL outer value matches no D row through {@code =}:
   * exact when some predicate is NULL whenever that column is (then no inner row qualifies for it either);
   * otherwise the join back compares with IS NOT DISTINCT FROM and D carries a never-NULL marker first, so that a
   * found group is told apart from a missing one. The cost is a join of the subquery with D on arbitrary predicates
   * (a nested loop over |D| × |subquery| pairs, cancellable like every join) instead of re-running it per outer row.
   */
  LogicalPlan correlate(Correlation corr, Set<String> outerNames, LogicalPlan plan) {
    if (equalityKeys(corr, outerNames)) return plan;
    corr.innerKeys.clear();
    corr.outerKeys.clear();
    LogicalPlan source = corr.outerPlan;
    java.util.LinkedHashSet<String> outerColumns = new java.util.LinkedHashSet<>();
    for (Expr c : corr.conjuncts) for (String col : Exprs.columns(c)) if (outerNames.contains(col)) outerColumns.add(col);
    java.util.Set<String> available = new java.util.HashSet<>();
    if (source != null) for (Field f : source.schema().getFields()) available.add(f.getName());
    if (source == null || !available.containsAll(outerColumns)) {
      throw QuiverException.unsupported("the correlated predicate "
          + SqlPositions.snippet(corr.written.get(0)) + " in a scalar subquery (correlated with an enclosing query "
          + "other than the nearest one)");
    }
    boolean strict = true;
    for (String col : outerColumns) strict &= corr.conjuncts.stream().anyMatch(c -> rejectsNull(c, col));
    List<NamedExpr> groups = new ArrayList<>();
    java.util.Map<String, Expr> renamed = new java.util.HashMap<>();
    if (!strict) {
      String marker = analyzer.cx().names().fresh("__present");
      groups.add(new NamedExpr(Expr.Literal.TRUE, marker));
      corr.innerKeys.add(new Expr.ColumnRef(marker, SqlTypes.BOOLEAN, false));
      corr.outerKeys.add(Expr.Literal.TRUE);
    }
    for (String col : outerColumns) {
      Field f = field(source, col);
      String n = analyzer.cx().names().fresh("__outer");
      groups.add(new NamedExpr(ref(f), n));
      Expr.ColumnRef d = new Expr.ColumnRef(n, f.getType(), f.isNullable());
      renamed.put(col, d);
      corr.innerKeys.add(d);
      corr.outerKeys.add(ref(f));
    }
    corr.domain = new LogicalPlan.Aggregate(source, groups, List.of());
    corr.nullSafeKeys = !strict;
    List<Expr> predicates = new ArrayList<>();
    for (Expr c : corr.conjuncts) {
      predicates.add(Exprs.transformUp(c, x -> x instanceof Expr.ColumnRef r && renamed.containsKey(r.name()) ? renamed.get(r.name()) : x));
    }
    return new LogicalPlan.Join(plan, corr.domain, JoinType.INNER, Exprs.and(predicates));
  }

  /** Equality keys into {@code corr} if every correlated predicate is an inner = outer equality; else false. */
  private static boolean equalityKeys(Correlation corr, Set<String> outerNames) {
    for (Expr c : corr.conjuncts) {
      if (!(c instanceof Expr.Comparison cmp && cmp.op() == Expr.CmpOp.EQ)) return false;
      boolean leftOuter = intersects(Exprs.columns(cmp.left()), outerNames);
      boolean rightOuter = intersects(Exprs.columns(cmp.right()), outerNames);
      Expr inner = leftOuter ? cmp.right() : cmp.left();
      Expr outerSide = leftOuter ? cmp.left() : cmp.right();
      if (leftOuter == rightOuter || intersects(Exprs.columns(inner), outerNames) || Exprs.columns(inner).isEmpty()
          || !outerNames.containsAll(Exprs.columns(outerSide))) {
        return false;
      }
      corr.innerKeys.add(inner);
      corr.outerKeys.add(outerSide);
    }
    return true;
  }

  /** Whether predicate {@code e} is never TRUE when column {@code col} is NULL. */
  static boolean rejectsNull(Expr e, String col) {
    if (e instanceof Expr.And a) return rejectsNull(a.left(), col) || rejectsNull(a.right(), col);
    if (e instanceof Expr.Or o) return rejectsNull(o.left(), col) && rejectsNull(o.right(), col);
    if (e instanceof Expr.Not n) return nullWhenNull(n.input(), col);
    return nullWhenNull(e, col);
  }

  /** Whether {@code e} is surely NULL when column {@code col} is NULL. */
  static boolean nullWhenNull(Expr e, String col) {
    if (e instanceof Expr.ColumnRef r) return r.name().equals(col);
    if (e instanceof Expr.Comparison || e instanceof Expr.Arithmetic || e instanceof Expr.Negate
        || (e instanceof Expr.Cast c && !c.safe())) {
      return e.children().stream().anyMatch(x -> nullWhenNull(x, col));
    }
    if (e instanceof Expr.Like l) return nullWhenNull(l.input(), col) || nullWhenNull(l.pattern(), col);
    if (e instanceof Expr.InList in) return nullWhenNull(in.value(), col);
    return false;
  }

  static boolean intersects(Set<String> a, Set<String> b) {
    for (String x : a) if (b.contains(x)) return true;
    return false;
  }

  /** Whether any expression of the plan reads one of {@code names}. */
  static boolean hasReference(LogicalPlan plan, Set<String> names) {
    return hasReference(plan, names, null);
  }

  /** The same, not looking into {@code skip} (the domain of outer values a correlation joined in: it reads them). */
  static boolean hasReference(LogicalPlan plan, Set<String> names, LogicalPlan skip) {
    if (names.isEmpty() || plan == skip) return false;
    List<Expr> exprs = new ArrayList<>();
    if (plan instanceof LogicalPlan.Filter f) exprs.add(f.condition());
    if (plan instanceof LogicalPlan.Project p) for (NamedExpr n : p.exprs()) exprs.add(n.expr());
    if (plan instanceof LogicalPlan.Join j && j.condition() != null) exprs.add(j.condition());
    if (plan instanceof LogicalPlan.Aggregate a) {
      for (NamedExpr n : a.groups()) exprs.add(n.expr());
      for (AggregateCall c : a.aggregates()) if (c.arg() != null) exprs.add(c.arg());
    }
    if (plan instanceof LogicalPlan.Sort s) for (SortKey k : s.keys()) exprs.add(k.expr());
    if (plan instanceof LogicalPlan.Window w) for (LogicalPlan.WindowCall c : w.calls()) exprs.addAll(c.exprs());
    for (Expr e : exprs) if (intersects(Exprs.columns(e), names)) return true;
    for (LogicalPlan c : plan.children()) if (hasReference(c, names, skip)) return true;
    return false;
  }

  /** The AND-terms of a WHERE clause, where its subquery predicates and correlated predicates are found. */
  static List<Expression> andTerms(Expression e) {
    List<Expression> out = new ArrayList<>();
    Deque<Expression> stack = new ArrayDeque<>();
    stack.push(e);
    while (!stack.isEmpty()) {
      Expression x = stack.pop();
      if (x instanceof InExpression in && (in.getRightExpression() instanceof AndExpression
          || in.getRightExpression() instanceof net.sf.jsqlparser.expression.operators.conditional.OrExpression)) {
        // JSqlParser 5.3 parses "x IN (...) AND y" as "x IN ((...) AND y)": move the IN onto the leftmost operand
        // (in a copy: a CTE's body is analyzed once per reference)
        stack.push(PredicateBinder.reassociated(in, in.getRightExpression()));
      } else if (x instanceof AndExpression a) {
        stack.push(a.getRightExpression());
        stack.push(a.getLeftExpression());
      } else if (x instanceof ParenthesedExpressionList<?> p && p.size() == 1 && p.get(0) instanceof AndExpression a) {
        stack.push(a);
      } else {
        out.add(x);
      }
    }
    return out;
  }
}
