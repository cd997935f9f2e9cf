package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.sql.Correlation.Mode;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.Catalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.Values;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Turns a parsed statement into a typed {@link LogicalPlan}: resolves table and column names (every
 * column gets an internal name unique in the statement, see {@link Names}), types every expression and
 * inserts the CASTs of type coercion, and turns subqueries into joins: {@code [NOT] EXISTS} and
 * {@code [NOT] IN} become semi/anti joins whose condition holds the correlated predicates, and a scalar
 * subquery becomes a LEFT join with its single row — grouped by the correlation keys when correlated.
 * Constructs Quiver does not support are rejected with {@link ErrorCode#UNSUPPORTED} naming them.
 *
 * <p>This class is the driver: it dispatches each query to the binder of its kind and keeps the statement-wide
 * bounds. The binders ({@link SelectBinder}, {@link FromBinder}, {@link SetOperationBinder},
 * {@link SubqueryDecorrelator}, {@link WithAndValuesBinder}) share one {@link BindingContext} per statement.
 */
public final class Analyzer {
  public static final String CATALOG = dev.quiver.planner.Sql.CATALOG;
  public static final String SCHEMA = dev.quiver.planner.Sql.SCHEMA;

  private final BindingContext cx;
  private final WithAndValuesBinder withAndValues;
  private final SetOperationBinder setOperations;
  private final SelectBinder select;
  /** How deeply subqueries nest (see {@link SqlLimits#maxSubqueryDepth()}). */
  private int depth;
  /**
   * How many queries were analyzed: a dependent subquery is planned twice (once to find the outer columns it reads,
   * see {@link SubqueryDecorrelator#dependent}), so nested ones multiply; bounded by {@link #MAX_ANALYSES}.
   */
  private int analyses;
  static final int MAX_ANALYSES = 20_000;

  public Analyzer(Catalog catalog, String sql) {
    this(catalog, sql, Parameters.unbound());
  }

  /** An analyzer that binds {@code ?} through {@code parameters}. */
  public Analyzer(Catalog catalog, String sql, Parameters parameters) {
    this(catalog, sql, parameters, SqlLimits.DEFAULT);
  }

  /** An analyzer that binds {@code ?} through {@code parameters} and keeps to {@code limits}. */
  public Analyzer(Catalog catalog, String sql, Parameters parameters, SqlLimits limits) {
    this.cx = new BindingContext(catalog, sql, parameters, limits);
    this.withAndValues = new WithAndValuesBinder(cx);
    this.setOperations = new SetOperationBinder(this, cx);
    this.select = new SelectBinder(cx, new FromBinder(this, cx, withAndValues), setOperations,
        new SubqueryDecorrelator(this));
  }

  BindingContext cx() {
    return cx;
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

  /**
   * LIMIT / OFFSET of a dependent set operation: per outer value — its rows numbered in ORDER BY order within each
   * domain value, those in the window kept.
   */
  private Rel limitedPerOuterValue(Rel r, List<LogicalPlan.SortKey> order, long[] lo, Correlation corr) {
    List<Field> fields = r.plan().schema().getFields();
    List<Expr> partition = new ArrayList<>();
    for (Field f : fields) if (corr.domainKeys.contains(f.getName())) partition.add(ref(f));
    String rn = cx.names().fresh("__row");
    LogicalPlan plan = new LogicalPlan.Window(r.plan(), List.of(new LogicalPlan.WindowCall(LogicalPlan.WindowFunc.ROW_NUMBER,
        null, false, List.of(), partition, order, null, dev.quiver.planner.types.SqlTypes.BIGINT, false, rn)));
    Expr row = new Expr.ColumnRef(rn, dev.quiver.planner.types.SqlTypes.BIGINT, false);
    Expr keep = new Expr.Comparison(Expr.CmpOp.GT, row, new Expr.Literal(lo[1], dev.quiver.planner.types.SqlTypes.BIGINT));
    if (lo[0] >= 0) {
      keep = new Expr.And(keep, new Expr.Comparison(Expr.CmpOp.LE, row,
          new Expr.Literal(OrderAndLimit.saturatedAdd(lo[0], lo[1]), dev.quiver.planner.types.SqlTypes.BIGINT)));
    }
    plan = new LogicalPlan.Filter(plan, keep);
    List<NamedExpr> back = new ArrayList<>();
    for (Field f : fields) back.add(new NamedExpr(ref(f), f.getName()));
    return new Rel(new LogicalPlan.Project(plan, back), r.visible());
  }

  /**
   * JSqlParser hangs a LIMIT / OFFSET / FETCH without ORDER BY after the last query of a set operation on that query
   * ({@code SELECT 2 UNION ALL SELECT 1 LIMIT 1}); SQL applies it to the whole operation: moved there (idempotent, as
   * a CTE's body is analyzed once per reference).
   */
  private static void trailingLimit(SetOperationList so) {
    List<Select> selects = so.getSelects();
    if (!(selects.get(selects.size() - 1) instanceof PlainSelect last) || last.getOrderByElements() != null) return;
    if (last.getLimit() == null && last.getOffset() == null && last.getFetch() == null) return;
    if (so.getLimit() != null || so.getOffset() != null || so.getFetch() != null) return;
    so.setLimit(last.getLimit());
    so.setOffset(last.getOffset());
    so.setFetch(last.getFetch());
    last.setLimit(null);
    last.setOffset(null);
    last.setFetch(null);
  }

  /** VALUES as an operand of a dependent subquery: its rows once per domain value, the domain's columns after its own. */
  static Rel domainValues(Rel values, Correlation corr) {
    LogicalPlan joined = new LogicalPlan.Join(values.plan(), corr.domain, LogicalPlan.JoinType.INNER, null);
    List<NamedExpr> out = new ArrayList<>();
    for (Field f : values.plan().schema().getFields()) out.add(new NamedExpr(ref(f), f.getName()));
    for (Field f : corr.domain.schema().getFields()) {
      if (corr.domainKeys.contains(f.getName())) out.add(new NamedExpr(ref(f), f.getName()));
    }
    return new Rel(new LogicalPlan.Project(joined, out), values.visible());
  }

  private static Expr.ColumnRef ref(Field f) {
    return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
  }

  // ---------------------------------------------------------------- queries

  Rel query(Select s, Scope outer) {
    return query(s, outer, null);
  }

  /** Analyzes {@code s} under {@code outer}; a subquery's correlated predicates go into {@code corr}. */
  Rel query(Select s, Scope outer, Correlation corr) {
    if (++analyses > MAX_ANALYSES) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement is too complex to plan: its subqueries were "
          + "planned more than " + MAX_ANALYSES + " times (correlated subqueries nested in one another)");
    }
    if (++depth > cx.limits().maxSubqueryDepth()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "subqueries are nested more than " + cx.limits().maxSubqueryDepth()
          + " levels deep");
    }
    boolean pushed = false;
    boolean entered = false;
    try {
      // a subquery is a level of expression nesting too: its binders count on from here
      cx.nesting().enter();
      entered = true;
      pushed = withAndValues.push(s);
      if (s instanceof PlainSelect ps) return select.plainSelect(ps, outer, corr);
      if (s instanceof SetOperationList so) trailingLimit(so);
      if (corr != null && corr.mode == Mode.DOMAIN && !(s instanceof ParenthesedSelect)) {
        // a dependent subquery that is a set operation or VALUES: each operand joined with the domain and returning
        // its columns, so that the operation keeps the outer values apart (INTERSECT / EXCEPT compare them too)
        Rel r;
        if (s instanceof SetOperationList so) {
          r = setOperations.setOperation(so, outer, corr);
        } else if (s instanceof Values v) {
          r = domainValues(withAndValues.values(v), corr);
        } else {
          throw QuiverException.unsupported(s.getClass().getSimpleName() + " in a subquery that reads the enclosing query's columns");
        }
        long[] lo = OrderAndLimit.limitOffset(s, cx);
        if (lo[0] < 0 && lo[1] == 0) return OrderAndLimit.outputs(r, s, cx);
        return limitedPerOuterValue(r, OrderAndLimit.sortKeys(r, s, cx), lo, corr);
      }
      if (corr != null && corr.mode != Mode.NONE && !(s instanceof ParenthesedSelect)) {
        // set operations and VALUES cannot be correlated: analyze them as stand-alone queries
        corr = null;
      }
      Rel r;
      if (s instanceof ParenthesedSelect p) {
        r = query(p.getSelect(), outer, corr);
      } else if (s instanceof SetOperationList so) {
        r = setOperations.setOperation(so, outer);
      } else if (s instanceof Values v) {
        r = withAndValues.values(v);
      } else {
        throw QuiverException.unsupported(s.getClass().getSimpleName());
      }
      return OrderAndLimit.outputs(r, s, cx);
    } finally {
      if (pushed) withAndValues.pop();
      depth--;
      if (entered) cx.nesting().exit();
    }
  }
}
