package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import dev.quiver.planner.plan.LogicalPlan.NamedExpr;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Moves each conjunct of a filter as far down as it stays correct, so that it reaches the scan that can
 * prune with it: through projections (substituting the projected expressions), sorts, aggregations (for
 * conjuncts over group columns; over grouping sets, over the group columns every set keeps), window functions (for conjuncts over columns every call partitions by), unions
 * (into every input) and joins — for an inner join into the side
 * whose columns it reads, or into the join condition when it reads both. A join's own condition gives
 * its one-sided conjuncts to the side they filter when the join type allows (an inner or semi join for
 * either side; a LEFT/ANTI join only for its right side).
 * <p>Before: {@code Filter(o_orderdate < d AND l_orderkey = o_orderkey) -> CrossJoin(lineitem, orders)};
 * after: {@code INNER Join(l_orderkey = o_orderkey) -> [lineitem, Filter(o_orderdate < d) -> orders]}.
 * <p>Legal because a conjunct is only moved below an operator that neither creates nor changes the
 * values it reads and, for outer joins, never below the side whose missing rows are NULL-padded.
 * Conjuncts with volatile calls are not moved. Predicates implied through equi-join keys are copied to
 * the other side (see {@link #implied}).
 * <p>Matches filters and joins, top-down: at a filter its conjuncts travel down the chain of operators
 * below as far as each may go (the operators they pass through are rebuilt, the subtrees they do not
 * enter are left to the driver's walk); at a join its own condition's one-sided conjuncts go to its
 * inputs. Returns the node itself when every conjunct is already as low as it can be.
 */
public final class PushDownFilters implements Rule {
  @Override
  public String name() {
    return "PushDownFilters";
  }

  private static final Pattern FILTERS_AND_JOINS = Pattern.anyOf(LogicalPlan.Filter.class, LogicalPlan.Join.class);

  @Override
  public Pattern pattern() {
    return FILTERS_AND_JOINS;
  }

  @Override
  public Order order() {
    return Order.TOP_DOWN;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    if (plan instanceof LogicalPlan.Filter f) {
      LogicalPlan pushed = push(f.input(), Exprs.conjuncts(f.condition()).stream().distinct().toList());
      // nothing moved: the same conjuncts stayed right here over the same input
      boolean same = pushed instanceof LogicalPlan.Filter g && g.input() == f.input() && g.condition().equals(f.condition());
      return same ? plan : pushed;
    }
    return pushIntoJoin((LogicalPlan.Join) plan, List.of(), new ArrayList<>());
  }

  /**
   * {@code plan} with {@code conjuncts} (over its output) applied as low as possible; {@code plan} itself
   * when there are none (the driver visits it on its own).
   */
  private LogicalPlan push(LogicalPlan plan, List<Expr> conjuncts) {
    if (conjuncts.isEmpty()) return plan;
    if (plan instanceof LogicalPlan.Filter f) {
      List<Expr> all = new ArrayList<>(conjuncts);
      for (Expr c : Exprs.conjuncts(f.condition())) if (!all.contains(c)) all.add(c);
      return push(f.input(), all);
    }
    List<Expr> movable = new ArrayList<>();
    List<Expr> stay = new ArrayList<>();
    for (Expr c : conjuncts) {
      if (volatileCall(c)) stay.add(c);
      else movable.add(c);
    }
    LogicalPlan result;
    if (plan instanceof LogicalPlan.Project p) {
      Map<String, Expr> defs = new HashMap<>();
      for (NamedExpr n : p.exprs()) defs.put(n.name(), n.expr());
      List<Expr> down = new ArrayList<>();
      for (Expr c : movable) {
        if (defs.keySet().containsAll(Exprs.columns(c)) && !Exprs.columns(c).stream().anyMatch(x -> volatileCall(defs.get(x)))) {
          down.add(substitute(c, defs));
        } else {
          stay.add(c);
        }
      }
      LogicalPlan input = push(p.input(), down);
      result = input == p.input() ? p : new LogicalPlan.Project(input, p.exprs());
    } else if (plan instanceof LogicalPlan.Sort s && s.fetch() < 0) {
      LogicalPlan input = push(s.input(), movable);
      result = input == s.input() ? s : new LogicalPlan.Sort(input, s.keys(), s.fetch());
      movable = List.of();
    } else if (plan instanceof LogicalPlan.Aggregate a && a.input() instanceof LogicalPlan.Expand e) {
      // grouping sets: only conjuncts over group columns that every set keeps (the same input expression in every
      // projection, never a NULL of the expansion) go below it, to the expansion's input; then no set is (), and
      // every group of every set holds exactly the rows with its key, so dropping rows by key drops whole groups
      Map<String, Expr> defs = new HashMap<>();
      for (NamedExpr g : a.groups()) {
        if (!(g.expr() instanceof Expr.ColumnRef c)) continue;
        Expr common = null;
        for (List<NamedExpr> projection : e.projections()) {
          Expr d = null;
          for (NamedExpr n : projection) if (n.name().equals(c.name())) d = n.expr();
          if (d == null || d instanceof Expr.Literal || (common != null && !common.equals(d)) || volatileCall(d)) {
            common = null;
            break;
          }
          common = d;
        }
        if (common != null) defs.put(g.name(), common);
      }
      List<Expr> down = new ArrayList<>();
      for (Expr c : movable) {
        if (!Exprs.columns(c).isEmpty() && defs.keySet().containsAll(Exprs.columns(c))) down.add(substitute(c, defs));
        else stay.add(c);
      }
      LogicalPlan input = push(e.input(), down);
      result = input == e.input() ? a
          : new LogicalPlan.Aggregate(new LogicalPlan.Expand(input, e.projections()), a.groups(), a.aggregates());
    } else if (plan instanceof LogicalPlan.Aggregate a && !a.groups().isEmpty()) {
      Map<String, Expr> defs = new HashMap<>();
      for (NamedExpr g : a.groups()) defs.put(g.name(), g.expr());
      List<Expr> down = new ArrayList<>();
      for (Expr c : movable) {
        if (defs.keySet().containsAll(Exprs.columns(c)) && !Exprs.columns(c).isEmpty()) down.add(substitute(c, defs));
        else stay.add(c);
      }
      LogicalPlan input = push(a.input(), down);
      result = input == a.input() ? a : new LogicalPlan.Aggregate(input, a.groups(), a.aggregates());
    } else if (plan instanceof LogicalPlan.Union u) {
      List<Field> out = u.schema().getFields();
      List<LogicalPlan> inputs = new ArrayList<>();
      for (LogicalPlan in : u.inputs()) {
        Map<String, Expr> defs = new HashMap<>();
        List<Field> f = in.schema().getFields();
        for (int i = 0; i < out.size(); i++) {
          defs.put(out.get(i).getName(), new Expr.ColumnRef(f.get(i).getName(), f.get(i).getType(), f.get(i).isNullable()));
        }
        List<Expr> down = new ArrayList<>();
        for (Expr c : movable) down.add(substitute(c, defs));
        inputs.add(push(in, down));
      }
      boolean same = true;
      for (int i = 0; i < inputs.size(); i++) same &= inputs.get(i) == u.inputs().get(i);
      result = same ? u : new LogicalPlan.Union(inputs);
    } else if (plan instanceof LogicalPlan.Window w) {
      // only conjuncts over columns every call partitions by: they drop whole partitions, leaving the others as they were
      Set<String> keys = null;
      for (LogicalPlan.WindowCall c : w.calls()) {
        Set<String> k = new HashSet<>();
        for (Expr e : c.partitionBy()) if (e instanceof Expr.ColumnRef r) k.add(r.name());
        if (keys == null) keys = k;
        else keys.retainAll(k);
      }
      List<Expr> down = new ArrayList<>();
      for (Expr c : movable) {
        Set<String> cols = Exprs.columns(c);
        if (!cols.isEmpty() && keys != null && keys.containsAll(cols)) down.add(c);
        else stay.add(c);
      }
      LogicalPlan input = push(w.input(), down);
      result = input == w.input() ? w : new LogicalPlan.Window(input, w.calls());
    } else if (plan instanceof LogicalPlan.Join j) {
      result = pushIntoJoin(j, movable, stay);
    } else {
      result = plan; // the conjuncts stop here; the driver visits the inputs
      stay.addAll(movable);
    }
    return stay.isEmpty() ? result : new LogicalPlan.Filter(result, Exprs.and(stay));
  }

  private LogicalPlan pushIntoJoin(LogicalPlan.Join j, List<Expr> above, List<Expr> stay) {
    Set<String> left = names(j.left());
    Set<String> right = names(j.right());
    JoinType t = outerToInner(j.type(), above, left, right);
    List<Expr> toLeft = new ArrayList<>();
    List<Expr> toRight = new ArrayList<>();
    List<Expr> cond = new ArrayList<>();
    for (Expr c : above) {
      Set<String> cols = Exprs.columns(c);
      boolean l = !cols.isEmpty() && left.containsAll(cols);
      boolean r = !cols.isEmpty() && right.containsAll(cols);
      if (l && (t == JoinType.INNER || t == JoinType.LEFT || t.leftOnly())) toLeft.add(c);
      else if (r && (t == JoinType.INNER || t == JoinType.RIGHT)) toRight.add(c);
      else if (t == JoinType.INNER) {
        cond.add(c);
        sidesOfDisjunction(c, left, toLeft);
        sidesOfDisjunction(c, right, toRight);
      } else {
        stay.add(c);
      }
    }
    if (j.condition() != null) {
      for (Expr c : Exprs.conjuncts(j.condition())) {
        if (c instanceof Expr.Literal lit && Boolean.TRUE.equals(lit.value())) continue;
        Set<String> cols = Exprs.columns(c);
        boolean l = !cols.isEmpty() && left.containsAll(cols);
        boolean r = !cols.isEmpty() && right.containsAll(cols);
        if (volatileCall(c)) cond.add(c);
        else if (l && (t == JoinType.INNER || t == JoinType.SEMI || t == JoinType.RIGHT)) toLeft.add(c);
        else if (r && (t == JoinType.INNER || t == JoinType.SEMI || t == JoinType.LEFT || t == JoinType.ANTI)) toRight.add(c);
        else if (!cond.contains(c)) cond.add(c);
      }
    }
    implied(cond, left, right, t, toLeft, toRight);
    Expr condition = cond.isEmpty() ? (t == JoinType.INNER ? null : Expr.Literal.TRUE) : Exprs.and(cond);
    LogicalPlan l = push(j.left(), toLeft);
    LogicalPlan r = push(j.right(), toRight);
    if (l == j.left() && r == j.right() && t == j.type() && java.util.Objects.equals(condition, j.condition())) return j;
    return new LogicalPlan.Join(l, r, t, condition);
  }

  /**
   * What an OR over both sides of an inner join says about one side: with {@code c = D1 OR … OR Dn}, where each
   * {@code Di} has conjuncts over {@code side}'s columns only ({@code Si}), the side's rows that can join satisfy
   * {@code S1 OR … OR Sn}; that predicate is added to {@code to} (to filter the side, and prune its scan), while
   * {@code c} itself stays in the join. TPC-H q07's {@code (n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR
   * (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')} gives {@code n1.n_name IN ('FRANCE', 'GERMANY')} and the same
   * for {@code n2}, so the joins below carry 2 nations' rows instead of 25 (DuckDB and Spark derive it too).
   * <p>Legal (three-valued): a joined row passes only where {@code c} is TRUE, so some {@code Di} is TRUE, so each of
   * its conjuncts is, so {@code Si} and the derived OR are TRUE for the side's row: a row the derived predicate drops
   * could not have joined. Not derived when some {@code Di} has no conjunct over the side alone (then nothing
   * follows), nor for a conjunct with a volatile call. Only where the OR first enters a join's condition from a
   * filter above, so that later passes (which find it in the condition) do not add the predicate again.
   */
  private static void sidesOfDisjunction(Expr c, Set<String> side, List<Expr> to) {
    if (!(c instanceof Expr.Or) || volatileCall(c)) return;
    List<Expr> derived = new ArrayList<>();
    for (Expr d : Exprs.flatten(false, c)) {
      List<Expr> own = new ArrayList<>();
      for (Expr k : Exprs.conjuncts(d)) {
        Set<String> cols = Exprs.columns(k);
        if (!cols.isEmpty() && side.containsAll(cols)) own.add(k);
      }
      if (own.isEmpty()) return;
      derived.add(Exprs.and(own));
    }
    Expr p = Exprs.chain(false, derived);
    if (!to.contains(p)) to.add(p);
  }

  /**
   * An outer join under a filter that rejects the NULL-padded rows of a side no longer needs to pad
   * that side: {@code LEFT} becomes {@code INNER} when a conjunct over right columns cannot be TRUE for
   * NULLs (likewise RIGHT; FULL becomes LEFT or RIGHT).
   */
  private static JoinType outerToInner(JoinType t, List<Expr> above, Set<String> left, Set<String> right) {
    boolean rejectsRightNulls = false;
    boolean rejectsLeftNulls = false;
    for (Expr c : above) {
      Set<String> cols = Exprs.columns(c);
      if (!cols.isEmpty() && right.containsAll(cols) && rejectsNulls(c, cols)) rejectsRightNulls = true;
      if (!cols.isEmpty() && left.containsAll(cols) && rejectsNulls(c, cols)) rejectsLeftNulls = true;
    }
    return switch (t) {
      case LEFT -> rejectsRightNulls ? JoinType.INNER : t;
      case RIGHT -> rejectsLeftNulls ? JoinType.INNER : t;
      case FULL -> rejectsRightNulls && rejectsLeftNulls ? JoinType.INNER
          : rejectsRightNulls ? JoinType.RIGHT : rejectsLeftNulls ? JoinType.LEFT : t;
      default -> t;
    };
  }

  /** Whether predicate {@code e} is never TRUE when every column in {@code cols} is NULL. */
  static boolean rejectsNulls(Expr e, Set<String> cols) {
    if (e instanceof Expr.And a) return rejectsNulls(a.left(), cols) || rejectsNulls(a.right(), cols);
    if (e instanceof Expr.Or o) return rejectsNulls(o.left(), cols) && rejectsNulls(o.right(), cols);
    if (e instanceof Expr.IsNull n) return n.negated() && nullOnNulls(n.input(), cols);
    return nullOnNulls(e, cols);
  }

  /** Whether {@code e} is NULL when every column in {@code cols} is NULL (strict operators only). */
  private static boolean nullOnNulls(Expr e, Set<String> cols) {
    if (e instanceof Expr.ColumnRef c) return cols.contains(c.name());
    if (e instanceof Expr.Literal l) return l.isNull();
    if (e instanceof Expr.InList in) return nullOnNulls(in.value(), cols);
    if (e instanceof Expr.Cast c) return !c.safe() && nullOnNulls(c.input(), cols);
    if (e instanceof Expr.Call call) {
      var def = dev.quiver.planner.kernel.Functions.lookup(call.name());
      if (def == null || !def.strict()) return false;
    } else if (!(e instanceof Expr.Comparison || e instanceof Expr.Arithmetic || e instanceof Expr.Negate
        || e instanceof Expr.Like || e instanceof Expr.Not)) {
      return false;
    }
    for (Expr c : e.children()) if (nullOnNulls(c, cols)) return true;
    return false;
  }

  /**
   * Predicates implied through join keys: with {@code l = r} in the condition, a pushable predicate on
   * {@code l} (a comparison of the bare column with literals) also holds for the matching {@code r}, so a
   * copy filters the other side. Towards the right side for INNER, LEFT, SEMI and ANTI joins (right
   * rows failing it can never match a surviving left row); towards the left for INNER and SEMI.
   */
  private static void implied(List<Expr> cond, Set<String> left, Set<String> right, JoinType t, List<Expr> toLeft,
      List<Expr> toRight) {
    boolean rightward = t == JoinType.INNER || t == JoinType.LEFT || t == JoinType.SEMI || t == JoinType.ANTI;
    boolean leftward = t == JoinType.INNER || t == JoinType.SEMI;
    if (!rightward && !leftward) return;
    for (Expr c : cond) {
      if (!(c instanceof Expr.Comparison cmp) || cmp.op() != Expr.CmpOp.EQ
          || !(cmp.left() instanceof Expr.ColumnRef a) || !(cmp.right() instanceof Expr.ColumnRef b)
          || !a.type().equals(b.type())) continue;
      Expr.ColumnRef l = left.contains(a.name()) && right.contains(b.name()) ? a : right.contains(a.name()) && left.contains(b.name()) ? b : null;
      if (l == null) continue;
      Expr.ColumnRef r = l == a ? b : a;
      if (rightward) copyAcross(toLeft, l, r, toRight);
      if (leftward) copyAcross(toRight, r, l, toLeft);
    }
  }

  private static void copyAcross(List<Expr> from, Expr.ColumnRef col, Expr.ColumnRef other, List<Expr> to) {
    for (Expr p : List.copyOf(from)) {
      if (!Exprs.columns(p).equals(Set.of(col.name())) || ScanPredicates.translate(p) == null) continue;
      Expr copy = substitute(p, Map.of(col.name(), other));
      if (!to.contains(copy)) to.add(copy);
    }
  }

  static Set<String> names(LogicalPlan p) {
    Set<String> s = new HashSet<>();
    for (Field f : p.schema().getFields()) s.add(f.getName());
    return s;
  }

  static Expr substitute(Expr e, Map<String, Expr> defs) {
    return Exprs.transformUp(e, x -> x instanceof Expr.ColumnRef c && defs.containsKey(c.name()) ? defs.get(c.name()) : x);
  }

  static boolean volatileCall(Expr e) {
    if (e instanceof Expr.Call c && c.volatility() == Expr.Volatility.VOLATILE) return true;
    for (Expr c : e.children()) if (volatileCall(c)) return true;
    return false;
  }
}
