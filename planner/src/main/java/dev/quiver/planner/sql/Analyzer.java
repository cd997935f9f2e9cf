package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Turns a parsed statement into a typed {@link LogicalPlan}: resolves the table and column names,
 * types every expression and inserts the CASTs of type coercion. Constructs Quiver does not support
 * yet are rejected with {@link ErrorCode#UNSUPPORTED} naming them.
 */
public final class Analyzer {
  public static final String CATALOG = "quiver";
  public static final String SCHEMA = "main";

  private final Catalog catalog;
  private final String sql;
  private final Parameters parameters;

  public Analyzer(Catalog catalog, String sql) {
    this(catalog, sql, Parameters.unbound());
  }

  /** An analyzer that binds {@code ?} through {@code parameters}. */
  public Analyzer(Catalog catalog, String sql, Parameters parameters) {
    this.catalog = catalog;
    this.sql = sql;
    this.parameters = parameters;
  }

  public LogicalPlan analyze(Statement statement) {
    if (!(statement instanceof Select select)) {
      String kind = statement.getClass().getSimpleName().toUpperCase(Locale.ROOT);
      throw QuiverException.unsupported("the " + kind + " statement (Quiver is read-only)");
    }
    if (select instanceof SetOperationList) throw QuiverException.unsupported("UNION / INTERSECT / EXCEPT");
    if (select instanceof ParenthesedSelect p) return analyze(p.getSelect());
    if (!(select instanceof PlainSelect ps)) throw QuiverException.unsupported(select.getClass().getSimpleName());
    return plainSelect(ps);
  }

  private LogicalPlan plainSelect(PlainSelect ps) {
    rejectUnsupported(ps);
    Scope scope;
    LogicalPlan plan;
    if (ps.getFromItem() == null) {
      scope = Scope.none();
      plan = new LogicalPlan.OneRow();
    } else {
      ParquetTable table = table(ps.getFromItem());
      String alias = ps.getFromItem().getAlias() == null ? null : ExprBinder.unquote(ps.getFromItem().getAlias().getName());
      scope = Scope.of(table, alias);
      List<String> all = table.schema().getFields().stream().map(Field::getName).toList();
      plan = new LogicalPlan.TableScan(table, all, null, null);
    }

    if (ps.getWhere() != null) {
      Expr condition = ExprBinder.settleParameters(
          new ExprBinder(sql, scope, false, List.of()).withParameters(parameters).bind(ps.getWhere()));
      if (SqlTypes.isNull(condition.type())) condition = ExprBinder.coerce(condition, SqlTypes.BOOLEAN);
      if (!SqlTypes.isBoolean(condition.type())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY,
            "WHERE must be a BOOLEAN expression, not " + SqlTypes.sqlName(condition.type()) + ": " + ps.getWhere());
      }
      plan = new LogicalPlan.Filter(plan, condition);
    }

    List<AggregateCall> aggregates = new ArrayList<>();
    ExprBinder binder = new ExprBinder(sql, scope, true, aggregates).withParameters(parameters);
    List<NamedExpr> outputs = new ArrayList<>();
    for (SelectItem<?> item : ps.getSelectItems()) {
      Expression e = item.getExpression();
      if (e instanceof AllColumns || e instanceof AllTableColumns) {
        if (scope.table() == null) throw new QuiverException(ErrorCode.INVALID_QUERY, "SELECT * with no FROM clause");
        for (Field f : scope.fields()) {
          Expr ref = binder.bind(new net.sf.jsqlparser.schema.Column(f.getName()));
          outputs.add(new NamedExpr(ref, f.getName()));
        }
        continue;
      }
      Expr bound = ExprBinder.settleParameters(binder.bind(e));
      String name = item.getAlias() != null ? ExprBinder.unquote(item.getAlias().getName())
          : bound instanceof Expr.ColumnRef c && !c.name().startsWith("__agg") ? c.name() : e.toString();
      outputs.add(new NamedExpr(bound, name));
    }
    if (!aggregates.isEmpty()) {
      if (!binder.bareColumns().isEmpty()) {
        String c = binder.bareColumns().get(0);
        throw new QuiverException(ErrorCode.INVALID_QUERY, "column " + c
            + " must appear in the GROUP BY clause or be used in an aggregate function" + SqlPositions.suffix(sql, c));
      }
      plan = new LogicalPlan.Aggregate(plan, aggregates);
    }
    plan = new LogicalPlan.Project(plan, outputs);
    return limit(ps, plan);
  }

  private LogicalPlan limit(PlainSelect ps, LogicalPlan plan) {
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
    if (limit < 0 && offset == 0) return plan;
    return new LogicalPlan.Limit(plan, limit < 0 ? Long.MAX_VALUE : limit, offset);
  }

  private long constant(Expression e, String what) {
    if (e instanceof LongValue l && l.getBigIntegerValue().bitLength() < 64) return l.getValue();
    throw new QuiverException(ErrorCode.INVALID_QUERY, what + " must be a non-negative integer constant, not " + e
        + SqlPositions.suffix(sql, what));
  }

  private void rejectUnsupported(PlainSelect ps) {
    if (ps.getJoins() != null && !ps.getJoins().isEmpty()) throw QuiverException.unsupported("JOIN", at("JOIN"));
    if (ps.getGroupBy() != null) throw QuiverException.unsupported("GROUP BY", at("GROUP"));
    if (ps.getHaving() != null) throw QuiverException.unsupported("HAVING", at("HAVING"));
    if (ps.getOrderByElements() != null && !ps.getOrderByElements().isEmpty()) {
      throw QuiverException.unsupported("ORDER BY", at("ORDER"));
    }
    if (ps.getDistinct() != null) throw QuiverException.unsupported("SELECT DISTINCT", at("DISTINCT"));
    if (ps.getWithItemsList() != null && !ps.getWithItemsList().isEmpty()) throw QuiverException.unsupported("WITH", at("WITH"));
    if (ps.getWindowDefinitions() != null && !ps.getWindowDefinitions().isEmpty()) throw QuiverException.unsupported("WINDOW");
  }

  private String at(String word) {
    return SqlPositions.suffix(sql, word);
  }

  private ParquetTable table(FromItem from) {
    if (!(from instanceof Table t)) {
      throw QuiverException.unsupported("a subquery in FROM", at("FROM"));
    }
    String name = ExprBinder.unquote(t.getName());
    String schema = t.getSchemaName() == null ? null : ExprBinder.unquote(t.getSchemaName());
    String database = t.getDatabase() == null || t.getDatabase().getDatabaseName() == null ? null
        : ExprBinder.unquote(t.getDatabase().getDatabaseName());
    boolean qualifiedOk = (schema == null || schema.equalsIgnoreCase(SCHEMA))
        && (database == null || database.equalsIgnoreCase(CATALOG));
    ParquetTable table = qualifiedOk ? catalog.table(name) : null;
    if (table == null) {
      throw new QuiverException(ErrorCode.NOT_FOUND, "table " + t.getFullyQualifiedName() + " does not exist"
          + at(name));
    }
    return table;
  }
}
