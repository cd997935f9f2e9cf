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
  /** The n-th row's value behind {@link #bound} (null: NULL); read only when {@link #bound} is set. */
  private volatile Object worst;

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
    this.worst = worst;
    bound = p;
  }

  /**
   * The bound as a filter of rows, for the scan to drop the rows of a row group it reads that cannot enter the
   * top-N before decoding their other columns (the same argument as for row groups: each dropped row sorts strictly
   * after the n-th); null for a column type it does not read (then only row groups are skipped). Keeps every row
   * while there is no bound.
   */
  public dev.quiver.scan.predicate.RowPredicate rows() {
    boolean handled = type instanceof ArrowType.Int i && i.getIsSigned()
        || type instanceof ArrowType.Date d && d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY
        || type instanceof ArrowType.Timestamp || type instanceof ArrowType.Decimal;
    if (!handled) return null;
    List<String> columns = List.of(column);
    return new dev.quiver.scan.predicate.RowPredicate() {
      @Override public List<String> columns() {
        return columns;
      }

      @Override public int select(org.apache.arrow.vector.VectorSchemaRoot batch,
          org.apache.arrow.memory.BufferAllocator allocator, boolean[] keep) {
        int n = batch.getRowCount();
        ScanPredicate b = bound;
        Object w = worst;
        if (b == null) {
          java.util.Arrays.fill(keep, 0, n, true);
          return n;
        }
        org.apache.arrow.vector.FieldVector v = batch.getFieldVectors().get(0);
        int count = 0;
        if (w == null) { // NULLs first and n NULLs held: only NULLs may still enter
          for (int i = 0; i < n; i++) if (keep[i] = v.isNull(i)) count++;
          return count;
        }
        boolean nullsKept = nullsFirst;
        if (w instanceof Long l) {
          long wl = l;
          for (int i = 0; i < n; i++) {
            boolean k;
            if (v.isNull(i)) {
              k = nullsKept;
            } else {
              long x = longAt(v, i);
              k = ascending ? x <= wl : x >= wl;
            }
            if (keep[i] = k) count++;
          }
        } else {
          java.math.BigDecimal wd = (java.math.BigDecimal) w;
          org.apache.arrow.vector.DecimalVector d = (org.apache.arrow.vector.DecimalVector) v;
          for (int i = 0; i < n; i++) {
            boolean k;
            if (d.isNull(i)) {
              k = nullsKept;
            } else {
              int c = d.getObject(i).compareTo(wd);
              k = ascending ? c <= 0 : c >= 0;
            }
            if (keep[i] = k) count++;
          }
        }
        return count;
      }
    };
  }

  /** Row {@code i}'s value (non-NULL) in the physical form of {@link Values}: a signed integer, days, a timestamp. */
  private static long longAt(org.apache.arrow.vector.FieldVector v, int i) {
    if (v instanceof org.apache.arrow.vector.BigIntVector b) return b.get(i);
    if (v instanceof org.apache.arrow.vector.IntVector b) return b.get(i);
    if (v instanceof org.apache.arrow.vector.DateDayVector b) return b.get(i);
    if (v instanceof org.apache.arrow.vector.TimeStampVector b) return b.get(i);
    if (v instanceof org.apache.arrow.vector.BaseIntVector b) return b.getValueAsLong(i);
    throw new IllegalStateException("a top-N bound on a " + v.getField().getType() + " column");
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
