package dev.quiver.planner.optimizer;

import dev.quiver.planner.expr.Expr;
import dev.quiver.scan.predicate.ScanPredicate;

/**
 * How far one conjunct of a filter right above a scan can be pushed into it, as DataFusion's
 * {@code TableProviderFilterPushDown} classifies filters:
 * <ul>
 *   <li>{@link Kind#EXACT}: the scan evaluates the conjunct on every row it reads, with the engine's own
 *       compiled expression, and prunes with its exact {@link ScanPredicate} translation; the filter above
 *       no longer needs it. Today: every conjunct {@link ScanPredicates#translate} translates (bare columns
 *       compared with literals, IN lists, IS [NOT] NULL, prefix LIKE, and AND/OR/NOT of those).</li>
 *   <li>{@link Kind#INEXACT}: the scan prunes with a predicate the conjunct implies (every matching row
 *       satisfies it), but the conjunct stays in the filter above. Today: a case-sensitive
 *       {@code column LIKE 'abc…'} whose pattern is more than a prefix ({@code 'abc%x'}), which implies
 *       {@code starts_with(column, 'abc')}.</li>
 *   <li>{@link Kind#UNSUPPORTED}: the scan cannot use it; it stays in the filter above.</li>
 * </ul>
 * The conjunct is over the table's own column names.
 */
public final class FilterPushdown {
  private FilterPushdown() {}

  public enum Kind { EXACT, INEXACT, UNSUPPORTED }

  /** The classification; {@code predicate} (for pruning) is null exactly when UNSUPPORTED. */
  public record Decision(Kind kind, ScanPredicate predicate) {
    static final Decision UNSUPPORTED = new Decision(Kind.UNSUPPORTED, null);
  }

  public static Decision classify(Expr conjunct) {
    ScanPredicate exact = ScanPredicates.translate(conjunct);
    if (exact != null) return new Decision(Kind.EXACT, exact);
    ScanPredicate implied = implied(conjunct);
    return implied == null ? Decision.UNSUPPORTED : new Decision(Kind.INEXACT, implied);
  }

  /** A predicate every row satisfying {@code e} satisfies, or null. */
  private static ScanPredicate implied(Expr e) {
    if (e instanceof Expr.Like l && !l.caseInsensitive() && !l.negated() && l.input() instanceof Expr.ColumnRef c
        && l.pattern() instanceof Expr.Literal p && p.value() instanceof String s) {
      int end = 0;
      while (end < s.length() && "%_\\".indexOf(s.charAt(end)) < 0) end++;
      // the literal characters before the first wildcard or escape start every matching string
      if (end > 0) return new ScanPredicate.StartsWith(c.name(), s.substring(0, end));
    }
    return null;
  }
}
