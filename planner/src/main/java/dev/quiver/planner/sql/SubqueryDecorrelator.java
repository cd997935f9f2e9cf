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
      selfContained(r.plan(), cond, b, ex);
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
      selfContained(r.plan(), Exprs.and(conds), b, in);
      if (not && !corr.conjuncts.isEmpty()) {
        // the NULL-aware anti join looks for a NULL among all the subquery's items, not among those of the outer
        // row's correlation: planned as a value (a mark join per outer value), which is exact
        throw QuiverException.unsupported("a correlated NOT IN as an anti join: " + SqlPositions.snippet(in));
      }
      b.flush();
      b.plan = new LogicalPlan.Join(b.plan, r.plan(), not ? JoinType.NULL_AWARE_ANTI : JoinType.SEMI, Exprs.and(conds));
      return true;
    }
    return false;
  }

  /**
   * Refuses a semi / anti join whose subquery plan reads a column from outside it (a correlation outside its WHERE,
   * or a nested subquery's correlation with this block or one further out), or whose condition reads a column
   * neither the block's plan nor the subquery's has (a correlation with a query further out): the caller then plans
   * the predicate as a value, which handles both ({@link #dependent}).
   */
  private static void selfContained(LogicalPlan sub, Expr cond, Block b, Expression written) {
    java.util.Set<String> outside = new java.util.HashSet<>(b.scope.outerNames());
    java.util.Set<String> here = new java.util.HashSet<>();
    for (Field f : b.plan.schema().getFields()) here.add(f.getName());
    outside.addAll(here);
    for (Field f : sub.schema().getFields()) here.add(f.getName());
    if (hasReference(sub, outside) || (cond != null && !here.containsAll(Exprs.columns(cond)))) {
      throw QuiverException.unsupported("a subquery predicate correlated outside its WHERE clause, as a join: "
          + SqlPositions.snippet(written));
    }
  }

  /**
   * A scalar subquery: uncorrelated, a LEFT join with its (at most one) row; correlated on equalities,
   * grouped by its correlation keys and LEFT-joined on them. Returns the reference to its value.
   */
  Expr scalarSubquery(Select sub, Block b) {
    try {
      return keyedScalarSubquery(sub, b);
    } catch (QuiverException refused) {
      // correlated where its rows do not carry the outer columns (an outer column outside an aggregate is then
      // "not grouped"), or not a single aggregate: the general way
      if (refused.code() != ErrorCode.UNSUPPORTED && refused.code() != ErrorCode.INVALID_QUERY) throw refused;
      Expr e;
      try {
        e = dependentScalar(sub, b);
      } catch (QuiverException also) {
        throw refused.code() == ErrorCode.UNSUPPORTED ? also : refused;
      }
      if (e == null) throw refused;
      return e;
    }
  }

  private Expr keyedScalarSubquery(Select sub, Block b) {
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
      if (s != null) return existsDependent(s, b);
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
   * {@code [NOT] EXISTS} over any subquery (GROUP BY, HAVING, DISTINCT, …; correlated anywhere) as a value: its
   * rows counted per outer value ({@link #dependent}), LEFT-joined; a missing count is 0.
   */
  private Expr existsDependent(Select sub, Block b) {
    Dependent d = dependent(sub, b.scope, b.plan);
    if (d.single()) {
      // a single aggregate has a row for every outer value, unless its HAVING rejects it
      if (d.plan() instanceof LogicalPlan.Project p && p.input() instanceof LogicalPlan.Filter) {
        throw QuiverException.unsupported("EXISTS over a correlated aggregate with HAVING and no GROUP BY");
      }
      return Expr.Literal.TRUE;
    }
    Names names = analyzer.cx().names();
    String rows = names.fresh("__exists_rows");
    List<NamedExpr> groups = new ArrayList<>();
    List<String> keys = d.renamed(groups, names);
    LogicalPlan counts = new LogicalPlan.Aggregate(d.plan(), groups,
        List.of(new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, rows, false)));
    Expr match = d.outerKeys().isEmpty() ? Expr.Literal.TRUE : Exprs.and(keyMatch(d.outerKeys(), keys, counts));
    b.pending.add(p -> new LogicalPlan.Join(p, counts, JoinType.LEFT, match));
    b.subqueryColumns.add(rows);
    b.subqueryColumns.addAll(keys);
    Expr n = new Expr.ColumnRef(rows, SqlTypes.BIGINT, true);
    return new Expr.Comparison(Expr.CmpOp.GT, coalesce(n, new Expr.Literal(0L, SqlTypes.BIGINT)), new Expr.Literal(0L, SqlTypes.BIGINT));
  }

  /**
   * {@code value IN (subquery)} where its value is used: a mark join. The enclosing block is LEFT-joined with the
   * subquery's distinct values on {@code value = item} (at most one match per row) and with one row of counts over
   * the subquery (its rows, its non-NULL items). The value is three-valued as SQL defines it: TRUE when a match was
   * found; otherwise FALSE over no rows; otherwise NULL when {@code value} is NULL or an item is; otherwise FALSE.
   * {@code NOT IN} is its negation. Uncorrelated subqueries only (a correlated one as a value is refused).
   */
  Expr inValue(Expr value, Select sub, Expression written, Block b) {
    Dependent d = dependent(sub, b.scope, b.plan);
    Expr item = oneColumn(d, "IN", written);
    ArrowType common = common(value, item, written);
    Names names = analyzer.cx().names();
    String found = names.fresh("__in_value");
    String rows = names.fresh("__in_rows");
    String items = names.fresh("__in_items");
    Expr v = Coercion.coerce(value, common);
    Expr.ColumnRef foundRef = new Expr.ColumnRef(found, common, true);
    List<NamedExpr> valueColumns = new ArrayList<>(List.of(new NamedExpr(Coercion.coerce(item, common), found)));
    List<String> valueKeys = d.renamed(valueColumns, names);
    LogicalPlan values = SetOperationBinder.distinct(new LogicalPlan.Project(d.plan(), valueColumns));
    List<NamedExpr> countGroups = new ArrayList<>();
    List<String> countKeys = d.renamed(countGroups, names);
    LogicalPlan counts = new LogicalPlan.Aggregate(d.plan(), countGroups, List.of(
        new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, rows, false),
        new AggregateCall(AggFunc.COUNT, item, SqlTypes.BIGINT, items, false)));
    List<Expr> matches = new ArrayList<>(List.of(new Expr.Comparison(Expr.CmpOp.EQ, v, foundRef)));
    matches.addAll(keyMatch(d.outerKeys(), valueKeys, values));
    Expr countMatch = d.outerKeys().isEmpty() ? Expr.Literal.TRUE : Exprs.and(keyMatch(d.outerKeys(), countKeys, counts));
    b.pending.add(p -> new LogicalPlan.Join(new LogicalPlan.Join(p, values, JoinType.LEFT, Exprs.and(matches)), counts,
        JoinType.LEFT, countMatch));
    b.subqueryColumns.addAll(List.of(found, rows, items));
    b.subqueryColumns.addAll(valueKeys);
    b.subqueryColumns.addAll(countKeys);
    Expr.ColumnRef rowCount = new Expr.ColumnRef(rows, SqlTypes.BIGINT, true);
    Expr.ColumnRef itemCount = new Expr.ColumnRef(items, SqlTypes.BIGINT, true);
    Expr zero = new Expr.Literal(0L, SqlTypes.BIGINT);
    // an outer value the subquery has no group for: no rows (correlated), like a count of 0 (uncorrelated)
    Expr empty = new Expr.Or(new Expr.IsNull(rowCount, false), new Expr.Comparison(Expr.CmpOp.EQ, rowCount, zero));
    return new Expr.Case(List.of(
        new Expr.When(new Expr.IsNull(foundRef, true), Expr.Literal.TRUE),
        new Expr.When(empty, Expr.Literal.FALSE),
        new Expr.When(new Expr.Or(new Expr.IsNull(v, false), new Expr.Comparison(Expr.CmpOp.GT, rowCount, itemCount)),
            new Expr.Literal(null, SqlTypes.BOOLEAN))),
        Expr.Literal.FALSE, SqlTypes.BOOLEAN);
  }

  /**
   * {@code value op ANY|SOME|ALL (subquery)} as a three-valued value. {@code = ANY} is {@code IN}, {@code <> ALL} is
   * {@code NOT IN}; {@code x op ALL (s)} is {@code NOT (x negop ANY (s))}, so ALL over no rows is TRUE. The others
   * read one row per outer value (correlated: per domain value) of counts and extremes of the subquery's items, LEFT
   * joined: {@code x < ANY} holds when {@code x < max}, {@code x > ANY} when {@code x > min}, {@code x <> ANY} when
   * {@code x} differs from the min or the max; failing that, the value is FALSE over no rows, NULL when {@code x} is
   * NULL or an item is, FALSE otherwise — as SQL defines the comparison over each row.
   */
  Expr anyValue(Expr.CmpOp op, Expr value, Select sub, boolean all, Expression written, Block b) {
    if (all) {
      Expr.CmpOp neg = switch (op) {
        case EQ -> Expr.CmpOp.NE;
        case NE -> Expr.CmpOp.EQ;
        case LT -> Expr.CmpOp.GE;
        case LE -> Expr.CmpOp.GT;
        case GT -> Expr.CmpOp.LE;
        case GE -> Expr.CmpOp.LT;
        default -> throw QuiverException.unsupported("the comparison " + op + " with ALL: " + SqlPositions.snippet(written));
      };
      return new Expr.Not(anyValue(neg, value, sub, false, written, b));
    }
    if (op == Expr.CmpOp.EQ) return inValue(value, sub, written, b);
    Dependent d = dependent(sub, b.scope, b.plan);
    Expr item = oneColumn(d, "ANY / ALL", written);
    ArrowType common = common(value, item, written);
    Names names = analyzer.cx().names();
    String rows = names.fresh("__any_rows");
    String items = names.fresh("__any_items");
    String lo = names.fresh("__any_min");
    String hi = names.fresh("__any_max");
    Expr it = Coercion.coerce(item, common);
    List<NamedExpr> groups = new ArrayList<>();
    List<String> keys = d.renamed(groups, names);
    LogicalPlan stats = new LogicalPlan.Aggregate(d.plan(), groups, List.of(
        new AggregateCall(AggFunc.COUNT, null, SqlTypes.BIGINT, rows, false),
        new AggregateCall(AggFunc.COUNT, it, SqlTypes.BIGINT, items, false),
        new AggregateCall(AggFunc.MIN, it, common, lo, false),
        new AggregateCall(AggFunc.MAX, it, common, hi, false)));
    Expr match = d.outerKeys().isEmpty() ? Expr.Literal.TRUE : Exprs.and(keyMatch(d.outerKeys(), keys, stats));
    b.pending.add(p -> new LogicalPlan.Join(p, stats, JoinType.LEFT, match));
    b.subqueryColumns.addAll(List.of(rows, items, lo, hi));
    b.subqueryColumns.addAll(keys);
    Expr v = Coercion.coerce(value, common);
    Expr.ColumnRef rowCount = new Expr.ColumnRef(rows, SqlTypes.BIGINT, true);
    Expr.ColumnRef itemCount = new Expr.ColumnRef(items, SqlTypes.BIGINT, true);
    Expr.ColumnRef min = new Expr.ColumnRef(lo, common, true);
    Expr.ColumnRef max = new Expr.ColumnRef(hi, common, true);
    Expr hit = switch (op) {
      case NE -> new Expr.Or(new Expr.Comparison(Expr.CmpOp.NE, v, min), new Expr.Comparison(Expr.CmpOp.NE, v, max));
      case LT, LE -> new Expr.Comparison(op, v, max);
      case GT, GE -> new Expr.Comparison(op, v, min);
      default -> throw QuiverException.unsupported("the comparison " + op + " with ANY: " + SqlPositions.snippet(written));
    };
    Expr zero = new Expr.Literal(0L, SqlTypes.BIGINT);
    Expr empty = new Expr.Or(new Expr.IsNull(rowCount, false), new Expr.Comparison(Expr.CmpOp.EQ, rowCount, zero));
    return new Expr.Case(List.of(
        new Expr.When(empty, Expr.Literal.FALSE),
        new Expr.When(hit, Expr.Literal.TRUE),
        new Expr.When(new Expr.Or(new Expr.IsNull(v, false), new Expr.Comparison(Expr.CmpOp.GT, rowCount, itemCount)),
            new Expr.Literal(null, SqlTypes.BOOLEAN))),
        Expr.Literal.FALSE, SqlTypes.BOOLEAN);
  }

  private static Expr oneColumn(Dependent d, String what, Expression written) {
    if (d.width() != 1) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the subquery of " + what + " must return one column, not "
          + d.width() + ": " + SqlPositions.snippet(written));
    }
    return ref(d.plan().schema().getFields().get(0));
  }

  private static ArrowType common(Expr value, Expr item, Expression written) {
    ArrowType common = SqlTypes.isNull(value.type()) ? item.type() : SqlTypes.comparisonCommon(value.type(), item.type());
    if (common == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "cannot compare " + SqlTypes.sqlName(value.type()) + " with "
          + SqlTypes.sqlName(item.type()) + ": " + SqlPositions.snippet(written));
    }
    return common;
  }

  /**
   * A subquery planned once for every distinct value of the enclosing query's columns it reads — Neumann and
   * Kemper's dependent join eliminated: {@code plan} returns the subquery's {@code width} columns followed by the
   * domain's key columns {@code keys}, the outer value each row belongs to, which the enclosing block joins back on
   * {@code outerKeys} = {@code keys} ({@link #keyMatch}). Uncorrelated: no keys, the subquery's own plan.
   */
  record Dependent(LogicalPlan plan, List<String> visible, List<Expr> outerKeys, List<String> keys) {
    int width() {
      return visible.size();
    }

    /** Whether the subquery is a single aggregate (no GROUP BY): it has a row for every outer value. */
    boolean single() {
      LogicalPlan agg = plan;
      if (agg instanceof LogicalPlan.Project p) agg = p.input();
      if (agg instanceof LogicalPlan.Filter f) agg = f.input();
      return !keys.isEmpty() && agg instanceof LogicalPlan.Aggregate a
          && a.groups().stream().map(NamedExpr::name).toList().equals(keys);
    }

    /** The outer value of each key column, as {@link NoRows} reads them. */
    java.util.Map<String, Expr> outerValues() {
      java.util.Map<String, Expr> out = new java.util.HashMap<>();
      for (int i = 0; i < keys.size(); i++) out.put(keys.get(i), outerKeys.get(i));
      return out;
    }

    /**
     * The key columns projected under fresh names into {@code into} (one consumer's copy, so that two joins of the
     * same subquery do not bring the same names); returns those names.
     */
    List<String> renamed(List<NamedExpr> into, Names names) {
      List<String> out = new ArrayList<>();
      for (String k : keys) {
        Field f = field(plan, k);
        String n = names.fresh("__domain");
        into.add(new NamedExpr(ref(f), n));
        out.add(n);
      }
      return out;
    }
  }

  /**
   * Plans {@code sub}, whose enclosing query has scope {@code scope} and plan {@code outer}, as a {@link Dependent}.
   * The outer columns it reads (found by planning it once as it stands) become the domain D — their distinct
   * values in {@code outer}, under fresh names; the subquery is planned again with those columns renamed to D's
   * in its scope (so any clause — WHERE, SELECT, HAVING, GROUP BY, a nested subquery — reads them from D), D
   * cross-joined into its FROM (the filters then make it a join on the correlated predicates: a hash join for
   * equalities) and its aggregation grouped by D's columns. Exact because the subquery reads the outer row only
   * through those columns: its rows for an outer row are the rows of that row's D value.
   */
  Dependent dependent(Select sub, Scope scope, LogicalPlan outer) {
    java.util.Set<String> planNames = new java.util.HashSet<>();
    for (Field f : outer.schema().getFields()) planNames.add(f.getName());
    java.util.LinkedHashSet<String> candidates = new java.util.LinkedHashSet<>();
    // columns of queries further out that the enclosing block's rows do not carry: it cannot provide them
    java.util.Set<String> unreachable = new java.util.HashSet<>();
    for (Scope s = scope; s != null; s = s.outer()) {
      for (Scope.Entry e : s.entries()) {
        for (Scope.Column c : e.columns()) (planNames.contains(c.internal()) ? candidates : unreachable).add(c.internal());
      }
    }
    java.util.Set<String> read;
    Rel probe = null;
    try {
      probe = analyzer.query(sub, scope, null);
      unreachable(probe.plan(), unreachable);
      read = references(probe.plan(), candidates);
    } catch (QuiverException refused) {
      // refused as it stands — an outer column outside an aggregate is "not grouped", a nested subquery that reads
      // these columns finds them missing: take every outer column its text names (a superset is exact too: D is
      // then finer than needed)
      if ((refused.code() != ErrorCode.UNSUPPORTED && refused.code() != ErrorCode.INVALID_QUERY) || candidates.isEmpty()) {
        throw refused;
      }
      read = mentioned(sub, scope, candidates);
      if (read.isEmpty()) throw refused;
    }
    if (read.isEmpty()) return new Dependent(probe.plan(), probe.visible(), List.of(), List.of());
    Names names = analyzer.cx().names();
    java.util.Map<String, String> renamed = new java.util.LinkedHashMap<>();
    List<NamedExpr> groups = new ArrayList<>();
    List<Expr> outerKeys = new ArrayList<>();
    for (String c : candidates) {
      if (!read.contains(c)) continue;
      Field f = field(outer, c);
      String n = names.fresh("__outer");
      renamed.put(c, n);
      groups.add(new NamedExpr(ref(f), n));
      outerKeys.add(ref(f));
    }
    Correlation corr = new Correlation(Mode.DOMAIN);
    corr.domain = new LogicalPlan.Aggregate(outer, groups, List.of());
    corr.domainKeys.addAll(renamed.values());
    Rel r = analyzer.query(sub, renamedScope(scope, renamed), corr);
    unreachable(r.plan(), unreachable);
    return new Dependent(r.plan(), r.visible(), outerKeys, List.copyOf(renamed.values()));
  }

  private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile(
      "(?:(\"[^\"]+\"|`[^`]+`|\\w+)\\s*\\.\\s*)?(\"[^\"]+\"|`[^`]+`|\\w+)");

  /** The {@code candidates} that a name in the text of {@code sub} (a column, maybe qualified) resolves to in {@code scope}. */
  private java.util.Set<String> mentioned(Select sub, Scope scope, java.util.Set<String> candidates) {
    String text;
    try {
      text = sub.toString();
    } catch (StackOverflowError tooDeep) {
      return candidates;
    }
    return mentioned(text, scope, candidates);
  }

  /** The {@code candidates} that a name in {@code text} (a column, maybe qualified) resolves to in {@code scope}. */
  java.util.Set<String> mentioned(String text, Scope scope, java.util.Set<String> candidates) {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    java.util.regex.Matcher m = NAME.matcher(text);
    while (m.find()) {
      try {
        Expr.ColumnRef r = scope.resolve(m.group(1), ExprBinder.unquote(m.group(2)), analyzer.cx().sql());
        if (candidates.contains(r.name())) out.add(r.name());
      } catch (QuiverException notAColumn) {
        // a keyword, an inner alias, a function's name: not an outer column
      }
    }
    return out;
  }

  /**
   * Refuses a subquery that reads a column of a query further out which the enclosing block's rows do not carry
   * (that block is then planned the general way by its own enclosing query, with the column in its domain).
   */
  private static void unreachable(LogicalPlan plan, java.util.Set<String> unreachable) {
    if (hasReference(plan, unreachable)) {
      throw QuiverException.unsupported("a subquery correlated with a query further out than its enclosing one, "
          + "whose rows do not carry the column");
    }
  }

  static Scope renamedScope(Scope s, java.util.Map<String, String> renamed) {
    if (s == null) return null;
    List<Scope.Entry> entries = new ArrayList<>();
    for (Scope.Entry e : s.entries()) {
      List<Scope.Column> cols = new ArrayList<>();
      for (Scope.Column c : e.columns()) {
        cols.add(new Scope.Column(c.name(), renamed.getOrDefault(c.internal(), c.internal()), c.type(), c.nullable(),
            c.qualifiedOnly()));
      }
      entries.add(new Scope.Entry(e.qualifier(), e.table(), cols, e.unsupported()));
    }
    return new Scope(entries, renamedScope(s.outer(), renamed));
  }

  /** Which of {@code names} the plan's expressions read. */
  static java.util.Set<String> references(LogicalPlan plan, java.util.Set<String> names) {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    for (String n : names) if (hasReference(plan, java.util.Set.of(n))) out.add(n);
    return out;
  }

  /**
   * The join back of a dependent subquery: each outer key equal to its domain column in {@code inner}, NULL matching
   * NULL (D holds the outer NULLs too, and the subquery may have rows for them). A nullable key of a type with a
   * zero value is compared as two hash keys — {@code o IS NULL = d IS NULL} and {@code coalesce(o, 0) =
   * coalesce(d, 0)} — so that the join stays a hash join; others with IS NOT DISTINCT FROM.
   */
  static List<Expr> keyMatch(List<Expr> outerKeys, List<String> keys, LogicalPlan inner) {
    List<Expr> out = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      Expr o = outerKeys.get(i);
      Field f = field(inner, keys.get(i));
      Expr d = ref(f);
      if (!o.nullable() || !f.isNullable()) {
        out.add(new Expr.Comparison(Expr.CmpOp.EQ, o, d));
        continue;
      }
      Expr zero = zero(o.type());
      if (zero == null) {
        out.add(new Expr.DistinctFrom(o, d, true));
        continue;
      }
      out.add(new Expr.Comparison(Expr.CmpOp.EQ, nullFlag(o), nullFlag(d)));
      out.add(new Expr.Comparison(Expr.CmpOp.EQ, coalesce(o, zero), coalesce(d, zero)));
    }
    return out;
  }

  private static Expr nullFlag(Expr e) {
    return new Expr.Case(List.of(new Expr.When(new Expr.IsNull(e, false), new Expr.Literal(1L, SqlTypes.BIGINT))),
        new Expr.Literal(0L, SqlTypes.BIGINT), SqlTypes.BIGINT);
  }

  static Expr coalesce(Expr e, Expr zero) {
    return new Expr.Call("coalesce", List.of(e, zero), e.type(), false, Expr.Volatility.IMMUTABLE);
  }

  private static Expr zero(ArrowType t) {
    if (SqlTypes.isString(t)) return new Expr.Literal("", t);
    if (SqlTypes.isInteger(t) || SqlTypes.isFloat(t) || SqlTypes.isDecimal(t)) {
      return Coercion.coerce(new Expr.Literal(0L, SqlTypes.BIGINT), t);
    }
    return null;
  }

  /**
   * A correlated scalar subquery the keyed way refuses — correlated in its select list or HAVING, or not a single
   * aggregate — as a {@link Dependent} LEFT-joined on the outer values. A single aggregate (no GROUP BY) has a row
   * for every outer value; one with none found reads its value over no rows, with the outer values in place of
   * D's ({@link NoRows}). Otherwise at most one row per outer value, checked as the rows stream
   * ({@code EnforceSingleRow} per key). Null when the subquery is not correlated.
   */
  private Expr dependentScalar(Select sub, Block b) {
    Dependent d = dependent(sub, b.scope, b.plan);
    if (d.keys().isEmpty()) return null;
    if (d.width() != 1) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a scalar subquery must return one column, not " + d.width());
    }
    Field value = d.plan().schema().getFields().get(0);
    Expr result = new Expr.ColumnRef(value.getName(), value.getType(), true);
    Names names = analyzer.cx().names();
    if (d.single()) {
      NoRows shape = NoRows.of(d.plan(), value.getName(), d.outerValues());
      if (shape == null) throw QuiverException.unsupported("a correlated scalar subquery whose aggregation is joined with a further subquery");
      String found = names.fresh("__found");
      List<NamedExpr> columns = new ArrayList<>();
      for (Field f : shape.plan().schema().getFields()) columns.add(new NamedExpr(ref(f), f.getName()));
      columns.add(new NamedExpr(Expr.Literal.TRUE, found));
      List<String> keys = d.renamed(columns, names);
      LogicalPlan inner = new LogicalPlan.Project(shape.plan(), columns);
      Expr match = Exprs.and(keyMatch(d.outerKeys(), keys, inner));
      b.pending.add(p -> new LogicalPlan.Join(p, inner, JoinType.LEFT, match));
      b.subqueryColumns.add(value.getName());
      b.subqueryColumns.add(found);
      b.subqueryColumns.addAll(keys);
      if (shape.value() == NoRows.NULL) return result;
      Expr missing = new Expr.IsNull(new Expr.ColumnRef(found, SqlTypes.BOOLEAN, true), false);
      return new Expr.Case(List.of(new Expr.When(missing, Coercion.coerce(shape.value(), value.getType()))), result, value.getType());
    }
    List<NamedExpr> columns = new ArrayList<>(List.of(new NamedExpr(ref(value), value.getName())));
    List<String> keys = d.renamed(columns, names);
    LogicalPlan inner = new LogicalPlan.EnforceSingleRow(new LogicalPlan.Project(d.plan(), columns), keys);
    Expr match = Exprs.and(keyMatch(d.outerKeys(), keys, inner));
    b.pending.add(p -> new LogicalPlan.Join(p, inner, JoinType.LEFT, match));
    b.subqueryColumns.add(value.getName());
    b.subqueryColumns.addAll(keys);
    return result;
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
      return of(plan, column, java.util.Map.of());
    }

    /** The same, with group columns {@code keys} read over no rows as the given expressions (the outer values). */
    static NoRows of(LogicalPlan plan, String column, java.util.Map<String, Expr> keys) {
      if (plan instanceof LogicalPlan.Aggregate a) {
        Expr v = overNothing(a, new Expr.ColumnRef(column, field(a, column).getType(), true), keys);
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
      Expr v = overNothing(a, e, keys);
      if (v == null) return null;
      // NULL over no rows whatever HAVING says: the join's NULL is right, and the plan stays as it is
      if (nullOverNothing(v)) return new NoRows(plan, NULL, false);
      boolean countOnly = having == null && e instanceof Expr.ColumnRef c && isCount(a, c.name());
      if (having != null) {
        Expr h = overNothing(a, having, keys);
        if (h == null) return null;
        exprs.set(i, new NamedExpr(new Expr.Case(List.of(new Expr.When(having, e)), new Expr.Literal(null, e.type()), e.type()),
            column));
        v = new Expr.Case(List.of(new Expr.When(h, v)), new Expr.Literal(null, e.type()), e.type());
      }
      return new NoRows(new LogicalPlan.Project(a, exprs), v, countOnly);
    }

    static final Expr NULL = new Expr.Literal(null, new org.apache.arrow.vector.types.pojo.ArrowType.Null());

    /** Whether {@code e} is surely NULL: a NULL literal, or an operator that is NULL when an operand is. */
    static boolean nullOverNothing(Expr e) {
      if (e instanceof Expr.Literal l) return l.value() == null;
      if (e instanceof Expr.Arithmetic || e instanceof Expr.Negate || e instanceof Expr.Cast || e instanceof Expr.Comparison) {
        return e.children().stream().anyMatch(NoRows::nullOverNothing);
      }
      return false;
    }

    private static boolean isCount(LogicalPlan.Aggregate a, String name) {
      return a.aggregates().stream().anyMatch(c -> c.name().equals(name) && c.func().countsRows());
    }

    /** {@code e} over {@code a}'s output with every aggregate over no rows substituted; null if it reads a group key. */
    private static Expr overNothing(LogicalPlan.Aggregate a, Expr e, java.util.Map<String, Expr> keys) {
      for (String c : Exprs.columns(e)) {
        if (!keys.containsKey(c) && a.aggregates().stream().noneMatch(call -> call.name().equals(c))) return null;
      }
      Expr v = Exprs.transformUp(e, x -> {
        if (!(x instanceof Expr.ColumnRef c)) return x;
        if (keys.containsKey(c.name())) return keys.get(c.name());
        for (AggregateCall call : a.aggregates()) {
          if (call.name().equals(c.name())) {
            return new Expr.Literal(call.func().countsRows() ? (Object) 0L : null, call.type());
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
    return hasReference(plan, names, List.of());
  }

  /** The same, not looking into {@code skip} (the domain of outer values a correlation joined in: it reads them). */
  static boolean hasReference(LogicalPlan plan, Set<String> names, LogicalPlan skip) {
    return hasReference(plan, names, skip == null ? List.of() : List.of(skip));
  }

  /** The same, not looking into any of {@code skip} (compared by identity). */
  static boolean hasReference(LogicalPlan plan, Set<String> names, List<LogicalPlan> skip) {
    if (names.isEmpty()) return false;
    for (LogicalPlan s : skip) if (plan == s) return false;
    List<Expr> exprs = new ArrayList<>();
    if (plan instanceof LogicalPlan.Filter f) exprs.add(f.condition());
    if (plan instanceof LogicalPlan.Project p) for (NamedExpr n : p.exprs()) exprs.add(n.expr());
    if (plan instanceof LogicalPlan.Join j && j.condition() != null) exprs.add(j.condition());
    if (plan instanceof LogicalPlan.Aggregate a) {
      for (NamedExpr n : a.groups()) exprs.add(n.expr());
      for (AggregateCall c : a.aggregates()) exprs.addAll(c.exprs());
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
      if (x instanceof AndExpression a) {
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
