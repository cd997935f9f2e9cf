package dev.quiver.planner.optimizer.simplify;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.Optimizer;
import dev.quiver.planner.optimizer.OptimizerContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Runs the simplifier's rules over an expression, bottom-up, pass after pass, until nothing changes
 * (bounded). Node rules see a node whose children are already simplified; chain rules see a whole
 * AND (or OR) chain at once, flattened, so a long conjunction is handled in one step, not one per level.
 */
public final class ExprSimplifier {
  /** The passes over one expression unless the context says otherwise ({@code SqlLimits.maxSimplifierPasses}). */
  public static final int MAX_PASSES = 16;
  private static final int MAX_NODE_ROUNDS = 8;

  private final List<ExprRule> nodeRules;
  private final List<ChainRule> chainRules;

  public ExprSimplifier(List<ExprRule> nodeRules, List<ChainRule> chainRules) {
    this.nodeRules = List.copyOf(nodeRules);
    this.chainRules = List.copyOf(chainRules);
  }

  public static ExprSimplifier standard() {
    return new ExprSimplifier(
        List.of(new FoldConstants(), new PropagateNulls(), new PushNotIntoExpression(), new MoveLiteralToRight(),
            new SimplifyInList(), new SimplifyBooleanComparison(), new SimplifySelfComparison(), new SimplifyIsNull(),
            new SimplifyLike(), new SimplifyRegexpLike(), new SimplifyCase(), new MultiplyByZero(),
            new RemoveIdentityCast(), new UnwrapCastInComparison(), new UnwrapCastInList(), new UnwrapDateCast(),
            new RangeForMonotonicFunction()),
        List.of(new RemoveBooleanConstants(), new DeduplicateTerms(), new CollapseComplement(), new AbsorbTerms(),
            new FactorCommonConjuncts(), new CombineInLists(), new RemoveRedundantInequality(),
            new CollapseClosedRange()));
  }

  /** The classes of this simplifier's rules, node rules then chain rules (tests check none is dead). */
  List<Class<?>> ruleClasses() {
    List<Class<?>> out = new ArrayList<>();
    for (ExprRule r : nodeRules) out.add(r.getClass());
    for (ChainRule r : chainRules) out.add(r.getClass());
    return out;
  }

  /** The simplified expression; names of the rules that changed something go to {@code fired}. */
  public Expr simplify(Expr e, OptimizerContext context, Set<String> fired) {
    return simplify(e, context, fired, null);
  }

  /**
   * As above; each rewrite (rule, node before, node after) is also appended to {@code log} unless it is null (a
   * profile's record of what the simplifier did to a predicate).
   */
  public Expr simplify(Expr e, OptimizerContext context, Set<String> fired, List<Optimizer.Rewrite> log) {
    for (int pass = 0; pass < context.maxSimplifierPasses(); pass++) {
      Expr next = visit(e, context, fired, log);
      if (next.equals(e)) return next;
      e = next;
    }
    return e;
  }

  /**
   * The simplified form of a WHERE condition: simplify, then treat UNKNOWN as FALSE wherever the root
   * reaches through AND / OR only, then simplify again.
   */
  public Expr simplifyFilter(Expr e, OptimizerContext context, Set<String> fired) {
    return simplifyFilter(e, context, fired, null);
  }

  /** As above, each rewrite also appended to {@code log} unless it is null. */
  public Expr simplifyFilter(Expr e, OptimizerContext context, Set<String> fired, List<Optimizer.Rewrite> log) {
    Expr s = simplify(e, context, fired, log);
    Expr w = FilterContext.unknownAsFalse(s);
    if (!w.equals(s)) {
      fired.add("SimplifyFilterPredicate");
      if (log != null) log.add(new Optimizer.Rewrite("SimplifyFilterPredicate", s, w));
    }
    return simplify(w, context, fired, log);
  }

  private Expr visit(Expr node, OptimizerContext context, Set<String> fired, List<Optimizer.Rewrite> log) {
    if (node instanceof Expr.And || node instanceof Expr.Or) {
      return visitChain(node instanceof Expr.And, node, context, fired, log);
    }
    List<Expr> children = node.children();
    if (!children.isEmpty()) {
      List<Expr> next = new ArrayList<>(children.size());
      boolean changed = false;
      for (Expr c : children) {
        Expr n = visit(c, context, fired, log);
        changed |= n != c;
        next.add(n);
      }
      if (changed) node = node.withChildren(next);
    }
    for (int round = 0; round < MAX_NODE_ROUNDS; round++) {
      Expr before = node;
      for (ExprRule rule : nodeRules) {
        Expr n = rule.apply(node, context);
        if (n != node && !n.equals(node)) {
          fired.add(rule.name());
          if (log != null) log.add(new Optimizer.Rewrite(rule.getClass().getSimpleName(), node, n));
          node = n;
          if (node instanceof Expr.And || node instanceof Expr.Or) return node; // chains are the next pass's
        }
      }
      if (node == before) break;
    }
    return node;
  }

  private Expr visitChain(boolean and, Expr node, OptimizerContext context, Set<String> fired,
      List<Optimizer.Rewrite> log) {
    List<Expr> terms = new ArrayList<>();
    for (Expr t : flatten(and, node)) terms.add(visit(t, context, fired, log));
    for (ChainRule rule : chainRules) {
      List<Expr> next = rule.apply(and, terms);
      if (next != terms && !next.equals(terms)) {
        fired.add(rule.name());
        if (log != null) log.add(new Optimizer.Rewrite(rule.getClass().getSimpleName(), build(and, terms), build(and, next)));
        terms = next;
      }
      if (terms.size() == 1) return terms.get(0);
    }
    return build(and, terms);
  }

  /** The terms of a maximal AND (or OR) chain, left to right, without recursion. */
  static List<Expr> flatten(boolean and, Expr e) {
    return dev.quiver.planner.expr.Exprs.flatten(and, e);
  }

  /** A balanced chain of {@code terms}; TRUE (AND) or FALSE (OR) when empty. */
  static Expr build(boolean and, List<Expr> terms) {
    return dev.quiver.planner.expr.Exprs.chain(and, terms);
  }
}
