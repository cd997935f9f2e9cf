package dev.quiver.scan.read;

import dev.quiver.scan.predicate.RowPredicate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which a scan evaluates the conjuncts of its row predicate, adapted while it runs (DuckDB's adaptive
 * filters): each conjunct's measured cost per row it was asked about (decoding its columns and evaluating it) and the
 * share of those rows it dropped. Every {@link #EVERY} batches the conjuncts are put in order of cost per row dropped
 * (cost / (1 − pass rate)), the rule that minimises the expected cost of a chain of independent filters: cheap and
 * selective first. Only when no conjunct can raise an error ({@link RowPredicate#canFail}); else the given order
 * stays. Shared by the scan's tasks (thread-safe); an order is only ever a speed choice, never an answer.
 */
final class ConjunctOrder {
  /** Batches between two reorderings. */
  static final int EVERY = 8;

  private final boolean adaptive;
  private final long[] nanos;
  private final long[] rowsIn;
  private final long[] rowsOut;
  private int batches;
  private volatile int[] order;

  ConjunctOrder(List<RowPredicate> conjuncts) {
    int n = conjuncts.size();
    boolean canFail = false;
    for (RowPredicate c : conjuncts) canFail |= c.canFail();
    adaptive = n > 1 && !canFail;
    nanos = new long[n];
    rowsIn = new long[n];
    rowsOut = new long[n];
    int[] o = new int[n];
    for (int i = 0; i < n; i++) o[i] = i;
    order = o;
  }

  /** The conjuncts' indexes in the order to evaluate them now. */
  int[] order() {
    return order;
  }

  /** Conjunct {@code c} took {@code time} ns over {@code in} rows and kept {@code out}. */
  void record(int c, long time, int in, int out) {
    if (!adaptive) return;
    synchronized (this) {
      nanos[c] += time;
      rowsIn[c] += in;
      rowsOut[c] += out;
      if (++batches % EVERY == 0) reorder();
    }
  }

  private void reorder() {
    List<Integer> next = new ArrayList<>();
    for (int c : order) next.add(c);
    // never measured (the rows were all dropped before it): after the measured ones, in their order (stable sort)
    next.sort(Comparator.comparingDouble(this::rank));
    int[] o = new int[next.size()];
    for (int i = 0; i < o.length; i++) o[i] = next.get(i);
    order = o;
  }

  /** Nanoseconds per row dropped: the cost of a row asked over the share of rows dropped. */
  private double rank(int c) {
    if (rowsIn[c] == 0) return Double.MAX_VALUE;
    double cost = (double) nanos[c] / rowsIn[c];
    double dropped = 1 - (double) rowsOut[c] / rowsIn[c];
    return cost / Math.max(dropped, 1e-3);
  }
}
