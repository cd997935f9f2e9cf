package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.statement.select.ExceptOp;
import net.sf.jsqlparser.statement.select.IntersectOp;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.MinusOp;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperation;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.UnionOp;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * UNION, INTERSECT and EXCEPT: the operands are typed together (an untyped NULL column takes the type of the
 * other operands' column), a run of UNIONs becomes one n-ary Union, and INTERSECT / EXCEPT become a DISTINCT
 * semi / anti join on IS NOT DISTINCT FROM of every column (so NULLs match, as set operations require); with ALL,
 * the rows are numbered among their equals first and joined on the number too (no DISTINCT).
 */
final class SetOperationBinder {
  private final Analyzer analyzer;
  private final BindingContext cx;
  /** The query whose select list may keep untyped NULLs: a set operation's operand (see {@link #operand}). */
  private Select untypedNullsAllowed;

  SetOperationBinder(Analyzer analyzer, BindingContext cx) {
    this.analyzer = analyzer;
    this.cx = cx;
  }

  /** Whether {@code s} is the operand being analyzed, whose untyped NULL columns the set operation types. */
  boolean isOperand(Select s) {
    return s == untypedNullsAllowed;
  }

  private static Expr.ColumnRef ref(Field f) {
    return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
  }

  Rel setOperation(SetOperationList so, Scope outer) {
    return setOperation(so, outer, null);
  }

  /**
   * The same; with {@code domain} (a dependent subquery's correlation, see {@link SubqueryDecorrelator#dependent}),
   * every operand is analyzed as a dependent query of its own over that domain — joined with it, returning the
   * domain's columns after its own — and the operation then covers those columns too: a UNION keeps equal rows of
   * two outer values apart, INTERSECT / EXCEPT match a row only with one of the same outer value (IS NOT DISTINCT
   * FROM, as for the other columns).
   */
  Rel setOperation(SetOperationList so, Scope outer, Correlation domain) {
    this.domain = domain;
    try {
      return operation(so, outer);
    } finally {
      this.domain = null;
    }
  }

  /** The correlation of the dependent subquery being analyzed, or null (see {@link #setOperation(SetOperationList, Scope, Correlation)}). */
  private Correlation domain;

  private Rel operation(SetOperationList so, Scope outer) {
    List<Select> selects = so.getSelects();
    // INTERSECT and EXCEPT nest their plans (a chain of UNIONs does not): bound the depth like expressions'
    long nesting = so.getOperations().stream().filter(o -> !(o instanceof UnionOp)).count();
    if (nesting > cx.limits().maxNestingDepth()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "more than " + cx.limits().maxNestingDepth()
          + " INTERSECT and EXCEPT operations in one query (limit " + cx.limits().maxNestingDepth() + ")");
    }
    // INTERSECT binds more tightly than UNION and EXCEPT (a UNION b INTERSECT c is a UNION (b INTERSECT c)):
    // combine each run of INTERSECTs first, then the rest from left to right
    List<Rel> terms = new ArrayList<>();
    List<SetOperation> ops = new ArrayList<>();
    Rel term = operand(selects.get(0), outer);
    for (int k = 1; k < selects.size(); k++) {
      SetOperation op = so.getOperations().get(k - 1);
      if (op instanceof IntersectOp) {
        term = combine(term, operand(selects.get(k), outer), op);
      } else {
        terms.add(term);
        ops.add(op);
        term = operand(selects.get(k), outer);
      }
    }
    terms.add(term);
    Rel acc = terms.get(0);
    int i = 1;
    while (i < terms.size()) {
      if (!(ops.get(i - 1) instanceof UnionOp)) {
        acc = combine(acc, terms.get(i), ops.get(i - 1));
        i++;
        continue;
      }
      // a run of UNIONs becomes one n-ary Union, typed once: a tree as deep as the chain is long would be
      // walked recursively by every rule, and typing it pair by pair is quadratic in its length
      List<Rel> run = new ArrayList<>(List.of(acc));
      List<Boolean> all = new ArrayList<>();
      for (; i < terms.size() && ops.get(i - 1) instanceof UnionOp u; i++) {
        run.add(terms.get(i));
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
    Correlation d = domain;
    untypedNullsAllowed = inner;
    domain = null; // an operand's own subqueries and set operations are not the dependent one
    try {
      if (d == null) return analyzer.query(s, outer);
      Correlation branch = new Correlation(Correlation.Mode.DOMAIN);
      branch.domain = d.domain;
      branch.domainKeys.addAll(d.domainKeys);
      return analyzer.query(s, outer, branch);
    } finally {
      untypedNullsAllowed = saved;
      domain = d;
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
    boolean all = op.toString().toUpperCase(Locale.ROOT).contains("ALL");
    List<Field> lf2 = l.schema().getFields();
    if (all) {
      // each row numbered among its equals (1..m on the left, 1..n on the right): joined on the row and its number,
      // the semi join keeps min(m, n) copies and the anti join max(m - n, 0), as INTERSECT ALL / EXCEPT ALL define
      l = numbered(l);
      r = numbered(r);
    }
    r = apart(r, l);
    List<Field> lf = l.schema().getFields();
    List<Field> rf = r.schema().getFields();
    List<Expr> conds = new ArrayList<>();
    for (int i = 0; i < lf.size(); i++) conds.add(new Expr.DistinctFrom(ref(lf.get(i)), ref(rf.get(i)), true));
    LogicalPlan join = new LogicalPlan.Join(l, r, except ? JoinType.ANTI : JoinType.SEMI, Exprs.and(conds));
    if (!all) return new Rel(distinct(join), left.visible());
    List<NamedExpr> keep = new ArrayList<>();
    for (Field f : lf2) keep.add(new NamedExpr(ref(f), f.getName()));
    return new Rel(new LogicalPlan.Project(join, keep), left.visible());
  }

  /**
   * {@code right} with its columns that {@code left} has too (a dependent subquery's domain columns, which every
   * operand returns) under fresh names, so that a join of the two tells them apart.
   */
  private LogicalPlan apart(LogicalPlan right, LogicalPlan left) {
    java.util.Set<String> taken = new java.util.HashSet<>();
    for (Field f : left.schema().getFields()) taken.add(f.getName());
    List<NamedExpr> out = new ArrayList<>();
    boolean clash = false;
    for (Field f : right.schema().getFields()) {
      boolean c = taken.contains(f.getName());
      clash |= c;
      out.add(new NamedExpr(ref(f), c ? cx.names().fresh(f.getName()) : f.getName()));
    }
    return clash ? new LogicalPlan.Project(right, out) : right;
  }

  /** {@code plan} with one more column: {@code row_number() OVER (PARTITION BY every column)}. */
  private LogicalPlan numbered(LogicalPlan plan) {
    List<Expr> partition = new ArrayList<>();
    for (Field f : plan.schema().getFields()) partition.add(ref(f));
    LogicalPlan.WindowCall n = new LogicalPlan.WindowCall(LogicalPlan.WindowFunc.ROW_NUMBER, null, false, List.of(),
        partition, List.of(), LogicalPlan.Frame.DEFAULT, SqlTypes.BIGINT, false, cx.names().fresh("__copy"));
    return new LogicalPlan.Window(plan, List.of(n));
  }

  /** {@code plan} with its columns cast to {@code types} (same names), or itself when they match. */
  static LogicalPlan castTo(LogicalPlan plan, List<ArrowType> types) {
    List<Field> fields = plan.schema().getFields();
    boolean same = true;
    List<NamedExpr> out = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Expr e = Coercion.coerce(ref(fields.get(i)), types.get(i));
      same &= e instanceof Expr.ColumnRef;
      out.add(new NamedExpr(e, fields.get(i).getName()));
    }
    return same ? plan : new LogicalPlan.Project(plan, out);
  }

  static LogicalPlan distinct(LogicalPlan plan) {
    List<NamedExpr> groups = new ArrayList<>();
    for (Field f : plan.schema().getFields()) groups.add(new NamedExpr(ref(f), f.getName()));
    return new LogicalPlan.Aggregate(plan, groups, List.of());
  }
}
