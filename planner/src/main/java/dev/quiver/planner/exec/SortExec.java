package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.PhysicalExpr;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Sorts its input on several keys (ASC/DESC, NULLS FIRST/LAST; NaN above every number). The input
 * batches are retained (in the query's allocator) and a row index is sorted. With a fetch (ORDER BY …
 * LIMIT n) it keeps only the best n rows in a bounded heap, releasing batches none of whose rows can be
 * in the result any more. The sort is stable: ties keep input order. Cancellation is checked every
 * {@value #CHECK_EVERY} comparisons (an exception thrown out of the sort leaves the batches to close()).
 */
public final class SortExec extends Operator {
  private final Operator input;
  private final List<Key> keys;
  private final long fetch;
  private final String description;
  private final BufferAllocator allocator;
  private final int batchRows;
  private final List<VectorSchemaRoot> batches = new ArrayList<>();
  private final List<List<ColumnValues>> keyValues = new ArrayList<>();
  private final MemoryReservation memory;
  private long[] order;
  private int emitted;
  /** The scan's top-N filter this sort tightens (null: none), see {@link #topNFilter}. */
  private dev.quiver.scan.read.TopNFilter topNFilter;

  /** One sort key: its compiled expression, the family its values compare by, and its direction. */
  record Key(PhysicalExpr expr, Kernels.Family family, boolean ascending, boolean nullsFirst) {}

  /**
   * Sorts on {@code keys}, the first deciding; with {@code fetch} >= 0 only the first {@code fetch} rows are kept.
   * {@code description} is the EXPLAIN text.
   */
  SortExec(Operator input, List<Key> keys, long fetch, String description, BufferAllocator allocator, int batchRows) {
    this.input = input;
    this.keys = List.copyOf(keys);
    this.fetch = fetch;
    this.description = description;
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.memory = new MemoryReservation(allocator, "the sort");
  }

  @Override public Schema schema() { return input.schema(); }
  @Override public List<Operator> children() { return List.of(input); }

  @Override
  public String describe() {
    return description;
  }

  /** Comparisons between cancellation checks: sorting millions of rows takes seconds. */
  private static final int CHECK_EVERY = 1 << 14;
  private int compares;

  private int compare(long a, long b) {
    if (++compares == CHECK_EVERY) {
      compares = 0;
      cancellation.check();
    }
    List<ColumnValues> ka = keyValues.get(Rows.batch(a));
    List<ColumnValues> kb = keyValues.get(Rows.batch(b));
    int ra = Rows.row(a);
    int rb = Rows.row(b);
    for (int k = 0; k < keys.size(); k++) {
      Key key = keys.get(k);
      ColumnValues x = ka.get(k);
      ColumnValues y = kb.get(k);
      boolean xn = x.isNull(ra);
      boolean yn = y.isNull(rb);
      int c;
      if (xn || yn) {
        if (xn && yn) continue;
        c = xn == key.nullsFirst() ? -1 : 1;
        return c;
      }
      c = Kernels.compareObjects(key.family(), x.getObject(ra), y.getObject(rb));
      if (c != 0) return key.ascending() ? c : -c;
    }
    return Long.compare(a, b); // stable
  }

  /**
   * With a fetch: after each batch that leaves the heap full, {@code filter} gets the first sort key of the heap's
   * worst row, so that the scan below skips row groups none of whose rows could still enter (its legality argument
   * is {@link dev.quiver.scan.read.TopNFilter}'s). The filter's column must be this sort's first key's, traced to
   * the scan through operators that keep its values.
   */
  void topNFilter(dev.quiver.scan.read.TopNFilter filter) {
    this.topNFilter = filter;
  }

  /** The heap's worst row whose first key is cached below (-1: none). */
  private long cachedWorst = -1;
  private boolean worstNull;
  private long worstLong;
  private double worstDouble;

  /**
   * Whether row {@code i} of a batch (first key {@code x}, its LONG values {@code xl} or null) sorts strictly after
   * the first key of row {@code worst}, read without boxing for LONG and DOUBLE keys (false when unsure: the heap's
   * comparison then decides). Such a row cannot enter a full heap.
   */
  private boolean worseThan(ColumnValues x, long[] xl, int i, long worst) {
    Key k = keys.get(0);
    if (worst != cachedWorst) {
      ColumnValues w = keyValues.get(Rows.batch(worst)).get(0);
      int wr = Rows.row(worst);
      worstNull = w.isNull(wr);
      if (!worstNull && k.family() == Kernels.Family.LONG) worstLong = w.getLong(wr);
      if (!worstNull && k.family() == Kernels.Family.DOUBLE) worstDouble = w.getDouble(wr);
      cachedWorst = worst;
    }
    boolean xn = x.isNull(i);
    if (xn || worstNull) return xn && !worstNull && !k.nullsFirst() || !xn && worstNull && k.nullsFirst();
    if (xl != null) return k.ascending() ? xl[i] > worstLong : xl[i] < worstLong;
    if (k.family() == Kernels.Family.DOUBLE) {
      double a = x.getDouble(i);
      return k.ascending() ? a > worstDouble : a < worstDouble; // false for NaN either side: the heap decides
    }
    return false;
  }

  private void consume() {
    boolean topN = fetch >= 0 && fetch < Integer.MAX_VALUE / 2;
    Comparator<Long> cmp = (a, b) -> compare(a, b);
    PriorityQueue<Long> heap = topN ? new PriorityQueue<>(cmp.reversed()) : null;
    int[] live = topN ? new int[16] : null; // rows of each batch still in the heap
    List<Long> all = topN ? null : new ArrayList<>();
    VectorSchemaRoot batch;
    while ((batch = input.next()) != null) {
      int b = batches.size();
      batches.add(batch);
      List<ColumnValues> kv = new ArrayList<>();
      keyValues.add(kv);
      for (Key k : keys) kv.add(k.expr().eval(batch, allocator));
      int n = batch.getRowCount();
      memory.add(24L * n);
      if (!topN) {
        for (int i = 0; i < n; i++) all.add(Rows.ref(b, i));
        continue;
      }
      if (live.length <= b) live = java.util.Arrays.copyOf(live, live.length * 2);
      Key first = keys.get(0);
      ColumnValues x = kv.get(0);
      long[] xl = first.family() == Kernels.Family.LONG && x.vector() != null ? BatchValues.longs(x, n) : null;
      boolean typed = xl != null || first.family() == Kernels.Family.DOUBLE;
      for (int i = 0; i < n; i++) {
        long r = Rows.ref(b, i);
        if (typed && fetch > 0 && heap.size() >= fetch && worseThan(x, xl, i, heap.peek())) continue;
        if (heap.size() < fetch) {
          heap.add(r);
          live[b]++;
        } else if (fetch > 0 && compare(r, heap.peek()) < 0) {
          long out = heap.poll();
          live[Rows.batch(out)]--;
          heap.add(r);
          live[b]++;
        }
      }
      if (topNFilter != null && fetch > 0 && heap.size() >= fetch) {
        long worst = heap.peek();
        topNFilter.tighten(keyValues.get(Rows.batch(worst)).get(0).getObject(Rows.row(worst)));
      }
      for (int old = 0; old <= b; old++) {
        if (live[old] == 0 && batches.get(old) != null) release(old);
      }
    }
    List<Long> rows = topN ? new ArrayList<>(heap) : all;
    rows.sort(cmp);
    order = new long[rows.size()];
    for (int i = 0; i < order.length; i++) order[i] = rows.get(i);
  }

  private void release(int b) {
    batches.get(b).close();
    batches.set(b, null);
    keyValues.get(b).forEach(ColumnValues::close);
    keyValues.set(b, null);
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (order == null) consume();
    if (emitted >= order.length) return null;
    int count = Math.min(batchRows, order.length - emitted);
    var fields = schema().getFields();
    VectorSchemaRoot out = Rows.root(fields, Rows.copy(batches, 0, fields, order, emitted, count, allocator), count);
    emitted += count;
    return out;
  }

  @Override
  public void close() {
    super.close();
    for (int b = 0; b < batches.size(); b++) if (batches.get(b) != null) release(b);
    memory.close();
  }
}
