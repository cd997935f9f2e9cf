package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import dev.quiver.planner.plan.LogicalPlan.SortKey;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.sql.Correlation.Mode;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One SELECT block: FROM, then WHERE (its subquery predicates become joins, its correlated predicates are
 * handed to the enclosing query through the {@link Correlation}), then the select list, HAVING and ORDER BY,
 * bound together because they share the aggregates, then GROUP BY, the aggregation (after which only group
 * expressions and aggregates may be read), DISTINCT, the sort and the limit. ORDER BY may name an output
 * position, an output alias or an expression over the input, which then travels as a hidden column.
 */
final class SelectBinder {
  private final BindingContext cx;
  private final FromBinder from;
  private final SetOperationBinder setOperations;
  private final SubqueryDecorrelator subqueries;

  SelectBinder(BindingContext cx, FromBinder from, SetOperationBinder setOperations, SubqueryDecorrelator subqueries) {
    this.cx = cx;
    this.from = from;
    this.setOperations = setOperations;
    this.subqueries = subqueries;
  }

  private static Expr.ColumnRef ref(Field f) {
    return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
  }

  Rel plainSelect(PlainSelect ps, Scope outer, Correlation corr) {
    rejectUnsupported(ps);
    expandAll(ps);
    // a set operation's operand without ORDER BY or LIMIT: no sort or limit moves its untyped NULL columns
    boolean keepUntypedNulls = setOperations.isOperand(ps) && ps.getOrderByElements() == null && ps.getLimit() == null
        && ps.getOffset() == null;
    Block b;
    if (ps.getFromItem() == null) {
      if (ps.getJoins() != null && !ps.getJoins().isEmpty()) throw QuiverException.unsupported("JOIN without FROM");
      b = new Block(new Scope(List.of(), outer), new LogicalPlan.OneRow(), cx, subqueries);
    } else {
      // the dependent join: every row of the FROM clause once for every distinct value of the outer columns read —
      // the domain first when no RIGHT / FULL join follows, so that derived tables may read it
      boolean domainFirst = corr != null && corr.mode == Mode.DOMAIN && (ps.getJoins() == null
          || ps.getJoins().stream().noneMatch(j -> j.isRight() || j.isFull()));
      FromBinder.From f = from.from(ps.getFromItem(), ps.getJoins(), outer, domainFirst ? corr.domain : null);
      b = new Block(new Scope(f.entries(), outer), f.plan(), cx, subqueries);
      if (domainFirst) b.domainJoined = true;
    }
    Set<String> outerNames = b.scope.outerNames();
    boolean domain = corr != null && corr.mode == Mode.DOMAIN;
    if (domain && !b.domainJoined) {
      b.plan = ps.getFromItem() == null ? corr.domain : new LogicalPlan.Join(b.plan, corr.domain, LogicalPlan.JoinType.INNER, null);
    }

    // WHERE: subquery predicates become joins, correlated predicates are taken out for the caller. The terms without
    // a subquery filter the rows first (a conjunction's order does not change its rows), so that a dependent
    // subquery's domain holds only the outer values of rows that can pass
    if (ps.getWhere() != null) {
      List<Expression> terms = SubqueryDecorrelator.andTerms(ps.getWhere());
      List<Expression> plain = new ArrayList<>();
      List<Expression> withSubquery = new ArrayList<>();
      for (Expression term : terms) (FromBinder.mentionsSelect(term) ? withSubquery : plain).add(term);
      if (!plain.isEmpty() && !withSubquery.isEmpty()) {
        List<Expr> first = new ArrayList<>();
        for (Expression term : plain) whereTerm(term, b, corr, domain, outerNames, first);
        b.flush();
        if (!first.isEmpty()) b.plan = new LogicalPlan.Filter(b.plan, Exprs.and(first));
        terms = withSubquery;
      }
      List<Expr> filters = new ArrayList<>();
      for (Expression term : terms) whereTerm(term, b, corr, domain, outerNames, filters);
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

    // SELECT list, HAVING and ORDER BY are bound together: they share the aggregates (and with GROUP BY, the
    // subqueries written the same way, so that those repeating a group key read it)
    b.reuseSubqueries = ps.getGroupBy() != null;
    List<AggregateCall> aggregates = new ArrayList<>();
    ExprBinder binder = b.binder(true, aggregates);
    List<LogicalPlan.WindowCall> windowCalls = new ArrayList<>();
    binder.windowCalls = windowCalls;
    binder.namedWindows = WindowBinder.named(ps.getWindowDefinitions());
    List<AggregateBinder.GroupingCall> groupingCalls = new ArrayList<>();
    binder.groupingCalls = groupingCalls;
    List<Expr> items = new ArrayList<>();
    List<String> visible = new ArrayList<>();
    Map<String, Expr> aliasExprs = new HashMap<>();
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
          if (!found) throw new QuiverException(ErrorCode.NOT_FOUND, "table or alias " + SqlPositions.snippet(q) + " is not in the FROM clause" + cx.at(q));
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
      if (item.getAlias() != null) aliasExprs.putIfAbsent(ExprBinder.unquote(item.getAlias().getName()).toLowerCase(Locale.ROOT), bound);
      String name = item.getAlias() != null ? ExprBinder.unquote(item.getAlias().getName())
          : bound instanceof Expr.ColumnRef c && visibleOf.containsKey(c.name()) ? visibleOf.get(c.name()) : columnName(e);
      visible.add(name);
    }
    Expr having = null;
    if (ps.getHaving() != null) {
      binder.windowCalls = null; // no window functions in HAVING: they are computed after it
      having = ExprBinder.settleParameters(binder.bind(ps.getHaving()));
      binder.windowCalls = windowCalls;
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
        int k = OrderAndLimit.position(l);
        if (k < 1 || k > items.size()) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "ORDER BY position " + k + " is not in the select list" + cx.at(e.toString()));
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
    Expr qualify = null;
    if (ps.getQualify() != null) {
      binder.outputAliases = aliasExprs;
      qualify = ExprBinder.settleParameters(binder.bind(ps.getQualify()));
      binder.outputAliases = null;
      if (SqlTypes.isNull(qualify.type())) qualify = Coercion.coerce(qualify, SqlTypes.BOOLEAN);
      if (!SqlTypes.isBoolean(qualify.type())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "QUALIFY must be a BOOLEAN expression: " + SqlPositions.snippet(ps.getQualify()));
      }
    }
    // GROUP BY: plain expressions, or grouping sets (GROUPING SETS, ROLLUP, CUBE, crossed with the plain ones)
    List<Expr> groupExprs = new ArrayList<>();
    List<List<Expr>> groupingSets = null; // null: one set, the plain GROUP BY
    if (ps.getGroupBy() != null) {
      ExpressionList<?> gl = ps.getGroupBy().getGroupByExpressionList();
      // subqueries in GROUP BY join the rows before the aggregation (see Block#groupBy)
      ExprBinder gb = b.binder(false, List.of());
      b.groupBy = true;
      List<List<List<Expression>>> factors = new ArrayList<>(); // each a list of sets; GROUP BY is their cross product
      boolean sets = false;
      if (ps.getGroupBy().getGroupingSets() != null && !ps.getGroupBy().getGroupingSets().isEmpty()) {
        sets = true;
        List<List<Expression>> listed = new ArrayList<>();
        for (Object o : ps.getGroupBy().getGroupingSets()) listed.addAll(GroupingSets.ofItem(o, cx));
        factors.add(listed);
      }
      if (gl != null) {
        for (Object o : gl) {
          List<List<Expression>> f = GroupingSets.ofElement((Expression) o, cx);
          sets |= f.size() != 1 || GroupingSets.isRollupOrCube((Expression) o);
          factors.add(f);
        }
      }
      List<List<Expression>> product = GroupingSets.product(factors, cx);
      Map<Expression, Expr> bound = new java.util.IdentityHashMap<>();
      List<List<Expr>> boundSets = new ArrayList<>();
      for (List<Expression> set : product) {
        List<Expr> keys = new ArrayList<>();
        for (Expression e : set) {
          Expr g = bound.computeIfAbsent(e, x -> groupKey(x, gb, items, ps));
          keys.add(g);
          if (!groupExprs.contains(g)) groupExprs.add(g);
        }
        boundSets.add(keys);
      }
      if (sets) groupingSets = boundSets;
      b.groupBy = false;
    }
    for (AggregateBinder.GroupingCall g : groupingCalls) {
      if (ps.getGroupBy() == null) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, g.call().getName().toLowerCase(Locale.ROOT)
            + "() needs GROUP BY: " + SqlPositions.snippet(g.call()) + cx.at(g.call().getName()));
      }
      for (int i = 0; i < g.args().size(); i++) {
        if (!groupExprs.contains(g.args().get(i))) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "argument " + SqlPositions.snippet(g.call().getParameters().get(i))
              + " of " + g.call().getName().toLowerCase(Locale.ROOT) + "() is not a GROUP BY expression: "
              + SqlPositions.snippet(g.call()) + cx.at(g.call().getName()));
        }
      }
    }
    boolean grouped = ps.getGroupBy() != null || !aggregates.isEmpty();
    List<Expr> domainRefs = new ArrayList<>();
    if (domain) {
      for (String k : corr.domainKeys) domainRefs.add(ref(field(b.plan, k)));
      // aggregated once per outer value: the outer value is a group key too
      if (grouped) groupExprs.addAll(0, domainRefs);
      for (AggregateCall c : aggregates) {
        java.util.Set<String> read = new java.util.HashSet<>();
        for (Expr e : c.exprs()) read.addAll(Exprs.columns(e));
        if (!read.isEmpty() && corr.domainKeys.containsAll(read)) {
          throw QuiverException.unsupported("an aggregate of only the enclosing query's columns inside a subquery (it would "
              + "aggregate the enclosing query)");
        }
      }
    }
    boolean scalarCorrelated = correlated && corr.mode == Mode.SCALAR;
    boolean limited = ps.getLimit() != null || ps.getOffset() != null || ps.getFetch() != null;
    if (correlated && corr.mode == Mode.IN && (grouped || limited)) {
      throw QuiverException.unsupported("a correlated IN subquery with GROUP BY, aggregates or LIMIT");
    }
    if (scalarCorrelated) {
      // (LIMIT would apply to all the groups at once: the general way numbers the rows per outer value)
      if (!grouped || ps.getGroupBy() != null || limited) {
        throw QuiverException.unsupported("a correlated scalar subquery that is not a single aggregate (add an aggregate such as max())");
      }
      b.plan = subqueries.correlate(corr, outerNames, b.plan);
      corr.aggregates.addAll(aggregates);
      groupExprs.addAll(0, corr.innerKeys);
    }
    Set<String> postAggNames = new HashSet<>();
    if (grouped) {
      List<NamedExpr> groups = new ArrayList<>();
      Map<Expr, Expr.ColumnRef> groupRefs = new LinkedHashMap<>();
      for (Expr g : groupExprs) {
        if (groupRefs.containsKey(g)) continue;
        String n = g instanceof Expr.ColumnRef c ? c.name() : cx.names().fresh("__group");
        groups.add(new NamedExpr(g, n));
        groupRefs.put(g, new Expr.ColumnRef(n, g.type(), g.nullable()));
      }
      if (scalarCorrelated) for (Expr k : corr.innerKeys) corr.keyNames.add(groupRefs.get(k).name());
      // subqueries inside aggregate functions' arguments: joined to the rows they aggregate
      for (java.util.function.UnaryOperator<LogicalPlan> p : b.beforeAggregation) b.plan = p.apply(b.plan);
      b.beforeAggregation.clear();
      // a group key that reads a subquery's value not joined yet (GROUP BY an output alias of one): join the
      // subqueries first
      Set<String> below = new HashSet<>();
      for (Field f : b.plan.schema().getFields()) below.add(f.getName());
      if (groups.stream().anyMatch(g -> Exprs.columns(g.expr()).stream()
          .anyMatch(c -> b.subqueryColumns.contains(c) && !below.contains(c)))) {
        b.flush();
      }
      if (groupingSets != null || !groupingCalls.isEmpty()) {
        groups = expand(b, groupingSets != null ? groupingSets : List.of(List.copyOf(groupRefs.keySet())), groups,
            groupRefs, groupingCalls);
      }
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
      for (LogicalPlan.WindowCall w : windowCalls) postAggNames.add(w.name());
      items.replaceAll(x -> postAggregate(x, groupRefs, postAggNames));
      if (having != null) having = postAggregate(having, groupRefs, postAggNames);
      if (qualify != null) qualify = postAggregate(qualify, groupRefs, postAggNames);
      windowCalls.replaceAll(w -> w.map(x -> postAggregate(x, groupRefs, postAggNames)));
      orderTargets.replaceAll(x -> x instanceof Expr e ? postAggregate(e, groupRefs, postAggNames) : x);
    } else {
      b.flush();
    }
    if (having != null) {
      if (!grouped) throw new QuiverException(ErrorCode.INVALID_QUERY, "HAVING needs GROUP BY or an aggregate" + cx.at("HAVING"));
      b.plan = new LogicalPlan.Filter(b.plan, having);
    }
    if (!windowCalls.isEmpty()) {
      if (correlated && corr.mode != Mode.NONE) throw QuiverException.unsupported("a window function in a correlated subquery");
      if (domain) {
        // a window per outer value: its partitions split by the domain's columns too
        windowCalls.replaceAll(w -> {
          List<Expr> partition = new ArrayList<>(domainRefs);
          partition.addAll(w.partitionBy());
          return new LogicalPlan.WindowCall(w.func(), w.agg(), w.distinct(), w.args(), partition, w.orderBy(), w.frame(),
              w.type(), w.nullable(), w.name());
        });
      }
      b.plan = new LogicalPlan.Window(b.plan, windowCalls);
    }
    if (qualify != null) {
      if (windowCalls.isEmpty()) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "QUALIFY needs a window function in the query" + cx.at("QUALIFY"));
      }
      b.plan = new LogicalPlan.Filter(b.plan, qualify);
    }

    // projection with internal names; ORDER BY expressions not in the list become hidden columns
    List<NamedExpr> outputs = new ArrayList<>();
    Set<String> used = new HashSet<>();
    for (int i = 0; i < items.size(); i++) {
      Expr x = items.get(i);
      String n = x instanceof Expr.ColumnRef c && used.add(c.name()) ? c.name()
          : cx.names().unique(sanitize(visible.get(i)), null);
      used.add(n);
      outputs.add(new NamedExpr(x, n));
    }
    int visibleCount = outputs.size();
    if (domain) {
      for (Expr d : domainRefs) {
        Expr x = grouped ? postAggregate(d, Map.of(), postAggNames) : d;
        String n = ((Expr.ColumnRef) d).name();
        used.add(n);
        outputs.add(new NamedExpr(x, n));
      }
    }
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
        String n = used.add(k) ? k : cx.names().fresh("__key");
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
          outputs.add(new NamedExpr((Expr) t, cx.names().fresh("__order")));
          index = outputs.size() - 1;
        }
      }
      NamedExpr target = outputs.get(index);
      keys.add(OrderAndLimit.sortKey(order.get(i), new Expr.ColumnRef(target.name(), target.expr().type(), target.expr().nullable())));
    }
    b.plan = new LogicalPlan.Project(b.plan, outputs);
    if (distinct) {
      if (ps.getDistinct().getOnSelectItems() != null && !ps.getDistinct().getOnSelectItems().isEmpty()) {
        throw QuiverException.unsupported("DISTINCT ON", cx.at("DISTINCT"));
      }
      b.plan = SetOperationBinder.distinct(b.plan);
    }
    long[] lo = OrderAndLimit.limitOffset(ps, cx);
    if (domain && (lo[0] >= 0 || lo[1] > 0)) {
      // LIMIT / OFFSET per outer value: the rows numbered in ORDER BY order within each domain value
      String rn = cx.names().fresh("__row");
      List<Expr> partition = new ArrayList<>();
      for (Expr d : domainRefs) partition.add(new Expr.ColumnRef(((Expr.ColumnRef) d).name(), d.type(), d.nullable()));
      b.plan = new LogicalPlan.Window(b.plan, List.of(new LogicalPlan.WindowCall(LogicalPlan.WindowFunc.ROW_NUMBER, null,
          false, List.of(), partition, keys, null, SqlTypes.BIGINT, false, rn)));
      Expr row = new Expr.ColumnRef(rn, SqlTypes.BIGINT, false);
      Expr keep = new Expr.Comparison(Expr.CmpOp.GT, row, new Expr.Literal(lo[1], SqlTypes.BIGINT));
      if (lo[0] >= 0) {
        keep = new Expr.And(keep, new Expr.Comparison(Expr.CmpOp.LE, row,
            new Expr.Literal(OrderAndLimit.saturatedAdd(lo[0], lo[1]), SqlTypes.BIGINT)));
      }
      b.plan = new LogicalPlan.Filter(b.plan, keep);
      List<NamedExpr> back = new ArrayList<>();
      for (NamedExpr o : outputs) back.add(new NamedExpr(refOf(o), o.name()));
      b.plan = new LogicalPlan.Project(b.plan, back);
      keys.clear();
      lo = new long[] {-1, 0};
    }
    if (!keys.isEmpty()) b.plan = new LogicalPlan.Sort(b.plan, keys, lo[0] < 0 ? -1 : OrderAndLimit.saturatedAdd(lo[0], lo[1]));
    b.plan = OrderAndLimit.limit(b.plan, lo);
    if (outputs.size() > visibleCount && !domain && !(correlated && (corr.mode == Mode.IN || corr.mode == Mode.SCALAR))) {
      List<NamedExpr> keep = new ArrayList<>();
      for (int i = 0; i < visibleCount; i++) keep.add(new NamedExpr(refOf(outputs.get(i)), outputs.get(i).name()));
      b.plan = new LogicalPlan.Project(b.plan, keep);
    }
    if (correlated && corr.mode == Mode.SCALAR && visibleCount != 1) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a scalar subquery must return one column, not " + visibleCount);
    }
    // what the subquery's WHERE correlates was taken out above; any other outer reference (in the select list, an
    // aggregate's argument, …) would be read from rows that do not have it
    if (corr != null && corr.mode != Mode.NONE && !domain && SubqueryDecorrelator.hasReference(b.plan, outerNames, corr.domain)) {
      throw QuiverException.unsupported("a correlated reference outside the subquery's WHERE clause");
    }
    return new Rel(b.plan, visible);
  }

  /**
   * A GROUP BY item bound over the FROM clause: an output position, an expression, or (when it is no column) an
   * output alias.
   */
  private Expr groupKey(Expression e, ExprBinder gb, List<Expr> items, PlainSelect ps) {
    if (e instanceof LongValue l) {
      int k = OrderAndLimit.position(l);
      if (k < 1 || k > items.size()) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "GROUP BY position " + k + " is not in the select list" + cx.at(e.toString()));
      }
      return items.get(k - 1);
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
    return typedNull(ExprBinder.settleParameters(g));
  }

  /**
   * Grouping sets: an {@link LogicalPlan.Expand} below the aggregation outputs each row once per set, the group
   * expressions a set leaves out as NULL, plus the set's number (so that a NULL in the data and a NULL of a set
   * that left the column out stay apart, and a set listed twice gives its groups twice) and each grouping() call's
   * value for that set. Returns the aggregation's groups: the expanded keys under their names in {@code groups},
   * the set number and the grouping() columns; {@code groupRefs} then points at the (now nullable) keys.
   */
  private List<NamedExpr> expand(Block b, List<List<Expr>> sets, List<NamedExpr> groups, Map<Expr, Expr.ColumnRef> groupRefs,
      List<AggregateBinder.GroupingCall> groupingCalls) {
    List<Expr> keys = new ArrayList<>(groupRefs.keySet());
    List<String> keyNames = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) keyNames.add(cx.names().fresh("__gkey"));
    String setName = cx.names().fresh("__gset");
    List<List<NamedExpr>> projections = new ArrayList<>();
    for (int j = 0; j < sets.size(); j++) {
      List<Expr> set = sets.get(j);
      List<NamedExpr> p = new ArrayList<>();
      for (Field f : b.plan.schema().getFields()) p.add(new NamedExpr(ref(f), f.getName()));
      for (int i = 0; i < keys.size(); i++) {
        Expr k = keys.get(i);
        p.add(new NamedExpr(set.contains(k) ? k : Expr.Literal.nullOf(k.type()), keyNames.get(i)));
      }
      p.add(new NamedExpr(new Expr.Literal((long) j, SqlTypes.BIGINT), setName));
      for (AggregateBinder.GroupingCall g : groupingCalls) {
        long mask = 0;
        for (Expr a : g.args()) mask = mask << 1 | (set.contains(a) ? 0 : 1);
        p.add(new NamedExpr(new Expr.Literal(mask, SqlTypes.BIGINT), g.name()));
      }
      projections.add(p);
    }
    LogicalPlan.Expand expand = new LogicalPlan.Expand(b.plan, projections);
    b.plan = expand;
    Map<String, Field> fields = new HashMap<>();
    for (Field f : expand.schema().getFields()) fields.put(f.getName(), f);
    List<NamedExpr> out = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      Field f = fields.get(keyNames.get(i));
      String name = groups.get(i).name();
      out.add(new NamedExpr(ref(f), name));
      groupRefs.put(keys.get(i), new Expr.ColumnRef(name, f.getType(), f.isNullable()));
    }
    out.add(new NamedExpr(ref(fields.get(setName)), setName));
    for (AggregateBinder.GroupingCall g : groupingCalls) out.add(new NamedExpr(ref(fields.get(g.name())), g.name()));
    return out;
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

  /** How the user names each column of the block being aggregated ({@code qualifier.name}), for messages. */
  private final Map<String, String> shownNames = new HashMap<>();

  /**
   * An expression over the aggregate's output: group expressions become references to their group
   * column; any other input column is an error.
   */
  private Expr postAggregate(Expr e, Map<Expr, Expr.ColumnRef> groups, Set<String> available) {
    Expr.ColumnRef g = groups.get(e);
    if (g != null) return g;
    if (e instanceof Expr.ColumnRef c) {
      if (available.contains(c.name())) return c;
      String shown = shownNames.getOrDefault(c.name(), dev.quiver.planner.expr.Exprs.userName(c.name()));
      String unqualified = shown.substring(shown.lastIndexOf('.') + 1);
      String where = SqlPositions.find(cx.sql(), shown);
      throw new QuiverException(ErrorCode.INVALID_QUERY, "column " + shown
          + " must appear in the GROUP BY clause or be used in an aggregate function"
          + (where != null ? " at " + where : cx.at(unqualified)));
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
    return SqlTypes.isNull(e.type()) ? Coercion.coerce(e, SqlTypes.INTEGER) : e;
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

  /**
   * Whether the select list calls an aggregate function itself, read from the parsed tree: a string, an alias or a
   * type that spells a function's name is no call, and an aggregate inside a subquery aggregates that subquery.
   */
  /**
   * Binds one term of a WHERE conjunction: a subquery predicate becomes a join of {@code b}'s plan; a term correlated
   * to an enclosing query goes to {@code corr}; any other is added to {@code filters}.
   */
  private void whereTerm(Expression term, Block b, Correlation corr, boolean domain, Set<String> outerNames,
      List<Expr> filters) {
    try {
      if (subqueries.subqueryPredicate(term, b)) return;
    } catch (QuiverException notAsJoin) {
      // correlated outside the subquery's WHERE: planned as a value below (a filter on its mark)
      if (notAsJoin.code() != ErrorCode.UNSUPPORTED) throw notAsJoin;
    }
    Expr bound = ExprBinder.settleParameters(b.binder(false, List.of()).bind(term));
    if (SqlTypes.isNull(bound.type())) bound = Coercion.coerce(bound, SqlTypes.BOOLEAN);
    if (!SqlTypes.isBoolean(bound.type())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY,
          "WHERE must be a BOOLEAN expression, not " + SqlTypes.sqlName(bound.type()) + ": "
              + SqlPositions.snippet(term));
    }
    if (corr != null && corr.mode != Mode.NONE && !domain && SubqueryDecorrelator.intersects(Exprs.columns(bound), outerNames)) {
      corr.conjuncts.add(bound);
      corr.written.add(term);
    } else {
      filters.add(bound);
    }
  }

  static boolean hasAggregate(PlainSelect ps) {
    for (SelectItem<?> item : ps.getSelectItems()) if (item.getExpression() != null && callsAggregate(item.getExpression())) return true;
    return false;
  }

  /**
   * {@code GROUP BY ALL}: by every select-list expression that calls no aggregate (or window) function — none
   * at all is one group; {@code ORDER BY ALL [ASC|DESC] [NULLS …]}: by every select-list column in turn, as DuckDB
   * reads them. Rewritten in the parsed tree before binding (idempotent: a CTE's body is bound once per use).
   */
  static void expandAll(PlainSelect ps) {
    net.sf.jsqlparser.statement.select.GroupByElement g = ps.getGroupBy();
    if (g != null && g.getGroupByExpressionList() != null && g.getGroupByExpressionList().size() == 1
        && g.getGroupByExpressionList().get(0) instanceof net.sf.jsqlparser.expression.AllValue
        && (g.getGroupingSets() == null || g.getGroupingSets().isEmpty())) {
      net.sf.jsqlparser.expression.operators.relational.ExpressionList<Expression> keys =
          new net.sf.jsqlparser.expression.operators.relational.ExpressionList<>();
      for (SelectItem<?> item : ps.getSelectItems()) {
        Expression e = item.getExpression();
        if (e == null || e instanceof net.sf.jsqlparser.statement.select.AllColumns) {
          throw QuiverException.unsupported("GROUP BY ALL with * in the select list");
        }
        if (!callsAggregate(e) && !(e instanceof net.sf.jsqlparser.expression.AnalyticExpression)) keys.add(e);
      }
      if (keys.isEmpty()) ps.setGroupByElement(null);
      else g.setGroupByExpressions(keys);
    }
    List<OrderByElement> order = ps.getOrderByElements();
    if (order != null && order.size() == 1 && order.get(0).getExpression() instanceof net.sf.jsqlparser.expression.AllValue) {
      OrderByElement all = order.get(0);
      List<OrderByElement> each = new ArrayList<>();
      for (int i = 1; i <= ps.getSelectItems().size(); i++) {
        if (ps.getSelectItems().get(i - 1).getExpression() instanceof net.sf.jsqlparser.statement.select.AllColumns) {
          throw QuiverException.unsupported("ORDER BY ALL with * in the select list");
        }
        OrderByElement o = new OrderByElement();
        o.setExpression(new net.sf.jsqlparser.expression.LongValue(i));
        o.setAsc(all.isAsc());
        o.setAscDescPresent(all.isAscDescPresent());
        o.setNullOrdering(all.getNullOrdering());
        each.add(o);
      }
      ps.setOrderByElements(each);
    }
  }

  /** Whether {@code e} calls an aggregate function itself (not inside a subquery). */
  static boolean callsAggregate(Expression e) {
    boolean[] found = {false};
    ExpressionVisitorAdapter<Void> calls = new ExpressionVisitorAdapter<>() {
      @Override
      public <S> Void visit(net.sf.jsqlparser.expression.Function f, S context) {
        if (f.getName() != null && AggregateBinder.aggregateFunction(f.getName().toLowerCase(Locale.ROOT)) != null) found[0] = true;
        return super.visit(f, context);
      }

      @Override
      public <S> Void visit(net.sf.jsqlparser.expression.AnalyticExpression a, S context) {
        // agg(x) FILTER (WHERE ...), percentile_cont(f) WITHIN GROUP (ORDER BY x): aggregates, not window calls
        boolean aggregate = a.getType() == net.sf.jsqlparser.expression.AnalyticType.FILTER_ONLY
            || a.getType() == net.sf.jsqlparser.expression.AnalyticType.WITHIN_GROUP;
        if (aggregate && a.getName() != null && AggregateBinder.aggregateFunction(a.getName().toLowerCase(Locale.ROOT)) != null) {
          found[0] = true;
        }
        return super.visit(a, context);
      }

      @Override
      public <S> Void visit(net.sf.jsqlparser.statement.select.ParenthesedSelect subquery, S context) {
        return null;
      }

      @Override
      public <S> Void visit(net.sf.jsqlparser.statement.select.Select subquery, S context) {
        return null;
      }
    };
    try {
      e.accept(calls, null);
    } catch (StackOverflowError tooDeep) {
      return true;
    }
    return found[0];
  }

  private void rejectUnsupported(PlainSelect ps) {
    if (ps.getIntoTables() != null && !ps.getIntoTables().isEmpty()) throw QuiverException.unsupported("SELECT INTO");
  }
}
