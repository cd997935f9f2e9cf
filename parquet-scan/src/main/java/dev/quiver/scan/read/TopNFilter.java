package dev.quiver.scan.read;

import dev.quiver.common.Values;
import dev.quiver.scan.predicate.ScanPredicate;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The bound of an {@code ORDER BY column … LIMIT n} over a scan, shared between the top-N (which tightens it) and
 * the scan (which reads it before each row group). Once the top-N holds n rows, its n-th row's value {@code w} of the
 * first sort key bounds every row still able to enter: ascending, {@code column <= w}; descending, {@code column >=
 * w}; with NULLs sorting first, {@code OR column IS NULL}. A row group whose footer statistics prove that no row
 * satisfies the bound holds only rows that sort strictly after the n-th (a row equal to {@code w} is kept: with a
 * second sort key it may still win), so skipping it cannot change the answer — whatever sits between the scan and
 * the top-N (filters, projections passing the column on, joins keeping the scan's rows as they are) only drops,
 * repeats or passes rows with their values unchanged. The scan also reads its row groups best first (ascending: by
 * their minimum; descending: by their maximum), and the first one alone, so that the bound is set after one row
 * group and tightens quickly.
 *
 * <p>Only column types whose footer statistics order values as SQL does are given one: signed integers, dates,
 * timestamps and decimals (not doubles, whose NaN may be missing from the bounds, nor strings, whose bounds may be
 * truncated).
 */
public final class TopNFilter {
  private final String column;
  private final ArrowType type;
  private final boolean ascending;
  private final boolean nullsFirst;
  /** The bound now (null: none yet); replaced, never mutated. */
  private volatile ScanPredicate bound;

  /**
   * A filter for the scan column {@code column} (of table type {@code type}) that the top-N sorts by first,
   * {@code ascending} or not, NULLs first or last.
   */
  public TopNFilter(String column, ArrowType type, boolean ascending, boolean nullsFirst) {
    this.column = column;
    this.type = type;
    this.ascending = ascending;
    this.nullsFirst = nullsFirst;
  }

  public String column() {
    return column;
  }

  public boolean ascending() {
    return ascending;
  }

  public boolean nullsFirst() {
    return nullsFirst;
  }

  /**
   * Tightens the bound: {@code worst} (physical form of {@link Values}, null for NULL) is the first sort key of the
   * top-N's n-th row now. Called by the top-N only; its values only get better, so the bound only narrows.
   */
  public void tighten(Object worst) {
    ScanPredicate p;
    if (worst == null) {
      // NULLs last: a full heap ending in NULL bounds nothing; NULLs first: only NULLs can still enter
      if (!nullsFirst) return;
      p = new ScanPredicate.IsNull(column, false);
    } else {
      ScanPredicate cmp = new ScanPredicate.Compare(column, ascending ? ScanPredicate.Op.LE : ScanPredicate.Op.GE,
          worst, type);
      p = nullsFirst ? new ScanPredicate.Or(List.of(cmp, new ScanPredicate.IsNull(column, false))) : cmp;
    }
    bound = p;
  }

  /** The bound now, or null when the top-N is not full yet. */
  public ScanPredicate bound() {
    return bound;
  }

  @Override
  public String toString() {
    ScanPredicate b = bound;
    return b == null ? "none" : b.toString();
  }
}
