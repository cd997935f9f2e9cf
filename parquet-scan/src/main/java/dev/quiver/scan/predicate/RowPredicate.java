package dev.quiver.scan.predicate;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A filter the scan applies to every row it reads, defined by whoever asks for the scan (the planner
 * implements it with its own compiled expressions): the scan guarantees that no row for which it is not
 * TRUE leaves the scan. SQL-free: the scan only knows which table columns it reads and how to ask which
 * rows of a batch to keep.
 *
 * <p>Unlike a {@link ScanPredicate}, which only lets the scan skip row groups and pages where no row can
 * match, this one is exact. The scan reads its columns whether or not they are output, including
 * partition columns and columns absent from a file (all NULL there).
 *
 * <p>Implementations must be safe to call from several threads at once: the scan reads row groups in
 * parallel and calls {@link #select} from each.
 */
public interface RowPredicate {
  /** The table columns the predicate reads, distinct, in the order of the batch {@link #select} gets. */
  List<String> columns();

  /**
   * Marks in {@code keep[0..n)} the rows of {@code batch} (its vectors are {@link #columns()}, in that order,
   * {@code n} its row count) for which the predicate is TRUE; FALSE and NULL drop the row. Returns how many
   * are kept. {@code allocator} is for intermediate results, which must be released before returning.
   */
  int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep);

  /**
   * Whether the verdict on a row is a function of the values of its columns alone (nothing volatile, nothing from
   * other rows), so that the scan may ask once per distinct value — once per entry of a column chunk's dictionary —
   * and judge every row holding that value the same. An error asking so is not the query's error: the scan then
   * asks row by row, as it would have.
   */
  default boolean perValue() {
    return false;
  }

  /**
   * The predicate as conjuncts, each a predicate of its own columns (a subset of {@link #columns()}): a row is kept
   * when every one keeps it, so the scan may ask some of them first (those it can answer per dictionary entry) and
   * the others only about the rows those kept. This predicate alone when it is not split.
   */
  default List<RowPredicate> conjuncts() {
    return List.of(this);
  }

  /** Both: the columns of {@code a}, then those of {@code b} not among them; a row kept when both keep it. */
  static RowPredicate and(RowPredicate a, RowPredicate b) {
    List<String> columns = new java.util.ArrayList<>(a.columns());
    for (String c : b.columns()) if (!columns.contains(c)) columns.add(c);
    List<String> all = List.copyOf(columns);
    List<RowPredicate> parts = new java.util.ArrayList<>(a.conjuncts());
    parts.addAll(b.conjuncts());
    List<RowPredicate> conjuncts = List.copyOf(parts);
    return new RowPredicate() {
      @Override public List<String> columns() {
        return all;
      }

      @Override public List<RowPredicate> conjuncts() {
        return conjuncts;
      }

      @Override public int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep) {
        int n = batch.getRowCount();
        int count = a.select(part(batch, a.columns(), all), allocator, keep);
        if (count == 0) return 0;
        boolean[] second = new boolean[n];
        b.select(part(batch, b.columns(), all), allocator, second);
        count = 0;
        for (int i = 0; i < n; i++) if (keep[i] &= second[i]) count++;
        return count;
      }
    };
  }

  /** The vectors of {@code batch} (columns {@code all}) that are {@code columns}, in that order. */
  private static VectorSchemaRoot part(VectorSchemaRoot batch, List<String> columns, List<String> all) {
    List<org.apache.arrow.vector.FieldVector> vectors = new java.util.ArrayList<>(columns.size());
    for (String c : columns) vectors.add(batch.getFieldVectors().get(all.indexOf(c)));
    return new VectorSchemaRoot(vectors);
  }
}
