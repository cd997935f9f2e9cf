package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.select.WithItem;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The FROM clause: tables of the catalog (or CTEs of that name), derived tables, VALUES and joins. Every column
 * gets an internal name unique in the statement; above an outer join the padded side's columns are nullable.
 * Derived tables see no outer scope, except a {@code LATERAL} one, which reads the FROM items before it
 * ({@link #lateral}). The number of relations joined is bounded by
 * {@link SqlLimits#maxRelations()}, counted over the whole statement.
 */
final class FromBinder {
  private final Analyzer analyzer;
  private final BindingContext cx;
  private final WithAndValuesBinder withAndValues;
  /** The relations the FROM clauses have joined so far (see {@link SqlLimits#maxRelations()}). */
  private int relations;

  FromBinder(Analyzer analyzer, BindingContext cx, WithAndValuesBinder withAndValues) {
    this.analyzer = analyzer;
    this.cx = cx;
    this.withAndValues = withAndValues;
  }

  record From(LogicalPlan plan, List<Scope.Entry> entries) {}

  From from(FromItem item, List<Join> joins, Scope outer) {
    return from(item, joins, outer, null);
  }

  /**
   * The FROM clause; with {@code domain} (a dependent subquery's distinct outer values, see
   * {@link SubqueryDecorrelator#dependent}), that domain first and every derived table joined to what precedes it
   * as a LATERAL one — so that a derived table reading the enclosing query's columns reads them from the domain.
   * Legal (the domain is cross-joined into the subquery either way) when no RIGHT or FULL join follows.
   */
  From from(FromItem item, List<Join> joins, Scope outer, LogicalPlan domain) {
    From acc;
    if (domain != null) {
      Join first = new Join();
      first.setSimple(true);
      first.setRightItem(item);
      acc = new From(domain, List.of());
      if (item instanceof ParenthesedSelect p) {
        acc = lateral(acc, first, p, outer);
      } else {
        From f = fromItem(item, outer);
        acc = new From(new LogicalPlan.Join(domain, f.plan(), JoinType.INNER, null), f.entries());
      }
    } else {
      acc = fromItem(item, outer);
    }
    if (joins == null) return acc;
    for (Join j : joins) {
      if (j.isApply() || j.isSemi() || j.isStraight() || j.isWindowJoin()) throw QuiverException.unsupported("the join " + j);
      requireCondition(j);
      if (j.getRightItem() instanceof net.sf.jsqlparser.statement.select.LateralSubSelect lateral) {
        acc = lateral(acc, j, lateral, outer);
        continue;
      }
      if (domain != null && j.getRightItem() instanceof ParenthesedSelect p && !j.isRight() && !j.isFull() && !j.isNatural()
          && (j.getUsingColumns() == null || j.getUsingColumns().isEmpty())) {
        acc = lateral(acc, j, p, outer);
        continue;
      }
      From right = fromItem(j.getRightItem(), outer);
      List<Scope.Entry> entries = new ArrayList<>(acc.entries());
      entries.addAll(right.entries());
      JoinType type = j.isFull() ? JoinType.FULL : j.isLeft() ? JoinType.LEFT : j.isRight() ? JoinType.RIGHT : JoinType.INNER;
      Scope scope = new Scope(entries, outer);
      List<Expr> conds = new ArrayList<>();
      // ON terms with a subquery, of an inner join: a filter over the join, where the subquery joins its rows
      List<Expression> withSubqueries = new ArrayList<>();
      if (type != JoinType.INNER && j.getOnExpressions() != null && j.getOnExpressions().stream().anyMatch(FromBinder::mentionsSelect)) {
        acc = outerJoinWithSubqueries(acc, right, type, j.getOnExpressions(), outer);
        continue;
      }
      if (j.getOnExpressions() != null) {
        for (Expression on : j.getOnExpressions()) {
          if (type == JoinType.INNER && mentionsSelect(on)) {
            for (Expression term : SubqueryDecorrelator.andTerms(on)) {
              if (mentionsSelect(term)) {
                withSubqueries.add(term);
              } else {
                conds.add(ExprBinder.settleParameters(cx.binder(scope, false, List.of()).bindPredicate(term)));
              }
            }
            continue;
          }
          ExprBinder b = cx.binder(scope, false, List.of());
          conds.add(ExprBinder.settleParameters(b.bindPredicate(on)));
        }
      }
      List<String> using = usingColumns(j, acc, right);
      for (String n : using) {
        Expr l = new Scope(acc.entries(), null).resolve(null, n, cx.sql());
        Expr r = new Scope(right.entries(), null).resolve(null, n, cx.sql());
        ArrowType t = SqlTypes.comparisonCommon(l.type(), r.type());
        if (t == null) throw new QuiverException(ErrorCode.INVALID_QUERY, "USING column " + n + " has different types");
        conds.add(new Expr.Comparison(Expr.CmpOp.EQ, Coercion.coerce(l, t), Coercion.coerce(r, t)));
      }
      Expr cond = conds.isEmpty() ? null : Exprs.and(conds);
      // above an outer join, the padded side's columns can be NULL whatever the table says
      List<Scope.Entry> after = new ArrayList<>();
      for (Scope.Entry e : acc.entries()) after.add(type == JoinType.RIGHT || type == JoinType.FULL ? nullable(e) : e);
      for (Scope.Entry e : right.entries()) after.add(type == JoinType.LEFT || type == JoinType.FULL ? nullable(e) : e);
      LogicalPlan joined = new LogicalPlan.Join(acc.plan(), right.plan(), type, cond);
      if (!withSubqueries.isEmpty()) {
        Block block = new Block(new Scope(after, outer), joined, cx, new SubqueryDecorrelator(analyzer));
        List<Expr> filters = new ArrayList<>();
        for (Expression term : withSubqueries) {
          filters.add(ExprBinder.settleParameters(block.binder(false, List.of()).bindPredicate(term)));
        }
        block.flush();
        List<LogicalPlan.NamedExpr> keep = new ArrayList<>();
        for (Field f : joined.schema().getFields()) {
          keep.add(new LogicalPlan.NamedExpr(new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable()), f.getName()));
        }
        joined = new LogicalPlan.Project(new LogicalPlan.Filter(block.plan, Exprs.and(filters)), keep);
      }
      acc = using.isEmpty() ? new From(joined, after) : merge(joined, type, using, after, acc.entries().size());
    }
    return acc;
  }

  /**
   * {@code left [CROSS | LEFT] JOIN LATERAL (subquery) [ON …]} (or {@code left, LATERAL (…)}): the subquery reads the
   * columns of the FROM items before it. Planned as a dependent subquery ({@link SubqueryDecorrelator#dependent}) —
   * once for every distinct value of the columns it reads, which it returns besides its own — and joined back on
   * them (and the ON condition). A single aggregate (no GROUP BY) has a row for every outer row: it is LEFT-joined,
   * and an outer row it has no group for reads its columns over no rows (count 0). Uncorrelated, an ordinary join.
   */
  private From lateral(From left, Join j, ParenthesedSelect item, Scope outer) {
    if (++relations > cx.limits().maxRelations()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement joins more than " + cx.limits().maxRelations()
          + " tables and subqueries (limit " + cx.limits().maxRelations() + ")");
    }
    if (j.isRight() || j.isFull() || j.isNatural() || (j.getUsingColumns() != null && !j.getUsingColumns().isEmpty())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "a LATERAL subquery can only be joined by a comma, CROSS, INNER or "
          + "LEFT JOIN with ON" + cx.at("LATERAL"));
    }
    String alias = item.getAlias() == null ? null : ExprBinder.unquote(item.getAlias().getName());
    SubqueryDecorrelator.Dependent d = new SubqueryDecorrelator(analyzer)
        .dependent(item.getSelect(), new Scope(left.entries(), outer), left.plan());
    List<String> visible = d.visible();
    if (item.getAlias() != null && item.getAlias().getAliasColumns() != null && !item.getAlias().getAliasColumns().isEmpty()) {
      visible = new ArrayList<>();
      for (var c : item.getAlias().getAliasColumns()) visible.add(ExprBinder.unquote(c.name));
    }
    List<Field> fields = d.plan().schema().getFields().subList(0, d.width());
    if (visible.size() != fields.size()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the column list of " + alias + " names " + visible.size()
          + " columns, but the query has " + fields.size());
    }
    List<LogicalPlan.NamedExpr> columns = new ArrayList<>();
    for (Field f : fields) columns.add(new LogicalPlan.NamedExpr(new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable()), f.getName()));
    boolean single = d.single();
    String found = single ? cx.names().fresh("__found") : null;
    if (single) columns.add(new LogicalPlan.NamedExpr(Expr.Literal.TRUE, found));
    List<String> keys = d.renamed(columns, cx.names());
    LogicalPlan right = new LogicalPlan.Project(d.plan(), columns);
    List<Scope.Column> cols = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      cols.add(new Scope.Column(visible.get(i), f.getName(), f.getType(), f.isNullable()));
    }
    Scope.Entry entry = new Scope.Entry(alias, alias == null ? "subquery" : alias, cols, Map.of());
    List<Scope.Entry> entries = new ArrayList<>(left.entries());
    entries.add(entry);
    List<Expr> conds = new ArrayList<>(SubqueryDecorrelator.keyMatch(d.outerKeys(), keys, right));
    boolean on = false;
    if (j.getOnExpressions() != null) {
      for (Expression e : j.getOnExpressions()) {
        Expr c = ExprBinder.settleParameters(cx.binder(new Scope(entries, outer), false, List.of()).bindPredicate(e));
        on |= !Expr.Literal.TRUE.equals(c);
        conds.add(c);
      }
    }
    if (j.isLeft() && (j.getOnExpressions() == null || j.getOnExpressions().isEmpty())) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "LEFT JOIN needs an ON or USING condition" + cx.at("JOIN"));
    }
    Expr cond = conds.isEmpty() ? null : Exprs.and(conds);
    if (!single) {
      JoinType type = j.isLeft() ? JoinType.LEFT : JoinType.INNER;
      List<Scope.Entry> after = new ArrayList<>(left.entries());
      after.add(type == JoinType.LEFT ? nullable(entry) : entry);
      return new From(new LogicalPlan.Join(left.plan(), right, type, cond), after);
    }
    // one row per outer row: LEFT-joined, a missing group read over no rows
    if (on) throw QuiverException.unsupported("an ON condition other than TRUE for a LATERAL subquery that is a single aggregate");
    LogicalPlan joined = new LogicalPlan.Join(left.plan(), right, JoinType.LEFT, cond);
    List<LogicalPlan.NamedExpr> exprs = new ArrayList<>();
    for (Field f : joined.schema().getFields()) {
      exprs.add(new LogicalPlan.NamedExpr(new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable()), f.getName()));
    }
    Expr missing = new Expr.IsNull(new Expr.ColumnRef(found, SqlTypes.BOOLEAN, true), false);
    List<Scope.Column> shown = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      SubqueryDecorrelator.NoRows none = SubqueryDecorrelator.NoRows.of(d.plan(), f.getName(), d.outerValues());
      boolean having = d.plan() instanceof LogicalPlan.Project p && p.input() instanceof LogicalPlan.Filter;
      if (none == null || having) {
        throw QuiverException.unsupported("a LATERAL subquery that is a single aggregate with HAVING or a further subquery");
      }
      Expr col = new Expr.ColumnRef(f.getName(), f.getType(), true);
      Expr value = none.value() == SubqueryDecorrelator.NoRows.NULL ? col
          : new Expr.Case(List.of(new Expr.When(missing, Coercion.coerce(none.value(), f.getType()))), col, f.getType());
      String n = cx.names().fresh("__lateral");
      exprs.add(new LogicalPlan.NamedExpr(value, n));
      shown.add(new Scope.Column(visible.get(i), n, f.getType(), value.nullable()));
    }
    List<Scope.Entry> after = new ArrayList<>(left.entries());
    after.add(new Scope.Entry(alias, alias == null ? "subquery" : alias, shown, Map.of()));
    return new From(new LogicalPlan.Project(joined, exprs), after);
  }

  /**
   * {@code left LEFT | RIGHT | FULL JOIN right ON c}, where {@code c} holds subqueries (correlated with either side,
   * both, or neither): the ON decides which pairs match, and only that. It reads each side through the columns its
   * text names, so it is evaluated once per pair of distinct values of those columns — M, the pairs of the domains
   * DL (of the left side's columns) and DR (of the right side's) for which {@code c} holds, planned like a WHERE
   * over {@code DL × DR} (its subqueries semi / anti / mark joins over the domains), with a marker column. Then
   * {@code left LEFT JOIN M} on the left columns = DL's (NULL matching NULL: D holds NULLs, and {@code c} was
   * evaluated for them) and that {@code type JOIN right} on the marker and the right columns = DR's. Exact: a left
   * row gets one row per DR value its columns' DL value pairs with, each of which matches exactly the right rows of
   * that value — every DR value has some, so a left row with pairs is never padded, and one without (marker NULL)
   * matches nothing and is padded by a LEFT / FULL join; right rows nothing matched are padded by RIGHT / FULL.
   */
  private From outerJoinWithSubqueries(From left, From right, JoinType type, java.util.Collection<Expression> ons, Scope outer) {
    List<Scope.Entry> entries = new ArrayList<>(left.entries());
    entries.addAll(right.entries());
    Scope scope = new Scope(entries, outer);
    SubqueryDecorrelator decorrelator = new SubqueryDecorrelator(analyzer);
    List<Field> leftFields = left.plan().schema().getFields();
    List<Field> rightFields = right.plan().schema().getFields();
    java.util.Set<String> candidates = new java.util.HashSet<>();
    for (Field f : leftFields) candidates.add(f.getName());
    for (Field f : rightFields) candidates.add(f.getName());
    java.util.Set<String> read = new java.util.HashSet<>();
    for (Expression on : ons) {
      String text;
      try {
        text = on.toString();
      } catch (StackOverflowError tooDeep) {
        text = null;
      }
      read.addAll(text == null ? candidates : decorrelator.mentioned(text, scope, candidates));
    }
    From planned = outerJoinWithSubqueries(left, right, type, ons, outer, entries, scope, decorrelator, candidates, read);
    if (planned != null) return planned;
    // a column the ON reads that its text did not show (a name the scan above missed): every column, which is exact too
    return outerJoinWithSubqueries(left, right, type, ons, outer, entries, scope, new SubqueryDecorrelator(analyzer),
        candidates, candidates);
  }

  /** {@link #outerJoinWithSubqueries(From, From, JoinType, java.util.Collection, Scope)} with the domains of {@code read}; null if the ON reads more. */
  private From outerJoinWithSubqueries(From left, From right, JoinType type, java.util.Collection<Expression> ons,
      Scope outer, List<Scope.Entry> entries, Scope scope, SubqueryDecorrelator decorrelator, java.util.Set<String> candidates,
      java.util.Set<String> read) {
    List<Field> leftFields = left.plan().schema().getFields();
    List<Field> rightFields = right.plan().schema().getFields();
    Map<String, String> renamed = new java.util.LinkedHashMap<>();
    List<Expr> leftKeys = new ArrayList<>();
    List<String> dl = new ArrayList<>();
    LogicalPlan leftDomain = domain(left.plan(), leftFields, read, renamed, leftKeys, dl);
    List<Expr> rightKeys = new ArrayList<>();
    List<String> dr = new ArrayList<>();
    LogicalPlan rightDomain = domain(right.plan(), rightFields, read, renamed, rightKeys, dr);
    // the ON over the pairs of domain values, the columns renamed to the domains'
    List<Scope.Entry> pairEntries = new ArrayList<>();
    for (Scope.Entry e : entries) {
      List<Scope.Column> cols = new ArrayList<>();
      for (Scope.Column c : e.columns()) {
        cols.add(new Scope.Column(c.name(), renamed.getOrDefault(c.internal(), c.internal()), c.type(), c.nullable(),
            c.qualifiedOnly()));
      }
      pairEntries.add(new Scope.Entry(e.qualifier(), e.table(), cols, e.unsupported()));
    }
    Block pairs = new Block(new Scope(pairEntries, SubqueryDecorrelator.renamedScope(outer, renamed)),
        new LogicalPlan.Join(leftDomain, rightDomain, JoinType.INNER, null), cx, decorrelator);
    // the terms without subqueries first, so that the subqueries' domains are the pairs they admit
    List<Expression> terms = new ArrayList<>();
    for (Expression on : ons) terms.addAll(SubqueryDecorrelator.andTerms(on));
    List<Expr> plain = new ArrayList<>();
    for (Expression term : terms) {
      if (!mentionsSelect(term)) plain.add(ExprBinder.settleParameters(pairs.binder(false, List.of()).bindPredicate(term)));
    }
    if (!plain.isEmpty()) pairs.plan = new LogicalPlan.Filter(pairs.plan, Exprs.and(plain));
    List<Expr> filters = new ArrayList<>();
    for (Expression term : terms) {
      if (!mentionsSelect(term)) continue;
      try {
        if (decorrelator.subqueryPredicate(term, pairs)) continue;
      } catch (QuiverException notAsJoin) {
        // correlated outside the subquery's WHERE: planned as a value below
        if (notAsJoin.code() != ErrorCode.UNSUPPORTED) throw notAsJoin;
      }
      filters.add(ExprBinder.settleParameters(pairs.binder(false, List.of()).bindPredicate(term)));
    }
    pairs.flush();
    LogicalPlan matched = filters.isEmpty() ? pairs.plan : new LogicalPlan.Filter(pairs.plan, Exprs.and(filters));
    java.util.Set<String> missed = new java.util.HashSet<>(candidates);
    missed.removeAll(renamed.keySet());
    if (SubqueryDecorrelator.hasReference(matched, missed, List.of(leftDomain, rightDomain))) return null;
    java.util.Set<String> unreachable = new java.util.HashSet<>(scope.outerNames());
    unreachable.removeAll(candidates);
    unreachable.removeAll(renamed.values());
    if (SubqueryDecorrelator.hasReference(matched, unreachable, List.of(leftDomain, rightDomain))) {
      throw QuiverException.unsupported("a subquery in the ON of a " + type + " JOIN that reads a column of an enclosing "
          + "query (whose values this join's rows do not carry)", SqlPositions.located(cx.sql(), ons.iterator().next()));
    }
    String present = cx.names().fresh("__pair");
    List<LogicalPlan.NamedExpr> mColumns = new ArrayList<>();
    for (String k : dl) mColumns.add(new LogicalPlan.NamedExpr(column(matched, k), k));
    for (String k : dr) mColumns.add(new LogicalPlan.NamedExpr(column(matched, k), k));
    mColumns.add(new LogicalPlan.NamedExpr(Expr.Literal.TRUE, present));
    LogicalPlan m = new LogicalPlan.Project(matched, mColumns);
    List<Expr> leftMatch = SubqueryDecorrelator.keyMatch(leftKeys, dl, m);
    LogicalPlan withPairs = new LogicalPlan.Join(left.plan(), m, type == JoinType.RIGHT ? JoinType.INNER : JoinType.LEFT,
        leftMatch.isEmpty() ? Expr.Literal.TRUE : Exprs.and(leftMatch));
    List<Expr> rightMatch = new ArrayList<>();
    rightMatch.add(new Expr.ColumnRef(present, SqlTypes.BOOLEAN, true));
    rightMatch.addAll(SubqueryDecorrelator.keyMatch(rightKeys, dr, withPairs));
    LogicalPlan joined = new LogicalPlan.Join(withPairs, right.plan(), type, Exprs.and(rightMatch));
    List<LogicalPlan.NamedExpr> keep = new ArrayList<>();
    for (Field f : leftFields) keep.add(new LogicalPlan.NamedExpr(column(joined, f.getName()), f.getName()));
    for (Field f : rightFields) keep.add(new LogicalPlan.NamedExpr(column(joined, f.getName()), f.getName()));
    List<Scope.Entry> after = new ArrayList<>();
    for (Scope.Entry e : left.entries()) after.add(type == JoinType.RIGHT || type == JoinType.FULL ? nullable(e) : e);
    for (Scope.Entry e : right.entries()) after.add(type == JoinType.LEFT || type == JoinType.FULL ? nullable(e) : e);
    return new From(new LogicalPlan.Project(joined, keep), after);
  }

  /**
   * The distinct values of {@code side}'s columns among {@code read}, under fresh names (into {@code renamed},
   * {@code keys} the side's columns, {@code names} the domain's); one row of no columns when it reads none.
   */
  private LogicalPlan domain(LogicalPlan side, List<Field> fields, java.util.Set<String> read, Map<String, String> renamed,
      List<Expr> keys, List<String> names) {
    List<LogicalPlan.NamedExpr> groups = new ArrayList<>();
    for (Field f : fields) {
      if (!read.contains(f.getName())) continue;
      String n = cx.names().fresh("__outer");
      renamed.put(f.getName(), n);
      Expr r = new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
      groups.add(new LogicalPlan.NamedExpr(r, n));
      keys.add(r);
      names.add(n);
    }
    return groups.isEmpty() ? new LogicalPlan.OneRow() : new LogicalPlan.Aggregate(side, groups, List.of());
  }

  private static Expr column(LogicalPlan plan, String name) {
    for (Field f : plan.schema().getFields()) {
      if (f.getName().equals(name)) return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
    }
    throw QuiverException.internal("column " + name + " not in " + plan.schema());
  }

  /** Whether the text of {@code e} may hold a subquery (a superset: "select" in a string counts too). */
  static boolean mentionsSelect(Expression e) {
    try {
      return e.toString().toLowerCase(java.util.Locale.ROOT).contains("select");
    } catch (StackOverflowError tooDeep) {
      return false;
    }
  }

  /** The key columns of a {@code USING} or {@code NATURAL} join (for NATURAL: the names both sides have); else none. */
  private List<String> usingColumns(Join j, From left, From right) {
    List<String> using = new ArrayList<>();
    if (j.isNatural()) {
      if ((j.getOnExpressions() != null && !j.getOnExpressions().isEmpty())
          || (j.getUsingColumns() != null && !j.getUsingColumns().isEmpty())) {
        throw new QuiverException(ErrorCode.INVALID_QUERY, "a NATURAL JOIN takes no ON or USING" + cx.at("NATURAL"));
      }
      List<Scope.Column> rightColumns = new Scope(right.entries(), null).columns();
      for (Scope.Column c : new Scope(left.entries(), null).columns()) {
        boolean shared = rightColumns.stream().anyMatch(r -> r.name().equalsIgnoreCase(c.name()));
        if (shared && using.stream().noneMatch(u -> u.equalsIgnoreCase(c.name()))) using.add(c.name());
      }
    } else if (j.getUsingColumns() != null) {
      for (net.sf.jsqlparser.schema.Column c : j.getUsingColumns()) {
        String n = ExprBinder.unquote(c.getColumnName());
        if (using.stream().anyMatch(u -> u.equalsIgnoreCase(n))) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "column " + n + " appears more than once in USING" + cx.at("USING"));
        }
        using.add(n);
      }
    }
    return using;
  }

  /**
   * A {@code USING}/{@code NATURAL} join's result as SQL defines it: each key is one column — the left side's value,
   * the right side's for a RIGHT join, the one that is not NULL for a FULL join — read by unqualified references and
   * listed first by {@code SELECT *}; each side's own key column stays readable through its qualifier.
   */
  private From merge(LogicalPlan joined, JoinType type, List<String> using, List<Scope.Entry> after, int leftCount) {
    Scope leftScope = new Scope(after.subList(0, leftCount), null);
    Scope rightScope = new Scope(after.subList(leftCount, after.size()), null);
    List<LogicalPlan.NamedExpr> exprs = new ArrayList<>();
    for (Field f : joined.schema().getFields()) {
      exprs.add(new LogicalPlan.NamedExpr(new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable()), f.getName()));
    }
    List<Scope.Column> keys = new ArrayList<>();
    java.util.Set<String> hidden = new java.util.HashSet<>();
    for (String n : using) {
      Expr l = leftScope.resolve(null, n, cx.sql());
      Expr r = rightScope.resolve(null, n, cx.sql());
      hidden.add(((Expr.ColumnRef) l).name());
      hidden.add(((Expr.ColumnRef) r).name());
      ArrowType t = SqlTypes.comparisonCommon(l.type(), r.type());
      Expr lc = Coercion.coerce(l, t);
      Expr rc = Coercion.coerce(r, t);
      Expr key = switch (type) {
        case FULL -> new Expr.Call("coalesce", List.of(lc, rc), t, lc.nullable() && rc.nullable(), Expr.Volatility.IMMUTABLE);
        case RIGHT -> rc;
        default -> lc;
      };
      String internal = cx.names().unique(n, null);
      exprs.add(new LogicalPlan.NamedExpr(key, internal));
      keys.add(new Scope.Column(n, internal, t, key.nullable()));
    }
    List<Scope.Entry> entries = new ArrayList<>();
    entries.add(new Scope.Entry(null, "", keys, java.util.Map.of()));
    for (Scope.Entry e : after) {
      List<Scope.Column> cols = new ArrayList<>();
      for (Scope.Column c : e.columns()) {
        cols.add(hidden.contains(c.internal()) ? new Scope.Column(c.name(), c.internal(), c.type(), c.nullable(), true) : c);
      }
      entries.add(new Scope.Entry(e.qualifier(), e.table(), cols, e.unsupported()));
    }
    return new From(new LogicalPlan.Project(joined, exprs), entries);
  }

  private static Scope.Entry nullable(Scope.Entry e) {
    List<Scope.Column> cols = new ArrayList<>();
    for (Scope.Column c : e.columns()) cols.add(new Scope.Column(c.name(), c.internal(), c.type(), true, c.qualifiedOnly()));
    return new Scope.Entry(e.qualifier(), e.table(), cols, e.unsupported());
  }

  private From fromItem(FromItem item, Scope outer) {
    if (!(item instanceof ParenthesedFromItem) && ++relations > cx.limits().maxRelations()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the statement joins more than " + cx.limits().maxRelations()
          + " tables and subqueries (limit " + cx.limits().maxRelations() + ")");
    }
    String alias = item.getAlias() == null ? null : ExprBinder.unquote(item.getAlias().getName());
    if (item instanceof Table t) {
      if (t.getSchemaName() != null && InformationSchema.names(ExprBinder.unquote(t.getSchemaName()))
          && (t.getDatabase() == null || t.getDatabase().getDatabaseName() == null
              || ExprBinder.unquote(t.getDatabase().getDatabaseName()).equalsIgnoreCase(Analyzer.CATALOG))) {
        String view = ExprBinder.unquote(t.getName());
        Select body = (Select) SqlParser.parse(InformationSchema.query(cx.catalog(), view, cx.at(view)));
        Rel r = analyzer.query(body, null);
        return derived(r, r.visible(), alias != null ? alias : view, item);
      }
      WithItem<?> cte = t.getSchemaName() == null ? withAndValues.cte(ExprBinder.unquote(t.getName())) : null;
      if (cte != null) {
        Select body = (Select) cte.getParenthesedStatement();
        Rel r = withAndValues.withoutCte(ExprBinder.unquote(t.getName()), () -> analyzer.query(body, null));
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
        String n = cx.names().unique(f.getName(), qualifier);
        columns.add(f.getName());
        internal.add(n);
        cols.add(new Scope.Column(f.getName(), n, f.getType(), f.isNullable()));
      }
      LogicalPlan scan = new LogicalPlan.TableScan(
          new dev.quiver.planner.source.ParquetTableSource(cx.catalog(), table), columns, internal, null, null);
      return new From(scan, List.of(new Scope.Entry(qualifier, table.name(), cols, table.unsupportedColumns())));
    }
    if (item instanceof ParenthesedSelect p) {
      // it sees the enclosing query's columns (not its FROM siblings: those only a LATERAL one sees)
      Rel r = analyzer.query(p.getSelect() != null ? p.getSelect() : p, outer);
      List<String> visible = r.visible();
      if (p.getAlias() != null && p.getAlias().getAliasColumns() != null && !p.getAlias().getAliasColumns().isEmpty()) {
        visible = new ArrayList<>();
        for (var c : p.getAlias().getAliasColumns()) visible.add(ExprBinder.unquote(c.name));
      }
      return derived(r, visible, alias, item);
    }
    if (item instanceof Values v) {
      Rel r = withAndValues.values(v);
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
    throw QuiverException.unsupported("the FROM item " + item, cx.at(String.valueOf(item)));
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

  private ParquetTable table(Table t) {
    String name = ExprBinder.unquote(t.getName());
    String schema = t.getSchemaName() == null ? null : ExprBinder.unquote(t.getSchemaName());
    String database = t.getDatabase() == null || t.getDatabase().getDatabaseName() == null ? null
        : ExprBinder.unquote(t.getDatabase().getDatabaseName());
    boolean qualifiedOk = (schema == null || schema.equalsIgnoreCase(Analyzer.SCHEMA))
        && (database == null || database.equalsIgnoreCase(Analyzer.CATALOG));
    ParquetTable table = qualifiedOk ? cx.catalog().table(name) : null;
    if (table == null) {
      java.util.List<String> names = new java.util.ArrayList<>();
      try {
        if (qualifiedOk) names.addAll(cx.catalog().tableNames());
      } catch (RuntimeException listing) {
        // the directory changed or vanished while it was listed: no suggestion
      }
      throw new QuiverException(ErrorCode.NOT_FOUND, "table " + SqlPositions.snippet(t.getFullyQualifiedName()) + " does not exist"
          + Suggestions.didYouMean(name, names) + cx.at(name));
    }
    return table;
  }

  /**
   * {@code a JOIN b} needs ON or USING, as in the standard, PostgreSQL and DuckDB: only a comma, CROSS JOIN, NATURAL
   * JOIN or a LATERAL subquery joins without one. Quiver read a bare JOIN as a cross join, which on two large tables
   * streams for as long as the client waits.
   */
  private void requireCondition(Join j) {
    boolean on = j.getOnExpressions() != null && !j.getOnExpressions().isEmpty();
    boolean using = j.getUsingColumns() != null && !j.getUsingColumns().isEmpty();
    if (on || using || j.isNatural() || j.isCross() || j.isSimple()
        || j.getRightItem() instanceof net.sf.jsqlparser.statement.select.LateralSubSelect) {
      return;
    }
    String kind = j.isFull() ? "FULL JOIN" : j.isLeft() ? "LEFT JOIN" : j.isRight() ? "RIGHT JOIN" : "JOIN";
    throw new QuiverException(ErrorCode.INVALID_QUERY, kind + " needs an ON or USING condition (CROSS JOIN joins "
        + "every row with every row)" + cx.at("JOIN"));
  }
}
