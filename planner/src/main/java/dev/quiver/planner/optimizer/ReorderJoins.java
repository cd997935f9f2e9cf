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
 * Orders the inputs of each tree of inner joins greedily by estimated size, so that hash joins build on
 * small inputs and no cross product is formed where a join predicate exists: the largest input is probed,
 * and the input connected to what is joined so far whose join is estimated smallest is added next (as the build
 * side, unless it is more than twice the size of what is joined so far: then that is built on). Filtered arms are
 * joined to their one neighbour first ({@link #absorbFilteredArms}). Each predicate is placed at the first join where all its columns are available. An outer join
 * whose preserved side is the smaller one is flipped (LEFT becomes RIGHT) so that it builds on it.
 * Sizes are Parquet row counts, scaled down by a constant for each filter.
 * <p>Legal because inner joins are commutative and associative given that every predicate is kept; a
 * projection on top restores the original column order.
 * <p>Matches joins, bottom-up; at an inner join it works on the whole tree of inner joins below it (its
 * leaves and all their conditions, looking through the order-restoring projections of earlier passes),
 * since an order is a property of the tree, not of one join.
 */
public final class ReorderJoins implements Rule {
  private static final double FILTER_SELECTIVITY = 0.25;

  @Override
  public String name() {
    return "ReorderJoins";
  }

  @Override
  public Pattern pattern() {
    return Pattern.node(LogicalPlan.Join.class);
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan, OptimizerContext context) {
    LogicalPlan.Join j = (LogicalPlan.Join) plan;
    if (j.type() == JoinType.INNER) return reorder(j, context);
    if ((j.type() == JoinType.LEFT || j.type() == JoinType.RIGHT || j.type() == JoinType.FULL)
        && estimate(j.right()) > 2 * estimate(j.left())) {
      JoinType flipped = j.type() == JoinType.LEFT ? JoinType.RIGHT : j.type() == JoinType.RIGHT ? JoinType.LEFT : JoinType.FULL;
      return restoreOrder(new LogicalPlan.Join(j.right(), j.left(), flipped, j.condition()), j);
    }
    return plan;
  }

  private LogicalPlan reorder(LogicalPlan.Join root, OptimizerContext context) {
    List<LogicalPlan> leaves = new ArrayList<>();
    List<Expr> conjuncts = new ArrayList<>();
    flatten(root, leaves, conjuncts);
    if (leaves.size() < 2) return root;
    Map<LogicalPlan, Double> armSizes = new java.util.IdentityHashMap<>();
    if (leaves.size() > 2) absorbFilteredArms(leaves, conjuncts, armSizes);
    List<Set<String>> cols = new ArrayList<>();
    List<Double> size = new ArrayList<>();
    // which leaf has each column (names are unique in a statement), and the columns of each conjunct
    Map<String, Integer> owner = new HashMap<>();
    for (LogicalPlan l : leaves) {
      Set<String> names = PushDownFilters.names(l);
      for (String n : names) owner.putIfAbsent(n, cols.size());
      cols.add(names);
      size.add(armSizes.getOrDefault(l, estimate(l)));
    }
    List<Set<String>> conjunctColumns = new ArrayList<>();
    // the leaves each conjunct reads (-1: a column of none), and the conjuncts that read each leaf
    int[][] conjunctLeaves = new int[conjuncts.size()][];
    List<List<Integer>> leafConjuncts = new ArrayList<>();
    for (int i = 0; i < leaves.size(); i++) leafConjuncts.add(new ArrayList<>());
    for (int c = 0; c < conjuncts.size(); c++) {
      Set<String> cc = Exprs.columns(conjuncts.get(c));
      conjunctColumns.add(cc);
      conjunctLeaves[c] = cc.stream().mapToInt(n -> owner.getOrDefault(n, -1)).distinct().toArray();
      for (int l : conjunctLeaves[c]) if (l >= 0) leafConjuncts.get(l).add(c);
    }
    Bounds bounds = new Bounds(leaves, owner);
    boolean[] used = new boolean[leaves.size()];
    boolean[] placed = new boolean[conjuncts.size()];
    int first = 0;
    for (int i = 1; i < leaves.size(); i++) if (size.get(i) > size.get(first)) first = i;
    used[first] = true;
    Set<String> have = new HashSet<>(cols.get(first));
    LogicalPlan acc = leaves.get(first);
    double accRows = size.get(first);
    for (int step = 1; step < leaves.size(); step++) {
      context.cancellation().check();
      int best = -1;
      double bestOut = 0;
      boolean bestConnected = false;
      for (int i = 0; i < leaves.size(); i++) {
        if (used[i]) continue;
        boolean connected = false;
        double out = accRows * size.get(i);
        for (int c : leafConjuncts.get(i)) {
          if (placed[c]) continue;
          // it reads leaf i, some joined leaf, and nothing else
          if (connects(conjunctLeaves[c], used, i)) {
            connected = true;
            out = Math.min(out, joinRows(conjuncts.get(c), accRows, size.get(i), used, i, bounds));
          }
        }
        boolean better = best < 0 || (connected && !bestConnected)
            || (connected == bestConnected && (out < bestOut || (out == bestOut && size.get(i) < size.get(best))));
        if (better) {
          best = i;
          bestOut = out;
          bestConnected = connected;
        }
      }
      double accBefore = accRows;
      accRows = Math.max(1, bestOut);
      used[best] = true;
      have.addAll(cols.get(best));
      List<Expr> cond = new ArrayList<>();
      for (int c = 0; c < conjuncts.size(); c++) {
        if (!placed[c] && have.containsAll(conjunctColumns.get(c))) {
          cond.add(conjuncts.get(c));
          placed[c] = true;
        }
      }
      // the smaller input is the build side (the right): the joined leaves when the new leaf is larger
      acc = size.get(best) > 2 * accBefore
          ? new LogicalPlan.Join(leaves.get(best), acc, JoinType.INNER, cond.isEmpty() ? null : Exprs.and(cond))
          : new LogicalPlan.Join(acc, leaves.get(best), JoinType.INNER, cond.isEmpty() ? null : Exprs.and(cond));
    }
    List<Expr> rest = new ArrayList<>();
    for (int c = 0; c < conjuncts.size(); c++) if (!placed[c]) rest.add(conjuncts.get(c));
    if (!rest.isEmpty()) acc = new LogicalPlan.Filter(acc, Exprs.and(rest));
    if (sameTree(acc, root)) return root;
    return restoreOrder(acc, root);
  }

  /**
   * Joins each filtered <em>arm</em> — a leaf that filters its rows ({@link PushSemiJoinDown#filtered}) and is tied
   * by equalities to exactly one other leaf, e.g. TPC-H q07's {@code nation} with {@code n_name IN ('FRANCE',
   * 'GERMANY')}, tied to {@code supplier} only — to that neighbour first, as one leaf of the greedy order, sized as
   * the neighbour times the arm's share of the distinct keys ({@link #joinRows}). The greedy order, which grows one
   * left-deep chain from the largest leaf, would otherwise join the neighbour unfiltered (10,000 suppliers) and meet
   * the filter only later; as one leaf it is small (about 800 suppliers), and lineitem meets it before orders. The
   * arm's conditions with its neighbour go into that join; conditions with other leaves stay in the list. Legal as
   * any inner-join order is (see the class); only the order changes. {@code sizes} gets each new leaf's size.
   */
  private static void absorbFilteredArms(List<LogicalPlan> leaves, List<Expr> conjuncts, Map<LogicalPlan, Double> sizes) {
    Map<String, Integer> owner = new HashMap<>();
    for (int i = 0; i < leaves.size(); i++) for (String n : PushDownFilters.names(leaves.get(i))) owner.putIfAbsent(n, i);
    // each leaf's equality neighbours
    List<Set<Integer>> neighbours = new ArrayList<>();
    for (int i = 0; i < leaves.size(); i++) neighbours.add(new HashSet<>());
    for (Expr c : conjuncts) {
      int[] pair = equalityLeaves(c, owner);
      if (pair == null) continue;
      neighbours.get(pair[0]).add(pair[1]);
      neighbours.get(pair[1]).add(pair[0]);
    }
    boolean[] absorbed = new boolean[leaves.size()];
    Map<Integer, LogicalPlan> replaced = new HashMap<>();
    for (int arm = 0; arm < leaves.size(); arm++) {
      if (neighbours.get(arm).size() != 1 || !PushSemiJoinDown.filtered(leaves.get(arm))) continue;
      int hub = neighbours.get(arm).iterator().next();
      // a hub that is itself an arm of this one (two filtered leaves tied only to each other) stays as it is
      if (absorbed[hub] || neighbours.get(hub).size() == 1 || leaves.size() - countTrue(absorbed) <= 2) continue;
      LogicalPlan hubPlan = replaced.getOrDefault(hub, leaves.get(hub));
      List<Expr> cond = new ArrayList<>();
      double rows = sizes.getOrDefault(hubPlan, estimate(hubPlan));
      double armRows = estimate(leaves.get(arm));
      // an arm is the smaller side, which its join builds on: a filtered fact table tied to one dimension (TPC-H
      // q03's lineitem, tied to orders only) is the probe side of the greedy order, not an arm of its dimension
      if (armRows > rows) continue;
      double joined = rows * armRows;
      for (java.util.Iterator<Expr> it = conjuncts.iterator(); it.hasNext(); ) {
        Expr c = it.next();
        int[] pair = equalityLeaves(c, owner);
        if (pair == null || !((pair[0] == arm && pair[1] == hub) || (pair[0] == hub && pair[1] == arm))) continue;
        cond.add(c);
        it.remove();
        Expr.Comparison eq = (Expr.Comparison) c;
        String armColumn = owner.get(((Expr.ColumnRef) strip(eq.left())).name()) == arm
            ? ((Expr.ColumnRef) strip(eq.left())).name() : ((Expr.ColumnRef) strip(eq.right())).name();
        long bound = sourceBound(leaves.get(arm), armColumn);
        // the arm keeps armRows of its bound's distinct keys: the hub keeps that share of its rows
        joined = Math.min(joined, rows * Math.min(1.0, armRows / Math.max(1, bound < 0 ? armRows : bound)));
      }
      LogicalPlan arms = new LogicalPlan.Join(hubPlan, leaves.get(arm), JoinType.INNER, Exprs.and(cond));
      replaced.put(hub, arms);
      sizes.put(arms, Math.max(1, joined));
      absorbed[arm] = true;
    }
    if (replaced.isEmpty()) return;
    List<LogicalPlan> out = new ArrayList<>();
    for (int i = 0; i < leaves.size(); i++) if (!absorbed[i]) out.add(replaced.getOrDefault(i, leaves.get(i)));
    leaves.clear();
    leaves.addAll(out);
  }

  private static int countTrue(boolean[] b) {
    int n = 0;
    for (boolean x : b) if (x) n++;
    return n;
  }

  /** The two leaves an equality of two columns ties together, or null for any other conjunct. */
  private static int[] equalityLeaves(Expr c, Map<String, Integer> owner) {
    if (!(c instanceof Expr.Comparison cmp) || cmp.op() != Expr.CmpOp.EQ
        || !(strip(cmp.left()) instanceof Expr.ColumnRef l) || !(strip(cmp.right()) instanceof Expr.ColumnRef r)) {
      return null;
    }
    Integer a = owner.get(l.name());
    Integer b = owner.get(r.name());
    return a == null || b == null || a.equals(b) ? null : new int[] {a, b};
  }

  /**
   * Whether the join tree built from {@code root}'s leaves is {@code root} again: the same joins and
   * conditions over the very same leaf instances (so leaves are compared by identity, not walked).
   */
  private static boolean sameTree(LogicalPlan built, LogicalPlan root) {
    if (built == root) return true;
    if (built instanceof LogicalPlan.Join a && root instanceof LogicalPlan.Join b) {
      return a.type() == b.type() && java.util.Objects.equals(a.condition(), b.condition())
          && sameTree(a.left(), b.left()) && sameTree(a.right(), b.right());
    }
    if (built instanceof LogicalPlan.Filter a && root instanceof LogicalPlan.Filter b) {
      return a.condition().equals(b.condition()) && sameTree(a.input(), b.input());
    }
    return false;
  }

  /**
   * Estimated rows of joining {@code accRows} rows of {@code acc} with {@code rows} rows of {@code leaf}
   * on {@code conjunct}: for an equality of two columns, |acc| x |leaf| / max(distinct values of either
   * side), else the product.
   */
  private static double joinRows(Expr conjunct, double accRows, double rows, boolean[] inAcc, int leaf, Bounds bounds) {
    if (!(conjunct instanceof Expr.Comparison c) || c.op() != Expr.CmpOp.EQ
        || !(strip(c.left()) instanceof Expr.ColumnRef l) || !(strip(c.right()) instanceof Expr.ColumnRef r)) {
      return accRows * rows;
    }
    double ndv = Math.max(bounds.distinct(l.name(), inAcc, leaf, accRows, rows), bounds.distinct(r.name(), inAcc, leaf, accRows, rows));
    return accRows * rows / Math.max(1, ndv);
  }

  /**
   * Distinct-value bounds of the leaves' columns, each looked up once: the joins built so far consist of
   * leaves only, so a column's bound in them is its bound in the leaf that has it. (Walking the joined
   * tree for every candidate and conjunct made planning 64 joined tables take minutes.)
   */
  private static final class Bounds {
    private final List<LogicalPlan> leaves;
    private final Map<String, Integer> owner;
    private final Map<String, Long> bound = new HashMap<>();

    Bounds(List<LogicalPlan> leaves, Map<String, Integer> owner) {
      this.leaves = leaves;
      this.owner = owner;
    }

    /**
     * The larger of the bounds of {@code name} in the joined leaves ({@code inAcc}, {@code accRows} rows)
     * and in leaf {@code leaf} ({@code rows} rows); 0 where it is in neither.
     */
    double distinct(String name, boolean[] inAcc, int leaf, double accRows, double rows) {
      Integer o = owner.get(name);
      if (o == null) return 0;
      double r;
      if (o == leaf) {
        r = rows;
      } else if (inAcc[o]) {
        r = accRows;
      } else {
        return 0;
      }
      long b = bound.computeIfAbsent(name, n -> sourceBound(leaves.get(o), n));
      return b < 0 ? r : Math.min(b, Math.max(r, 1));
    }
  }

  private static Expr strip(Expr e) {
    return e instanceof Expr.Cast c ? strip(c.input()) : e;
  }

  private static long sourceBound(LogicalPlan p, String name) {
    if (p instanceof LogicalPlan.TableScan s) {
      String col = s.columnOf(name);
      return col == null ? -1 : s.table().distinctBound(col);
    }
    if (p instanceof LogicalPlan.Project pr) {
      for (NamedExpr n : pr.exprs()) {
        if (n.name().equals(name)) return n.expr() instanceof Expr.ColumnRef c ? sourceBound(pr.input(), c.name()) : -1;
      }
      return -1;
    }
    if (p instanceof LogicalPlan.Aggregate a) {
      for (NamedExpr n : a.groups()) {
        if (n.name().equals(name)) return n.expr() instanceof Expr.ColumnRef c ? sourceBound(a.input(), c.name()) : -1;
      }
      return -1;
    }
    for (LogicalPlan c : p.children()) {
      if (PushDownFilters.names(c).contains(name)) return sourceBound(c, name);
    }
    return -1;
  }

  /** Whether a conjunct reading {@code leaves} reads some leaf in {@code used} and otherwise only {@code leaf}. */
  private static boolean connects(int[] leaves, boolean[] used, int leaf) {
    boolean joined = false;
    for (int l : leaves) {
      if (l < 0) return false;
      if (used[l]) joined = true;
      else if (l != leaf) return false;
    }
    return joined;
  }

  /** {@code plan} with the columns of {@code original} in their original order. */
  private static LogicalPlan restoreOrder(LogicalPlan plan, LogicalPlan original) {
    List<Field> want = original.schema().getFields();
    List<Field> have = plan.schema().getFields();
    boolean same = want.size() == have.size();
    for (int i = 0; same && i < want.size(); i++) same = want.get(i).getName().equals(have.get(i).getName());
    if (same) return plan;
    List<NamedExpr> out = new ArrayList<>();
    for (Field f : want) {
      Field h = have.stream().filter(x -> x.getName().equals(f.getName())).findFirst().orElseThrow();
      out.add(new NamedExpr(new Expr.ColumnRef(h.getName(), h.getType(), h.isNullable()), f.getName()));
    }
    return new LogicalPlan.Project(plan, out);
  }

  private static void flatten(LogicalPlan p, List<LogicalPlan> leaves, List<Expr> conjuncts) {
    if (p instanceof LogicalPlan.Join j && j.type() == JoinType.INNER) {
      flatten(j.left(), leaves, conjuncts);
      flatten(j.right(), leaves, conjuncts);
      if (j.condition() != null) {
        for (Expr c : Exprs.conjuncts(j.condition())) {
          if (!(c instanceof Expr.Literal l && Boolean.TRUE.equals(l.value()))) conjuncts.add(c);
        }
      }
    } else if (p instanceof LogicalPlan.Project pr && pr.input() instanceof LogicalPlan.Join j && j.type() == JoinType.INNER
        && isRename(pr)) {
      // a projection that only restores column order (from an earlier pass): look through it
      flatten(j, leaves, conjuncts);
    } else {
      leaves.add(p);
    }
  }

  private static boolean isRename(LogicalPlan.Project p) {
    Set<String> in = PushDownFilters.names(p.input());
    if (p.exprs().size() != in.size()) return false;
    for (NamedExpr n : p.exprs()) {
      if (!(n.expr() instanceof Expr.ColumnRef c) || !c.name().equals(n.name())) return false;
    }
    return true;
  }

  /** Estimated output rows. */
  static double estimate(LogicalPlan p) {
    // a scan's exact conjuncts filter like the Filter they came from, counted once for both
    if (p instanceof LogicalPlan.TableScan s) {
      return Math.max(1, s.table().rowCount()) * (s.exact().isEmpty() ? 1 : FILTER_SELECTIVITY);
    }
    if (p instanceof LogicalPlan.Filter f) {
      boolean filteredScan = f.input() instanceof LogicalPlan.TableScan s && !s.exact().isEmpty();
      return filteredScan ? estimate(f.input()) : estimate(f.input()) * FILTER_SELECTIVITY;
    }
    if (p instanceof LogicalPlan.Aggregate a) return a.groups().isEmpty() ? 1 : estimate(a.input()) * 0.5;
    if (p instanceof LogicalPlan.Expand e) return estimate(e.input()) * e.projections().size();
    if (p instanceof LogicalPlan.Limit l) return Math.min(l.limit(), estimate(l.input()));
    if (p instanceof LogicalPlan.Sort s && s.fetch() >= 0) return Math.min(s.fetch(), estimate(s.input()));
    if (p instanceof LogicalPlan.EnforceSingleRow e && !e.keys().isEmpty()) return estimate(e.input());
    if (p instanceof LogicalPlan.EnforceSingleRow || p instanceof LogicalPlan.OneRow) return 1;
    if (p instanceof LogicalPlan.Empty) return 0;
    if (p instanceof LogicalPlan.Union u) return u.inputs().stream().mapToDouble(ReorderJoins::estimate).sum();
    if (p instanceof LogicalPlan.Join j) {
      if (j.type().leftOnly()) return estimate(j.left()) * (j.type() == JoinType.SEMI ? 0.5 : 0.5);
      return Math.max(estimate(j.left()), estimate(j.right()));
    }
    return p.children().isEmpty() ? 1 : estimate(p.children().get(0));
  }
}
