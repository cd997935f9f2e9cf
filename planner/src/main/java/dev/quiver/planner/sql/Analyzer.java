package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import dev.quiver.planner.plan.LogicalPlan.SortKey;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.ExceptOp;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.IntersectOp;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.MinusOp;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperation;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.UnionOp;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.select.WithItem;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Turns a parsed statement into a typed {@link LogicalPlan}: resolves table and column names (every
 * column gets an internal name unique in the statement, see {@link Names}), types every expression and
 * inserts the CASTs of type coercion, and turns subqueries into joins: {@code [NOT] EXISTS} and
 * {@code [NOT] IN} become semi/anti joins whose condition holds the correlated predicates, and a scalar
 * subquery becomes a LEFT join with its single row — grouped by the correlation keys when correlated.
 * Constructs Quiver does not support are rejected with {@link ErrorCode#UNSUPPORTED} naming them.
 */
public final class Analyzer {
  public static final String CATALOG = "quiver";
  public static final String SCHEMA = "main";

  private final Catalog catalog;
  private final String sql;
  private final Parameters parameters;
  private final Names names = new Names();
  private final Deque<Map<String, WithItem<?>>> ctes = new ArrayDeque<>();
  private final SqlLimits limits;
  /** How deeply the expressions and subqueries being bound nest (see {@link SqlLimits#maxNestingDepth()}). */
  private final int[] nesting = {0};
  /** The query whose select list may keep untyped NULLs: a set operation's operand (see {@link #operand}). */
  private Select untypedNullsAllowed;
  /** The relations the FROM clauses have joined so far (see {@link SqlLimits#maxRelations()}). */
  private int relations;
  private int depth;

  public Analyzer(Catalog catalog, String sql) {
    this(catalog, sql, Parameters.unbound());
  }

  /** An analyzer that binds {@code ?} through {@code parameters}. */
  public Analyzer(Catalog catalog, String sql, Parameters parameters) {
    this(catalog, sql, parameters, SqlLimits.DEFAULT);
  }

  /** An analyzer that binds {@code ?} through {@code parameters} and keeps to {@code limits}. */
  public Analyzer(Catalog catalog, String sql, Parameters parameters, SqlLimits limits) {
    this.catalog = catalog;
    this.sql = sql;
    this.parameters = parameters;
    this.limits = limits;
  }

  private ExprBinder binder(Scope scope, boolean allowAggregates, List<AggregateCall> aggregates) {
    return new ExprBinder(sql, scope, allowAggregates, aggregates).withParameters(parameters).withNames(names)
        .withLimits(limits, nesting);
  }

  /** A planned relation: a plan whose fields carry internal names, and the names the query sees. */
  private record Rel(LogicalPlan plan, List<String> visible) {}

  /** How a subquery's correlated predicates are taken out of it. */
  private enum Mode { NONE, EXISTS, IN, SCALAR }

  /** The correlated predicates found in a subquery's WHERE, and for SCALAR the join keys. */
  private static final class Correlation {
    final Mode mode;
    final List<Expr> conjuncts = new ArrayList<>();
    /** The text of each conjunct as the user wrote it, for messages (bound ones carry internal names). */
    final List<Expression> written = new ArrayList<>();
    final List<Expr> innerKeys = new ArrayList<>();
    final List<Expr> outerKeys = new ArrayList<>();
    final List<String> keyNames = new ArrayList<>();
    Correlation(Mode mode) { this.mode = mode; }
  }

  /** The state of one query block while its clauses are analyzed. */
  private final class Block {
    final Scope scope;
    LogicalPlan plan;
    final List<UnaryOperator<LogicalPlan>> pending = new ArrayList<>();
    final Set<String> subqueryColumns = new HashSet<>();
    Block(Scope scope, LogicalPlan plan) {
      this.scope = scope;
      this.plan = plan;
    }
    ExprBinder binder(boolean allowAggregates, List<AggregateCall> aggregates) {
      return Analyzer.this.binder(scope, allowAggregates, aggregates).withSubqueries(sub -> scalarSubquery(sub, this));
    }
    void flush() {
      for (UnaryOperator<LogicalPlan> p : pending) plan = p.apply(plan);
      pending.clear();
    }
  }

  public LogicalPlan analyze(Statement statement) {
    if (!(statement instanceof Select select)) {
      String kind = statement.getClass().getSimpleName().toUpperCase(Locale.ROOT);
      throw QuiverException.unsupported("the " + kind + " statement (Quiver is read-only)");
    }
    Rel r = query(select, null);
    List<Field> fields = r.plan().schema().getFields();
    if (r.plan() instanceof LogicalPlan.Project p) {
      List<NamedExpr> out = new ArrayList<>();
      for (int i = 0; i < fields.size(); i++) out.add(new NamedExpr(p.exprs().get(i).expr(), r.visible().get(i)));
      return new LogicalPlan.Project(p.input(), out);
    }
    List<NamedExpr> out = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) out.add(new NamedExpr(ref(fields.get(i)), r.visible().get(i)));
    return new LogicalPlan.Project(r.plan(), out);
  }

  private static Expr.ColumnRef ref(Field f) {
    return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
  }

  // ---------------------------------------------------------------- queries

  private Rel query(Select s, Scope outer) {
    return query(s, outer, null);
  }

  private Rel query(Select s, Scope outer, Correlation corr) {
    if (++depth > limits.maxSubqueryDepth()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "subqueries are nested more than " + limits.maxSubqueryDepth()
          + " levels deep");
    }
    boolean pushed = false;
    // a subquery is a level of expression nesting too: its binders count on from here
    nesting[0]++;
    try {
      if (nesting[0] > limits.maxNestingDepth()) throw limits.tooDeep(sql, -1);
      if (s.getWithItemsList() != null && !s.getWithItemsList().isEmpty()) {
        Map<String, WithItem<?>> m = new LinkedHashMap<>();
        for (WithItem<?> w : s.getWithItemsList()) {
          if (w.isRecursive()) throw QuiverException.unsupported("WITH RECURSIVE", at("RECURSIVE"));
          m.put(ExprBinder.unquote(w.getAliasName()).toLowerCase(Locale.ROOT), w);
        }
        ctes.push(m);
        pushed = true;
      }
      if (s instanceof PlainSelect ps) return plainSelect(ps, outer, corr);
      if (corr != null && corr.mode != Mode.NONE && !(s instanceof ParenthesedSelect)) {
        // set operations and VALUES cannot be correlated: analyze them as stand-alone queries
        corr = null;
      }
      Rel r;
      if (s instanceof ParenthesedSelect p) {
        r = query(p.getSelect(), outer, corr);
      } else if (s instanceof SetOperationList so) {
        r = setOperation(so, outer);
      } else if (s instanceof Values v) {
        r = values(v);
      } else {
        throw QuiverException.unsupported(s.getClass().getSimpleName());
      }
      return orderAndLimitOutputs(r, s);
    } finally {
      if (pushed) ctes.pop();
      depth--;
      nesting[0]--;
    }
  }

  /** ORDER BY / LIMIT of a set operation or parenthesized query: over its output columns only. */
  private Rel orderAndLimitOutputs(Rel r, Select s) {
    List<OrderByElement> order = s instanceof ParenthesedSelect ? null : s.getOrderByElements();
    LogicalPlan plan = r.plan();
    long[] lo = limitOffset(s);
    if (order != null && !order.isEmpty()) {
      List<Field> fields = plan.schema().getFields();
      List<SortKey> keys = new ArrayList<>();
      for (OrderByElement o : order) {
        int index = -1;
        Expression e = o.getExpression();
        if (e instanceof LongValue l) {
          index = position(l) - 1;
        } else if (e instanceof net.sf.jsqlparser.schema.Column c) {
          for (int i = 0; i < r.visible().size(); i++) {
            if (r.visible().get(i).equalsIgnoreCase(ExprBinder.unquote(c.getColumnName()))) index = i;
          }
        }
        if (index < 0 || index >= fields.size()) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "ORDER BY of a set operation must name an output column: "
              + SqlPositions.snippet(e) + at(e.toString()));
        }
        keys.add(sortKey(o, ref(fields.get(index))));
      }
      plan = new LogicalPlan.Sort(plan, keys, lo[0] < 0 ? -1 : saturatedAdd(lo[0], lo[1]));
    }
    return new Rel(limit(plan, lo), r.visible());
  }

  /** An ORDER BY / GROUP BY output position, or 0 when it is beyond any select list. */
  private static int position(LongValue l) {
    if (l.getStringValue().length() > 12) return 0;
    java.math.BigInteger v = l.getBigIntegerValue();
    return v.bitLength() < 32 ? v.intValue() : 0;
  }

  private static long saturatedAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }

  private LogicalPlan limit(LogicalPlan plan, long[] lo) {
    if (lo[0] < 0 && lo[1] == 0) return plan;
    return new LogicalPlan.Limit(plan, lo[0] < 0 ? Long.MAX_VALUE : lo[0], lo[1]);
  }

  /** {limit or -1, offset}. */
  private long[] limitOffset(Select ps) {
    long limit = -1;
    long offset = 0;
    if (ps.getLimit() != null) {
      if (ps.getLimit().getOffset() != null) offset = constant(ps.getLimit().getOffset(), "OFFSET");
      if (ps.getLimit().getRowCount() != null && !ps.getLimit().isLimitAll() && !ps.getLimit().isLimitNull()) {
        limit = constant(ps.getLimit().getRowCount(), "LIMIT");
      }
    }
    if (ps.getOffset() != null) offset = constant(ps.getOffset().getOffset(), "OFFSET");
    if (ps.getFetch() != null) throw QuiverException.unsupported("FETCH FIRST (use LIMIT)");
    return new long[] {limit, offset};
  }

  private long constant(Expression e, String what) {
    if (e instanceof LongValue l && ExprBinder.integerValue(l).bitLength() < 64) return l.getValue();
    throw new QuiverException(ErrorCode.INVALID_QUERY, what + " must be a non-negative integer constant, not "
        + SqlPositions.snippet(e) + SqlPositions.suffix(sql, what));
  }

  private SortKey sortKey(OrderByElement o, Expr e) {
    boolean asc = o.isAsc();
    boolean nullsFirst = o.getNullOrdering() == OrderByElement.NullOrdering.NULLS_FIRST;
    return new SortKey(e, asc, nullsFirst);
  }

  // ---------------------------------------------------------------- set operations and VALUES

  private Rel setOperation(SetOperationList so, Scope outer) {
    List<Select> selects = so.getSelects();
    // INTERSECT and EXCEPT nest their plans (a chain of UNIONs does not): bound the depth like expressions'
    long nesting = so.getOperations().stream().filter(o -> !(o instanceof UnionOp)).count();
    if (nesting > limits.maxNestingDepth()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "more than " + limits.maxNestingDepth()
          + " INTERSECT and EXCEPT operations in one query (limit " + limits.maxNestingDepth() + ")");
    }
    Rel acc = operand(selects.get(0), outer);
    int i = 1;
    while (i < selects.size()) {
      if (!(so.getOperations().get(i - 1) instanceof UnionOp)) {
        acc = combine(acc, operand(selects.get(i), outer), so.getOperations().get(i - 1));
        i++;
        continue;
      }
      // a run of UNIONs becomes one n-ary Union, typed once: a tree as deep as the chain is long would be
      // walked recursively by every rule, and typing it pair by pair is quadratic in its length
      List<Rel> run = new ArrayList<>(List.of(acc));
      List<Boolean> all = new ArrayList<>();
      for (; i < selects.size() && so.getOperations().get(i - 1) instanceof UnionOp u; i++) {
        run.add(operand(selects.get(i), outer));
        all.add(u.isAll());
      }
      acc = union(run, all);
    }
    return acc;
  }

  /**
   * A query of a set operation: its untyped NULL columns stay untyped, to take the type of the other queries'
   * columns (SELECT NULL UNION SELECT 'a' is VARCHAR); the set operation types them.
   */
  private Rel operand(Select s, Scope outer) {
    Select inner = s;
    while (inner instanceof ParenthesedSelect p && p.getSelect() != null && p.getOrderByElements() == null
        && p.getLimit() == null) {
      inner = p.getSelect();
    }
    Select saved = untypedNullsAllowed;
    untypedNullsAllowed = inner;
    try {
      return query(s, outer);
    } finally {
      untypedNullsAllowed = saved;
    }
  }

  /** The column types two sides of a set operation meet at (NULL when both are untyped NULL). */
  private static List<ArrowType> setOperationTypes(List<ArrowType> lf, List<Field> rf, String name) {
    if (lf.size() != rf.size()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "each " + name + " query must have the same number of columns ("
          + lf.size() + " and " + rf.size() + ")");
    }
    List<ArrowType> types = new ArrayList<>();
    for (int i = 0; i < lf.size(); i++) {
      ArrowType l = lf.get(i);
      ArrowType r = rf.get(i).getType();
      ArrowType t = SqlTypes.isNull(l) ? r : SqlTypes.isNull(r) ? l : SqlTypes.comparisonCommon(l, r);
      if (t == null) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, name + " column " + (i + 1) + " has types "
            + SqlTypes.sqlName(l) + " and " + SqlTypes.sqlName(r) + ", which do not match");
      }
      types.add(t);
    }
    return types;
  }

  private static List<ArrowType> typesOf(List<Field> fields) {
    return fields.stream().map(Field::getType).toList();
  }

  private static List<ArrowType> typedNulls(List<ArrowType> types) {
    return types.stream().map(t -> SqlTypes.isNull(t) ? SqlTypes.INTEGER : t).toList();
  }

  /**
   * {@code rels[0] UNION [ALL] rels[1] UNION [ALL] …} (left to right; {@code all.get(k)} is the operation
   * before {@code rels[k + 1]}): everything up to the last UNION without ALL is one DISTINCT Union, the rest
   * is appended to it.
   */
  private Rel union(List<Rel> rels, List<Boolean> all) {
    List<ArrowType> types = typesOf(rels.get(0).plan().schema().getFields());
    for (int k = 1; k < rels.size(); k++) {
      types = setOperationTypes(types, rels.get(k).plan().schema().getFields(), all.get(k - 1) ? "UNION ALL" : "UNION");
    }
    List<ArrowType> target = typedNulls(types);
    int lastDistinct = all.lastIndexOf(false) + 1; // rels[0..lastDistinct] are under a DISTINCT
    List<LogicalPlan> inputs = new ArrayList<>();
    for (int k = 0; k < rels.size(); k++) {
      inputs.add(castTo(rels.get(k).plan(), target));
      if (k == lastDistinct && k > 0) {
        LogicalPlan head = distinct(new LogicalPlan.Union(inputs));
        inputs = new ArrayList<>(List.of(head));
      }
    }
    return new Rel(inputs.size() == 1 ? inputs.get(0) : new LogicalPlan.Union(inputs), rels.get(0).visible());
  }

  private Rel combine(Rel left, Rel right, SetOperation op) {
    String name = op.toString().trim().toUpperCase(Locale.ROOT);
    List<ArrowType> types = typedNulls(setOperationTypes(typesOf(left.plan().schema().getFields()),
        right.plan().schema().getFields(), name));
    LogicalPlan l = castTo(left.plan(), types);
    LogicalPlan r = castTo(right.plan(), types);
    boolean except = op instanceof ExceptOp || op instanceof MinusOp;
    if (!except && !(op instanceof IntersectOp)) throw QuiverException.unsupported(name);
    if (op.toString().toUpperCase(Locale.ROOT).contains("ALL")) throw QuiverException.unsupported(name);
    List<Expr> conds = new ArrayList<>();
    List<Field> lf2 = l.schema().getFields();
    List<Field> rf2 = r.schema().getFields();
    for (int i = 0; i < lf2.size(); i++) conds.add(new Expr.DistinctFrom(ref(lf2.get(i)), ref(rf2.get(i)), true));
    LogicalPlan join = new LogicalPlan.Join(l, r, except ? JoinType.ANTI : JoinType.SEMI, Exprs.and(conds));
    return new Rel(distinct(join), left.visible());
  }

  /** {@code plan} with its columns cast to {@code types} (same names), or itself when they match. */
  private static LogicalPlan castTo(LogicalPlan plan, List<ArrowType> types) {
    List<Field> fields = plan.schema().getFields();
    boolean same = true;
    List<NamedExpr> out = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Expr e = ExprBinder.coerce(ref(fields.get(i)), types.get(i));
      same &= e instanceof Expr.ColumnRef;
      out.add(new NamedExpr(e, fields.get(i).getName()));
    }
    return same ? plan : new LogicalPlan.Project(plan, out);
  }

  private static LogicalPlan distinct(LogicalPlan plan) {
    List<NamedExpr> groups = new ArrayList<>();
    for (Field f : plan.schema().getFields()) groups.add(new NamedExpr(ref(f), f.getName()));
    return new LogicalPlan.Aggregate(plan, groups, List.of());
  }

  private Rel values(Values v) {
    List<List<Expression>> rows = new ArrayList<>();
    ExpressionList<?> list = v.getExpressions();
    for (Expression e : list) {
      if (e instanceof ParenthesedExpressionList<?> p) rows.add(new ArrayList<>(p));
      else if (e instanceof net.sf.jsqlparser.expression.RowConstructor<?> rc) rows.add(new ArrayList<>(rc));
      else rows.add(List.of(e));
    }
    if (rows.isEmpty()) throw new QuiverException(ErrorCode.INVALID_QUERY, "VALUES needs at least one row");
    int width = rows.get(0).size();
    List<List<Expr>> bound = new ArrayList<>();
    ExprBinder binder = binder(Scope.none(), false, List.of());
    for (List<Expression> row : rows) {
      if (row.size() != width) throw new QuiverException(ErrorCode.INVALID_QUERY, "VALUES rows must all have "
          + width + " values: " + SqlPositions.snippet(row));
      List<Expr> b = new ArrayList<>();
      for (Expression e : row) b.add(ExprBinder.settleParameters(binder.bind(e)));
      bound.add(b);
    }
    List<String> visible = new ArrayList<>();
    List<String> internal = new ArrayList<>();
    for (int c = 0; c < width; c++) {
      visible.add("column" + (c + 1));
      internal.add(names.unique("column" + (c + 1), "values"));
    }
    List<ArrowType> types = new ArrayList<>();
    for (int c = 0; c < width; c++) {
      ArrowType t = SqlTypes.NULL;
      for (List<Expr> row : bound) {
        ArrowType x = row.get(c).type();
        ArrowType m = SqlTypes.isNull(t) ? x : SqlTypes.isNull(x) ? t : SqlTypes.comparisonCommon(t, x);
        if (m == null) throw new QuiverException(ErrorCode.INVALID_QUERY, "VALUES column " + (c + 1) + " mixes "
            + SqlTypes.sqlName(t) + " and " + SqlTypes.sqlName(x));
        t = m;
      }
      types.add(SqlTypes.isNull(t) ? SqlTypes.INTEGER : t);
    }
    List<LogicalPlan> inputs = new ArrayList<>();
    for (List<Expr> row : bound) {
      List<NamedExpr> out = new ArrayList<>();
      for (int c = 0; c < width; c++) out.add(new NamedExpr(ExprBinder.coerce(row.get(c), types.get(c)), internal.get(c)));
      inputs.add(new LogicalPlan.Project(new LogicalPlan.OneRow(), out));
    }
    return new Rel(inputs.size() == 1 ? inputs.get(0) : new LogicalPlan.Union(inputs), visible);
  }

  // ---------------------------------------------------------------- FROM

  private record From(LogicalPlan plan, List<Scope.Entry> entries) {}

  private From from(FromItem item, List<Join> joins, Scope outer) {
    From acc = fromItem(item, outer);
    if (joins == null) return acc;
    for (Join j : joins) {
      if (j.isNatural()) throw QuiverException.unsupported("NATURAL JOIN", at("NATURAL"));
      if (j.isApply() || j.isSemi() || j.isStraight() || j.isWindowJoin()) throw QuiverException.unsupported("the join " + j);
      From right = fromItem(j.getRightItem(), outer);
      List<Scope.Entry> entries = new ArrayList<>(acc.entries());
      entries.addAll(right.entries());
      JoinType type = j.isFull() ? JoinType.FULL : j.isLeft() ? JoinType.LEFT : j.isRight() ? JoinType.RIGHT : JoinType.INNER;
      Scope scope = new Scope(entries, outer);
      List<Expr> conds = new ArrayList<>();
      if (j.getOnExpressions() != null) {
        for (Expression on : j.getOnExpressions()) {
          ExprBinder b = binder(scope, false, List.of());
          conds.add(ExprBinder.settleParameters(b.bindPredicate(on)));
        }
      }
      if (j.getUsingColumns() != null) {
        for (net.sf.jsqlparser.schema.Column c : j.getUsingColumns()) {
          String n = ExprBinder.unquote(c.getColumnName());
          Expr l = new Scope(acc.entries(), null).resolve(null, n, sql);
          Expr r = new Scope(right.entries(), null).resolve(null, n, sql);
          ArrowType t = SqlTypes.comparisonCommon(l.type(), r.type());
          if (t == null) throw new QuiverException(ErrorCode.INVALID_QUERY, "USING column " + n + " has different types");
          conds.add(new Expr.Comparison(Expr.CmpOp.EQ, ExprBinder.coerce(l, t), ExprBinder.coerce(r, t)));
        }
      }
      if (conds.isEmpty() && type != JoinType.INNER) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, type + " JOIN needs an ON or USING condition" + at("JOIN"));
      }
      Expr cond = conds.isEmpty() ? null : Exprs.and(conds);
      // above an outer join, the padded side's columns can be NULL whatever the table says
      List<Scope.Entry> after = new ArrayList<>();
      for (Scope.Entry e : acc.entries()) after.add(type == JoinType.RIGHT || type == JoinType.FULL ? nullable(e) : e);
      for (Scope.Entry e : right.entries()) after.add(type == JoinType.LEFT || type == JoinType.FULL ? nullable(e) : e);
      acc = new From(new LogicalPlan.Join(acc.plan(), right.plan(), type, cond), after);
    }
    return acc;
  }

  private static Scope.Entry nullable(Scope.Entry e) {
    List<Scope.Column> cols = new ArrayList<>();
    for (Scope.Column c : e.columns()) cols.add(new Scope.Column(c.name(), c.internal(), c.type(), true));
    return new Scope.Entry(e.qualifier(), e.table(), cols, e.unsupported());
  }

  private From fromItem(FromItem item, Scope outer) {
    if (!(item instanceof ParenthesedFromItem) && ++relations > limits.maxRelations()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement joins more than " + limits.maxRelations()
          + " tables and subqueries (limit " + limits.maxRelations() + ")");
    }
    String alias = item.getAlias() == null ? null : ExprBinder.unquote(item.getAlias().getName());
    if (item instanceof Table t) {
      WithItem<?> cte = t.getSchemaName() == null ? cte(ExprBinder.unquote(t.getName())) : null;
      if (cte != null) {
        Select body = (Select) cte.getParenthesedStatement();
        Rel r = withoutCte(ExprBinder.unquote(t.getName()), () -> query(body, null));
        List<String> visible = r.visible();
        if (cte.getWithItemList() != null && !cte.getWithItemList().isEmpty()) {
          visible = new ArrayList<>();
          for (SelectItem<?> c : cte.getWithItemList()) visible.add(ExprBinder.unquote(c.toString()));
        }
        return derived(r, visible, alias != null ? alias : ExprBinder.unquote(t.getName()), item);
      }
      ParquetTable table = table(t);
      String qualifier = alias != null ? alias : table.name();
      List<String> columns = new ArrayList<>();
      List<String> internal = new ArrayList<>();
      List<Scope.Column> cols = new ArrayList<>();
      for (Field f : table.schema().getFields()) {
        String n = names.unique(f.getName(), qualifier);
        columns.add(f.getName());
        internal.add(n);
        cols.add(new Scope.Column(f.getName(), n, f.getType(), f.isNullable()));
      }
      LogicalPlan scan = new LogicalPlan.TableScan(table, columns, internal, null, null);
      return new From(scan, List.of(new Scope.Entry(qualifier, table.name(), cols, table.unsupportedColumns())));
    }
    if (item instanceof ParenthesedSelect p) {
      Rel r = query(p.getSelect() != null ? p.getSelect() : p, null);
      r = orderAndLimitOutputsOf(p, r);
      List<String> visible = r.visible();
      if (p.getAlias() != null && p.getAlias().getAliasColumns() != null && !p.getAlias().getAliasColumns().isEmpty()) {
        visible = new ArrayList<>();
        for (var c : p.getAlias().getAliasColumns()) visible.add(ExprBinder.unquote(c.name));
      }
      return derived(r, visible, alias, item);
    }
    if (item instanceof Values v) {
      Rel r = values(v);
      List<String> visible = r.visible();
      if (v.getAlias() != null && v.getAlias().getAliasColumns() != null && !v.getAlias().getAliasColumns().isEmpty()) {
        visible = new ArrayList<>();
        for (var c : v.getAlias().getAliasColumns()) visible.add(ExprBinder.unquote(c.name));
      }
      return derived(r, visible, alias, item);
    }
    if (item instanceof ParenthesedFromItem pf) {
      From f = from(pf.getFromItem(), pf.getJoins(), outer);
      if (alias == null) return f;
      List<Scope.Entry> renamed = new ArrayList<>();
      List<Scope.Column> cols = new ArrayList<>();
      for (Scope.Entry e : f.entries()) cols.addAll(e.columns());
      var columnList = pf.getAlias().getAliasColumns();
      if (columnList != null && !columnList.isEmpty()) {
        // (VALUES …) AS v(a, b) and (t JOIN u …) AS j(a, b, …): the column list names the columns
        if (columnList.size() != cols.size()) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "the column list of " + alias + " names " + columnList.size()
              + " columns, but the query has " + cols.size());
        }
        for (int i = 0; i < cols.size(); i++) {
          Scope.Column c = cols.get(i);
          cols.set(i, new Scope.Column(ExprBinder.unquote(columnList.get(i).name), c.internal(), c.type(), c.nullable()));
        }
      }
      renamed.add(new Scope.Entry(alias, alias, cols, Map.of()));
      return new From(f.plan(), renamed);
    }
    throw QuiverException.unsupported("the FROM item " + item, at(String.valueOf(item)));
  }

  /** The ORDER BY / LIMIT written after a parenthesized derived table's closing parenthesis. */
  private Rel orderAndLimitOutputsOf(ParenthesedSelect p, Rel r) {
    return r;
  }

  private From derived(Rel r, List<String> visible, String qualifier, FromItem item) {
    List<Field> fields = r.plan().schema().getFields();
    if (visible.size() != fields.size()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the column list of " + qualifier + " names " + visible.size()
          + " columns, but the query has " + fields.size());
    }
    List<Scope.Column> cols = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      cols.add(new Scope.Column(visible.get(i), f.getName(), f.getType(), f.isNullable()));
    }
    return new From(r.plan(), List.of(new Scope.Entry(qualifier, qualifier == null ? "subquery" : qualifier, cols, Map.of())));
  }

  private WithItem<?> cte(String name) {
    for (Map<String, WithItem<?>> m : ctes) {
      WithItem<?> w = m.get(name.toLowerCase(Locale.ROOT));
      if (w != null) return w;
    }
    return null;
  }

  /** Runs {@code body} with CTE {@code name} hidden (a CTE's own body cannot refer to itself). */
  private <T> T withoutCte(String name, java.util.function.Supplier<T> body) {
    Map<String, WithItem<?>> hidden = new HashMap<>();
    hidden.put(name.toLowerCase(Locale.ROOT), null);
    // a map with a null value shadows outer definitions: look-ups stop at the first map that has the key
    Deque<Map<String, WithItem<?>>> saved = new ArrayDeque<>(ctes);
    List<Map<String, WithItem<?>>> inner = new ArrayList<>();
    for (Map<String, WithItem<?>> m : saved) {
      if (m.containsKey(name.toLowerCase(Locale.ROOT))) break;
      inner.add(m);
    }
    // the CTE's body sees the CTEs defined before it at its own level and the outer ones
    try {
      ctes.clear();
      boolean past = false;
      for (Map<String, WithItem<?>> m : saved) {
        if (!past && m.containsKey(name.toLowerCase(Locale.ROOT))) {
          Map<String, WithItem<?>> before = new LinkedHashMap<>();
          for (var e : m.entrySet()) {
            if (e.getKey().equals(name.toLowerCase(Locale.ROOT))) break;
            before.put(e.getKey(), e.getValue());
          }
          ctes.addLast(before);
          past = true;
        } else if (past) {
          ctes.addLast(m);
        }
      }
      return body.get();
    } finally {
      ctes.clear();
      ctes.addAll(saved);
    }
  }

  private ParquetTable table(Table t) {
    String name = ExprBinder.unquote(t.getName());
    String schema = t.getSchemaName() == null ? null : ExprBinder.unquote(t.getSchemaName());
    String database = t.getDatabase() == null || t.getDatabase().getDatabaseName() == null ? null
        : ExprBinder.unquote(t.getDatabase().getDatabaseName());
    boolean qualifiedOk = (schema == null || schema.equalsIgnoreCase(SCHEMA))
        && (database == null || database.equalsIgnoreCase(CATALOG));
    ParquetTable table = qualifiedOk ? catalog.table(name) : null;
    if (table == null) {
      throw new QuiverException(ErrorCode.NOT_FOUND, "table " + SqlPositions.snippet(t.getFullyQualifiedName()) + " does not exist"
          + at(name));
    }
    return table;
  }

  // ---------------------------------------------------------------- SELECT

  private Rel plainSelect(PlainSelect ps, Scope outer, Correlation corr) {
    rejectUnsupported(ps);
    // a set operation's operand without ORDER BY or LIMIT: no sort or limit moves its untyped NULL columns
    boolean keepUntypedNulls = ps == untypedNullsAllowed && ps.getOrderByElements() == null && ps.getLimit() == null
        && ps.getOffset() == null;
    Block b;
    if (ps.getFromItem() == null) {
      if (ps.getJoins() != null && !ps.getJoins().isEmpty()) throw QuiverException.unsupported("JOIN without FROM");
      b = new Block(new Scope(List.of(), outer), new LogicalPlan.OneRow());
    } else {
      From f = from(ps.getFromItem(), ps.getJoins(), outer);
      b = new Block(new Scope(f.entries(), outer), f.plan());
    }
    Set<String> outerNames = b.scope.outerNames();

    // WHERE: subquery predicates become joins, correlated predicates are taken out for the caller
    if (ps.getWhere() != null) {
      List<Expr> filters = new ArrayList<>();
      for (Expression term : andTerms(ps.getWhere())) {
        if (subqueryPredicate(term, b)) continue;
        Expr bound = ExprBinder.settleParameters(b.binder(false, List.of()).bind(term));
        if (SqlTypes.isNull(bound.type())) bound = ExprBinder.coerce(bound, SqlTypes.BOOLEAN);
        if (!SqlTypes.isBoolean(bound.type())) {
          throw new QuiverException(ErrorCode.INVALID_QUERY,
              "WHERE must be a BOOLEAN expression, not " + SqlTypes.sqlName(bound.type()) + ": "
                  + SqlPositions.snippet(term));
        }
        if (corr != null && corr.mode != Mode.NONE && intersects(Exprs.columns(bound), outerNames)) {
          corr.conjuncts.add(bound);
          corr.written.add(term);
        } else {
          filters.add(bound);
        }
      }
      b.flush();
      if (!filters.isEmpty()) b.plan = new LogicalPlan.Filter(b.plan, Exprs.and(filters));
    }
    boolean correlated = corr != null && !corr.conjuncts.isEmpty();
    if (correlated && corr.mode == Mode.EXISTS) {
      // the select list of EXISTS does not matter; the correlated predicates read the FROM columns
      if (ps.getGroupBy() != null || ps.getHaving() != null || hasAggregate(ps) || ps.getLimit() != null) {
        throw QuiverException.unsupported("a correlated EXISTS subquery with GROUP BY, HAVING, aggregates or LIMIT");
      }
      return new Rel(b.plan, List.of());
    }

    // SELECT list, HAVING and ORDER BY are bound together: they share the aggregates
    List<AggregateCall> aggregates = new ArrayList<>();
    ExprBinder binder = b.binder(true, aggregates);
    List<Expr> items = new ArrayList<>();
    List<String> visible = new ArrayList<>();
    Map<String, String> visibleOf = new HashMap<>();
    for (Scope.Column c : b.scope.columns()) visibleOf.putIfAbsent(c.internal(), c.name());
    for (SelectItem<?> item : ps.getSelectItems()) {
      Expression e = item.getExpression();
      if (e instanceof AllColumns || e instanceof AllTableColumns) {
        List<Scope.Column> cols = new ArrayList<>();
        if (e instanceof AllTableColumns atc) {
          String q = ExprBinder.unquote(atc.getTable().getName());
          boolean found = false;
          for (Scope.Entry en : b.scope.entries()) {
            if (en.qualifier() != null && en.qualifier().equalsIgnoreCase(q)) {
              cols.addAll(en.columns());
              found = true;
            }
          }
          if (!found) throw new QuiverException(ErrorCode.NOT_FOUND, "table or alias " + SqlPositions.snippet(q) + " is not in the FROM clause" + at(q));
        } else {
          if (b.scope.entries().isEmpty()) throw new QuiverException(ErrorCode.INVALID_QUERY, "SELECT * with no FROM clause");
          cols.addAll(b.scope.columns());
        }
        if (cols.isEmpty()) {
          // a table whose columns are all unreadable: say so instead of returning no columns
          List<String> why = new ArrayList<>();
          for (Scope.Entry en : b.scope.entries()) {
            for (var u : en.unsupported().entrySet()) why.add(u.getKey() + " (" + u.getValue() + ")");
          }
          throw QuiverException.unsupported("SELECT * over no readable column" + (why.isEmpty() ? "" : "; the columns are "
              + String.join(", ", why)));
        }
        for (Scope.Column c : cols) {
          items.add(c.ref());
          visible.add(c.name());
        }
        continue;
      }
      Expr bound = ExprBinder.settleParameters(binder.bind(e));
      if (!keepUntypedNulls) bound = typedNull(bound);
      items.add(bound);
      String name = item.getAlias() != null ? ExprBinder.unquote(item.getAlias().getName())
          : bound instanceof Expr.ColumnRef c && visibleOf.containsKey(c.name()) ? visibleOf.get(c.name()) : columnName(e);
      visible.add(name);
    }
    Expr having = null;
    if (ps.getHaving() != null) {
      having = ExprBinder.settleParameters(binder.bind(ps.getHaving()));
      if (!SqlTypes.isBoolean(having.type())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "HAVING must be a BOOLEAN expression: "
            + SqlPositions.snippet(ps.getHaving()));
      }
    }
    // ORDER BY: an output position, an output alias, or an expression over the input
    List<OrderByElement> order = ps.getOrderByElements() == null ? List.of() : ps.getOrderByElements();
    List<Object> orderTargets = new ArrayList<>(); // Integer (output index) or Expr
    for (OrderByElement o : order) {
      Expression e = o.getExpression();
      if (e instanceof LongValue l) {
        int k = position(l);
        if (k < 1 || k > items.size()) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "ORDER BY position " + k + " is not in the select list" + at(e.toString()));
        }
        orderTargets.add(k - 1);
        continue;
      }
      if (e instanceof net.sf.jsqlparser.schema.Column c && c.getTable() == null) {
        int found = -1;
        for (int i = 0; i < ps.getSelectItems().size() && i < visible.size(); i++) {
          SelectItem<?> si = ps.getSelectItems().get(i);
          if (si.getAlias() != null && ExprBinder.unquote(si.getAlias().getName()).equalsIgnoreCase(ExprBinder.unquote(c.getColumnName()))) {
            found = i;
            break;
          }
        }
        if (found >= 0) {
          orderTargets.add(found);
          continue;
        }
      }
      orderTargets.add(typedNull(ExprBinder.settleParameters(binder.bind(e))));
    }
    // GROUP BY
    List<Expr> groupExprs = new ArrayList<>();
    if (ps.getGroupBy() != null) {
      if (ps.getGroupBy().getGroupingSets() != null && !ps.getGroupBy().getGroupingSets().isEmpty()) {
        throw QuiverException.unsupported("GROUPING SETS", at("GROUPING"));
      }
      ExpressionList<?> gl = ps.getGroupBy().getGroupByExpressionList();
      // no subqueries in GROUP BY: their joins would come after the aggregation that groups by them
      ExprBinder gb = binder(b.scope, false, List.of());
      if (gl != null) {
        for (Object o : gl) {
          Expression e = (Expression) o;
          if (e instanceof LongValue l) {
            int k = position(l);
            if (k < 1 || k > items.size()) {
              throw new QuiverException(ErrorCode.INVALID_QUERY, "GROUP BY position " + k + " is not in the select list" + at(e.toString()));
            }
            groupExprs.add(items.get(k - 1));
            continue;
          }
          Expr g;
          try {
            g = gb.bind(e);
          } catch (QuiverException notAColumn) {
            // GROUP BY an output alias
            int found = -1;
            if (e instanceof net.sf.jsqlparser.schema.Column c && c.getTable() == null) {
              for (int i = 0; i < ps.getSelectItems().size(); i++) {
                SelectItem<?> si = ps.getSelectItems().get(i);
                if (si.getAlias() != null && ExprBinder.unquote(si.getAlias().getName()).equalsIgnoreCase(ExprBinder.unquote(c.getColumnName()))) found = i;
              }
            }
            if (found < 0) throw notAColumn;
            g = items.get(found);
          }
          groupExprs.add(typedNull(ExprBinder.settleParameters(g)));
        }
      }
    }
    boolean grouped = ps.getGroupBy() != null || !aggregates.isEmpty();
    boolean scalarCorrelated = correlated && corr.mode == Mode.SCALAR;
    if (correlated && corr.mode == Mode.IN && grouped) {
      throw QuiverException.unsupported("a correlated IN subquery with GROUP BY or aggregates");
    }
    if (scalarCorrelated) {
      if (!grouped || ps.getGroupBy() != null) {
        throw QuiverException.unsupported("a correlated scalar subquery that is not a single aggregate (add an aggregate such as max())");
      }
      for (int k = 0; k < corr.conjuncts.size(); k++) {
        Expr c = corr.conjuncts.get(k);
        String written = SqlPositions.snippet(corr.written.get(k));
        if (!(c instanceof Expr.Comparison cmp && cmp.op() == Expr.CmpOp.EQ)) {
          throw QuiverException.unsupported("the correlated predicate " + written + " in a scalar subquery (only equalities are)");
        }
        boolean leftOuter = intersects(Exprs.columns(cmp.left()), outerNames);
        boolean rightOuter = intersects(Exprs.columns(cmp.right()), outerNames);
        Expr inner = leftOuter ? cmp.right() : cmp.left();
        Expr outerSide = leftOuter ? cmp.left() : cmp.right();
        if (leftOuter == rightOuter || intersects(Exprs.columns(inner), outerNames) || Exprs.columns(inner).isEmpty()
            || !outerNames.containsAll(Exprs.columns(outerSide))) {
          throw QuiverException.unsupported("the correlated predicate " + written + " in a scalar subquery");
        }
        corr.innerKeys.add(inner);
        corr.outerKeys.add(outerSide);
      }
      groupExprs.addAll(0, corr.innerKeys);
    }
    Set<String> postAggNames = new HashSet<>();
    if (grouped) {
      List<NamedExpr> groups = new ArrayList<>();
      Map<Expr, Expr.ColumnRef> groupRefs = new LinkedHashMap<>();
      for (Expr g : groupExprs) {
        if (groupRefs.containsKey(g)) continue;
        String n = g instanceof Expr.ColumnRef c ? c.name() : names.fresh("__group");
        groups.add(new NamedExpr(g, n));
        groupRefs.put(g, new Expr.ColumnRef(n, g.type(), g.nullable()));
      }
      if (scalarCorrelated) for (Expr k : corr.innerKeys) corr.keyNames.add(groupRefs.get(k).name());
      b.plan = new LogicalPlan.Aggregate(b.plan, groups, aggregates);
      for (Field f : b.plan.schema().getFields()) postAggNames.add(f.getName());
      b.flush(); // scalar subqueries of the SELECT list / HAVING join the aggregated rows
      for (Field f : b.plan.schema().getFields()) postAggNames.add(f.getName());
      shownNames.clear();
      for (Scope.Entry en : b.scope.entries()) {
        for (Scope.Column c : en.columns()) {
          // a column whose internal name is not its own was renamed to keep it apart: show its qualifier
          boolean renamed = !c.internal().equals(c.name());
          shownNames.putIfAbsent(c.internal(), en.qualifier() == null || !renamed ? c.name() : en.qualifier() + "." + c.name());
        }
      }
      items.replaceAll(x -> postAggregate(x, groupRefs, postAggNames));
      if (having != null) having = postAggregate(having, groupRefs, postAggNames);
      orderTargets.replaceAll(x -> x instanceof Expr e ? postAggregate(e, groupRefs, postAggNames) : x);
    } else {
      b.flush();
    }
    if (having != null) {
      if (!grouped) throw new QuiverException(ErrorCode.INVALID_QUERY, "HAVING needs GROUP BY or an aggregate" + at("HAVING"));
      b.plan = new LogicalPlan.Filter(b.plan, having);
    }

    // projection with internal names; ORDER BY expressions not in the list become hidden columns
    List<NamedExpr> outputs = new ArrayList<>();
    Set<String> used = new HashSet<>();
    for (int i = 0; i < items.size(); i++) {
      Expr x = items.get(i);
      String n = x instanceof Expr.ColumnRef c && used.add(c.name()) ? c.name()
          : names.unique(sanitize(visible.get(i)), null);
      used.add(n);
      outputs.add(new NamedExpr(x, n));
    }
    int visibleCount = outputs.size();
    if (correlated && corr.mode == Mode.IN) {
      // the correlated predicates read inner columns: pass them through
      for (Expr c : corr.conjuncts) {
        for (String col : Exprs.columns(c)) {
          if (outerNames.contains(col) || used.contains(col)) continue;
          used.add(col);
          Field f = field(b.plan, col);
          outputs.add(new NamedExpr(ref(f), col));
        }
      }
    }
    if (scalarCorrelated) {
      for (String k : corr.keyNames) {
        Field f = field(b.plan, k);
        String n = used.add(k) ? k : names.fresh("__key");
        outputs.add(new NamedExpr(ref(f), n));
        corr.keyNames.set(corr.keyNames.indexOf(k), n);
      }
    }
    boolean distinct = ps.getDistinct() != null;
    List<SortKey> keys = new ArrayList<>();
    for (int i = 0; i < orderTargets.size(); i++) {
      Object t = orderTargets.get(i);
      int index = -1;
      if (t instanceof Integer k) {
        index = k;
      } else {
        for (int j = 0; j < visibleCount; j++) if (outputs.get(j).expr().equals(t)) index = j;
        if (index < 0) {
          if (distinct) {
            throw new QuiverException(ErrorCode.INVALID_QUERY, "for SELECT DISTINCT, ORDER BY expressions must appear in the select list: "
                + SqlPositions.snippet(order.get(i).getExpression()));
          }
          outputs.add(new NamedExpr((Expr) t, names.fresh("__order")));
          index = outputs.size() - 1;
        }
      }
      NamedExpr target = outputs.get(index);
      keys.add(sortKey(order.get(i), new Expr.ColumnRef(target.name(), target.expr().type(), target.expr().nullable())));
    }
    b.plan = new LogicalPlan.Project(b.plan, outputs);
    if (distinct) {
      if (ps.getDistinct().getOnSelectItems() != null && !ps.getDistinct().getOnSelectItems().isEmpty()) {
        throw QuiverException.unsupported("DISTINCT ON", at("DISTINCT"));
      }
      b.plan = distinct(b.plan);
    }
    long[] lo = limitOffset(ps);
    if (!keys.isEmpty()) b.plan = new LogicalPlan.Sort(b.plan, keys, lo[0] < 0 ? -1 : saturatedAdd(lo[0], lo[1]));
    b.plan = limit(b.plan, lo);
    if (outputs.size() > visibleCount && !(correlated && (corr.mode == Mode.IN || corr.mode == Mode.SCALAR))) {
      List<NamedExpr> keep = new ArrayList<>();
      for (int i = 0; i < visibleCount; i++) keep.add(new NamedExpr(refOf(outputs.get(i)), outputs.get(i).name()));
      b.plan = new LogicalPlan.Project(b.plan, keep);
    }
    if (correlated && corr.mode == Mode.SCALAR && visibleCount != 1) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a scalar subquery must return one column, not " + visibleCount);
    }
    // what the subquery's WHERE correlates was taken out above; any other outer reference (in the select list, an
    // aggregate's argument, …) would be read from rows that do not have it
    if (corr != null && corr.mode != Mode.NONE && hasReference(b.plan, outerNames)) {
      throw QuiverException.unsupported("a correlated reference outside the subquery's WHERE clause");
    }
    return new Rel(b.plan, visible);
  }

  private static Expr refOf(NamedExpr n) {
    return new Expr.ColumnRef(n.name(), n.expr().type(), n.expr().nullable());
  }

  private static String sanitize(String visible) {
    String s = visible.length() > 40 ? visible.substring(0, 40) : visible;
    return s.isEmpty() ? "__expr" : s;
  }

  private static Field field(LogicalPlan plan, String name) {
    for (Field f : plan.schema().getFields()) if (f.getName().equals(name)) return f;
    throw QuiverException.internal("column " + name + " not in " + plan.schema());
  }

  private static boolean intersects(Set<String> a, Set<String> b) {
    for (String x : a) if (b.contains(x)) return true;
    return false;
  }

  /** Whether any expression of the plan reads one of {@code names}. */
  private static boolean hasReference(LogicalPlan plan, Set<String> names) {
    if (names.isEmpty()) return false;
    List<Expr> exprs = new ArrayList<>();
    if (plan instanceof LogicalPlan.Filter f) exprs.add(f.condition());
    if (plan instanceof LogicalPlan.Project p) for (NamedExpr n : p.exprs()) exprs.add(n.expr());
    if (plan instanceof LogicalPlan.Join j && j.condition() != null) exprs.add(j.condition());
    if (plan instanceof LogicalPlan.Aggregate a) {
      for (NamedExpr n : a.groups()) exprs.add(n.expr());
      for (AggregateCall c : a.aggregates()) if (c.arg() != null) exprs.add(c.arg());
    }
    if (plan instanceof LogicalPlan.Sort s) for (SortKey k : s.keys()) exprs.add(k.expr());
    for (Expr e : exprs) if (intersects(Exprs.columns(e), names)) return true;
    for (LogicalPlan c : plan.children()) if (hasReference(c, names)) return true;
    return false;
  }

  /**
   * An expression over the aggregate's output: group expressions become references to their group
   * column; any other input column is an error.
   */
  /** How the user names each column of the block being aggregated ({@code qualifier.name}), for messages. */
  private final Map<String, String> shownNames = new HashMap<>();

  private Expr postAggregate(Expr e, Map<Expr, Expr.ColumnRef> groups, Set<String> available) {
    Expr.ColumnRef g = groups.get(e);
    if (g != null) return g;
    if (e instanceof Expr.ColumnRef c) {
      if (available.contains(c.name())) return c;
      String shown = shownNames.getOrDefault(c.name(), dev.quiver.planner.expr.Exprs.userName(c.name()));
      String unqualified = shown.substring(shown.lastIndexOf('.') + 1);
      String where = SqlPositions.find(sql, shown);
      throw new QuiverException(ErrorCode.INVALID_QUERY, "column " + shown
          + " must appear in the GROUP BY clause or be used in an aggregate function"
          + (where != null ? " at " + where : at(unqualified)));
    }
    List<Expr> children = e.children();
    if (children.isEmpty()) return e;
    List<Expr> next = new ArrayList<>();
    boolean changed = false;
    for (Expr c : children) {
      Expr n = postAggregate(c, groups, available);
      changed |= n != c;
      next.add(n);
    }
    return changed ? e.withChildren(next) : e;
  }

  /**
   * {@code e}, or an untyped NULL as an INTEGER (as VALUES and UNION type it): no operator moves a column of
   * Arrow's Null type (sorts, joins and limits failed on it).
   */
  private static Expr typedNull(Expr e) {
    return SqlTypes.isNull(e.type()) ? ExprBinder.coerce(e, SqlTypes.INTEGER) : e;
  }

  /**
   * The name of an unaliased select item: its SQL text. JSqlParser prints recursively, in time quadratic in a
   * chain's length: a long AND / OR / arithmetic chain is named {@code ?column?} instead (as PostgreSQL does).
   */
  private static String columnName(Expression e) {
    int spine = 0;
    for (Expression x = e; x instanceof net.sf.jsqlparser.expression.BinaryExpression b; x = b.getLeftExpression()) {
      if (++spine > 100) return "?column?";
    }
    try {
      return e.toString();
    } catch (StackOverflowError tooDeep) {
      return "?column?";
    }
  }

  private static boolean hasAggregate(PlainSelect ps) {
    String text;
    try {
      text = ps.getSelectItems().toString().toLowerCase(Locale.ROOT);
    } catch (StackOverflowError tooDeep) {
      return true;
    }
    return text.matches("(?s).*\\b(count|sum|avg|min|max|bool_and|bool_or|every|stddev\\w*|var\\w*|variance)\\s*\\(.*");
  }

  private static List<Expression> andTerms(Expression e) {
    List<Expression> out = new ArrayList<>();
    Deque<Expression> stack = new ArrayDeque<>();
    stack.push(e);
    while (!stack.isEmpty()) {
      Expression x = stack.pop();
      if (x instanceof InExpression in && (in.getRightExpression() instanceof AndExpression
          || in.getRightExpression() instanceof net.sf.jsqlparser.expression.operators.conditional.OrExpression)) {
        // JSqlParser 5.3 parses "x IN (...) AND y" as "x IN ((...) AND y)": move the IN onto the leftmost operand
        net.sf.jsqlparser.expression.BinaryExpression bin = (net.sf.jsqlparser.expression.BinaryExpression) in.getRightExpression();
        Expression top = bin;
        while (bin.getLeftExpression() instanceof AndExpression
            || bin.getLeftExpression() instanceof net.sf.jsqlparser.expression.operators.conditional.OrExpression) {
          bin = (net.sf.jsqlparser.expression.BinaryExpression) bin.getLeftExpression();
        }
        InExpression inner = new InExpression(in.getLeftExpression(), bin.getLeftExpression());
        inner.setNot(in.isNot());
        bin.setLeftExpression(inner);
        stack.push(top);
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

  // ---------------------------------------------------------------- subqueries

  /** Plans an AND-term of WHERE that is [NOT] EXISTS or [NOT] IN (subquery) as a join; false otherwise. */
  private boolean subqueryPredicate(Expression term, Block b) {
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
      Rel r = query(sub, b.scope, corr);
      Expr cond = corr.conjuncts.isEmpty() ? null : Exprs.and(corr.conjuncts);
      if (cond == null) r = new Rel(new LogicalPlan.Limit(r.plan(), 1, 0), r.visible());
      boolean negated = not;
      b.plan = new LogicalPlan.Join(b.plan, r.plan(), negated ? JoinType.ANTI : JoinType.SEMI, cond);
      return true;
    }
    if (t instanceof InExpression in && in.getRightExpression() instanceof Select sub) {
      not ^= in.isNot();
      Correlation corr = new Correlation(Mode.IN);
      Rel r = query(sub, b.scope, corr);
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
      conds.add(new Expr.Comparison(Expr.CmpOp.EQ, ExprBinder.coerce(value, common), ExprBinder.coerce(item, common)));
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
  private Expr scalarSubquery(Select sub, Block b) {
    Correlation corr = new Correlation(Mode.SCALAR);
    Rel r = query(sub, b.scope, corr);
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
      conds.add(new Expr.Comparison(Expr.CmpOp.EQ, ExprBinder.coerce(outerKey, common), ExprBinder.coerce(ref(k), common)));
    }
    LogicalPlan inner = r.plan();
    b.pending.add(p -> new LogicalPlan.Join(p, inner, JoinType.LEFT, Exprs.and(conds)));
    Expr result = new Expr.ColumnRef(value.getName(), value.getType(), true);
    // the COUNT bug: a group with no rows is absent, and its count must read 0, not NULL
    if (inner instanceof LogicalPlan.Project p && p.exprs().get(0).expr() instanceof Expr.ColumnRef c
        && p.input() instanceof LogicalPlan.Aggregate a) {
      for (AggregateCall call : a.aggregates()) {
        if (call.name().equals(c.name()) && call.func() == AggFunc.COUNT) {
          return new Expr.Call("coalesce", List.of(result, new Expr.Literal(0L, SqlTypes.BIGINT)), SqlTypes.BIGINT, false,
              Expr.Volatility.IMMUTABLE);
        }
      }
    }
    if (inner.toString().contains("COUNT")) {
      throw QuiverException.unsupported("a correlated scalar subquery with count() inside an expression");
    }
    return result;
  }

  private void rejectUnsupported(PlainSelect ps) {
    if (ps.getWindowDefinitions() != null && !ps.getWindowDefinitions().isEmpty()) throw QuiverException.unsupported("WINDOW");
    if (ps.getIntoTables() != null && !ps.getIntoTables().isEmpty()) throw QuiverException.unsupported("SELECT INTO");
  }

  private String at(String word) {
    return SqlPositions.suffix(sql, word);
  }
}
