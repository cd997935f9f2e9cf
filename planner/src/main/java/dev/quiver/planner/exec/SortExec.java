package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.PhysicalExpr;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
 *
 * <p><b>External sort.</b> Without a fetch, when the query's memory passes {@link MemoryReservation#spillAt} of its limit
 * and the rows this sort holds take an eighth of it, the rows held are sorted and written to disk as a sorted run
 * ({@link SortSpill}, under {@code --spill-dir}) and released; at the end the runs are merged, one batch of each run
 * in memory at a time. Runs are consecutive stretches of the input and the merge takes ties from the earlier run, so
 * the order is the in-memory sort's, ties included. EXPLAIN ANALYZE shows {@code spill_runs} and
 * {@code spilled_bytes}.
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
  /** The scan's top-N filter this sort tightens (null: none), see {@link #topNFilter}. */
  private dev.quiver.scan.read.TopNFilter topNFilter;

  /** Rows from which an in-memory sort is split across threads (fewer sort in a few milliseconds). */
  static final int PARALLEL_ROWS = 1 << 18;
  private final java.util.concurrent.ExecutorService executor;
  private final int threads;
  private final int parallelRows;

  /** One sort key: its compiled expression, the family its values compare by, and its direction. */
  record Key(PhysicalExpr expr, Kernels.Family family, boolean ascending, boolean nullsFirst) {}

  /**
   * Sorts on {@code keys}, the first deciding; with {@code fetch} >= 0 only the first {@code fetch} rows are kept.
   * {@code description} is the EXPLAIN text.
   */
  SortExec(Operator input, List<Key> keys, long fetch, String description, BufferAllocator allocator, int batchRows) {
    this(input, keys, fetch, description, allocator, batchRows, null, 1, PARALLEL_ROWS);
  }

  /**
   * As above; a sort of at least {@code parallelRows} rows in memory is split into {@code threads} stretches of the
   * input sorted at once, all but the first on {@code executor} (see {@link FullSort#sort}).
   */
  SortExec(Operator input, List<Key> keys, long fetch, String description, BufferAllocator allocator, int batchRows,
      java.util.concurrent.ExecutorService executor, int threads, int parallelRows) {
    this.executor = threads > 1 ? executor : null;
    this.threads = this.executor == null ? 1 : threads;
    this.parallelRows = parallelRows;
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
    for (int k = 0; k < keys.size(); k++) {
      int c = compareKey(k, a, b);
      if (c != 0) return c;
    }
    return Long.compare(a, b); // stable
  }

  /** Rows {@code a} and {@code b} compared by key {@code k} alone (its direction and NULL placement). */
  private int compareKey(int k, long a, long b) {
    if ((++compares & (CHECK_EVERY - 1)) == 0) cancellation.check(); // (a racy count when stretches sort at once)
    return compareValues(keys.get(k), keyValues.get(Rows.batch(a)).get(k), Rows.row(a),
        keyValues.get(Rows.batch(b)).get(k), Rows.row(b));
  }

  /** Row {@code ra} of {@code x} and row {@code rb} of {@code y} compared as {@code key} orders them. */
  private static int compareValues(Key key, ColumnValues x, int ra, ColumnValues y, int rb) {
    boolean xn = x.isNull(ra);
    boolean yn = y.isNull(rb);
    if (xn || yn) {
      if (xn && yn) return 0;
      return xn == key.nullsFirst() ? -1 : 1;
    }
    int c = switch (key.family()) { // integer-like and floating-point values unboxed
      case LONG -> Long.compare(x.getLong(ra), y.getLong(rb));
      case DOUBLE -> Kernels.compareDouble(x.getDouble(ra), y.getDouble(rb));
      default -> Kernels.compareObjects(key.family(), x.getObject(ra), y.getObject(rb));
    };
    return key.ascending() ? c : -c;
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
    FullSort all = topN ? null : new FullSort();
    VectorSchemaRoot batch;
    while ((batch = input.next()) != null) {
      int b = batches.size();
      batches.add(batch);
      List<ColumnValues> kv = new ArrayList<>();
      keyValues.add(kv);
      for (Key k : keys) kv.add(k.expr().eval(batch, allocator));
      int n = batch.getRowCount();
      if (!topN) {
        try {
          memory.add(all.bytesPerRow() * n);
        } catch (dev.quiver.common.QuiverException e) {
          if (e.code() != dev.quiver.common.ErrorCode.RESOURCE_EXHAUSTED || b == 0) throw e;
          // the sort's reservation refused: the rows held before this batch go to disk as a run, then it is added
          batches.remove(b);
          keyValues.remove(b);
          try {
            spillRun(all.sort());
          } finally {
            batches.add(batch); // owned again (index 0 once the others are released), so close() releases it
            keyValues.add(kv);
          }
          all = new FullSort();
          b = 0;
          memory.add(all.bytesPerRow() * n);
        }
        all.add(b, kv, n);
        heldBytes += batch.getFieldVectors().stream().mapToLong(v -> v.getBufferSize()).sum();
        if (overMemory()) {
          spillRun(all.sort());
          all = new FullSort();
        }
        continue;
      }
      memory.add(24L * n);
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
    if (!topN) {
      order = all.sort();
      if (spill != null) {
        if (order.length > 0) spillRun(order);
        order = new long[0];
        merge = new Merge();
      }
      return;
    }
    List<Long> rows = new ArrayList<>(heap);
    rows.sort(cmp);
    order = new long[rows.size()];
    for (int i = 0; i < order.length; i++) order[i] = rows.get(i);
  }

  /**
   * The rows of a sort without a fetch: a least-significant-key-first sequence of stable sorts, one a key, from the
   * last key to the first, so that each key orders the rows and the keys after it break its ties (ties of all keys
   * keep input order, as {@link #compare}'s do). An integer-like (LONG family), floating-point, string or binary key
   * is kept as a long a row that orders as the key does (doubles: -0.0 as 0.0, every NaN above every number, as
   * {@link Kernels#compareDouble}; strings: see {@link #addBytes}; descending: the bits inverted) and sorted by a
   * stable radix sort ({@link LongSort}), then its NULLs moved first or last by a stable partition; any other key
   * (decimals, booleans) by a stable merge sort with {@link #compareKey}. Before, every sort compared boxed values:
   * 10 M rows by a double took 16 s.
   */
  private final class FullSort {
    private final int nk = keys.size();
    private final boolean[] typed = new boolean[nk];
    /** Per row, in input order: its reference, and each typed key as an ordered long and whether it is NULL. */
    private long[] refs = new long[1024];
    private final long[][] sortKeys = new long[nk][];
    private final boolean[][] nulls = new boolean[nk][];
    /** Per string or binary key: the rows whose value has 8 bytes or more (their long holds only the first 7). */
    private final boolean[][] longer = new boolean[nk][];
    private int size;

    FullSort() {
      for (int k = 0; k < nk; k++) {
        Kernels.Family f = keys.get(k).family();
        typed[k] = f == Kernels.Family.LONG || f == Kernels.Family.DOUBLE || f == Kernels.Family.BYTES;
        if (typed[k]) sortKeys[k] = new long[1024];
      }
    }

    /** What a row costs: its reference, its place in the order, and the radix sort's copies of both. */
    long bytesPerRow() {
      int t = 0;
      for (boolean b : typed) if (b) t++;
      return 32 + 9L * t;
    }

    void add(int b, List<ColumnValues> kv, int n) {
      if (refs.length < size + n) {
        int cap = Math.max(size + n, refs.length * 2);
        refs = java.util.Arrays.copyOf(refs, cap);
        for (int k = 0; k < nk; k++) {
          if (sortKeys[k] != null) sortKeys[k] = java.util.Arrays.copyOf(sortKeys[k], cap);
          if (nulls[k] != null) nulls[k] = java.util.Arrays.copyOf(nulls[k], cap);
          if (longer[k] != null) longer[k] = java.util.Arrays.copyOf(longer[k], cap);
        }
      }
      for (int i = 0; i < n; i++) refs[size + i] = Rows.ref(b, i);
      for (int k = 0; k < nk; k++) {
        if (!typed[k]) continue;
        Key key = keys.get(k);
        ColumnValues x = kv.get(k);
        boolean anyNull = BatchValues.anyNull(x);
        if (key.family() == Kernels.Family.BYTES) {
          addBytes(k, key, x, n, anyNull);
          continue;
        }
        long[] longs = key.family() == Kernels.Family.LONG ? BatchValues.longs(x, n) : null;
        double[] doubles = longs == null ? BatchValues.doubles(x, n) : null;
        long flip = key.ascending() ? 0 : -1L; // descending: ~v reverses the signed order
        long[] out = sortKeys[k];
        for (int i = 0; i < n; i++) {
          out[size + i] = (longs != null ? longs[i] : RangeJoinBounds.sortable(doubles[i])) ^ flip;
        }
        if (anyNull) {
          if (nulls[k] == null) nulls[k] = new boolean[refs.length];
          for (int i = 0; i < n; i++) nulls[k][size + i] = x.isNull(i);
        }
      }
      size += n;
    }

    /**
     * A string or binary key: its first 7 bytes (unsigned, big-endian, zero-padded) and then its length capped at 8
     * in one long, the sign bit flipped so that signed order is the bytes' unsigned order. Two values of up to 7
     * bytes compare as their longs do; values of 8 bytes or more that share their first 7 are marked
     * {@link #longer} and ordered among themselves by the comparator after the radix sort.
     */
    private void addBytes(int k, Key key, ColumnValues x, int n, boolean anyNull) {
      if (longer[k] == null) longer[k] = new boolean[refs.length];
      if (anyNull && nulls[k] == null) nulls[k] = new boolean[refs.length];
      long flip = key.ascending() ? 0 : -1L;
      long[] out = sortKeys[k];
      boolean[] isLonger = longer[k];
      org.apache.arrow.vector.FieldVector vector = x.vector();
      org.apache.arrow.vector.BaseVariableWidthVector w =
          vector instanceof org.apache.arrow.vector.BaseVariableWidthVector b ? b : null;
      for (int i = 0; i < n; i++) {
        int at = size + i;
        if (anyNull && x.isNull(i)) {
          nulls[k][at] = true;
          continue;
        }
        long prefix = 0;
        int len;
        if (w != null) {
          long start = w.getStartOffset(i);
          len = w.getEndOffset(i) - (int) start;
          org.apache.arrow.memory.ArrowBuf data = w.getDataBuffer();
          for (int j = 0; j < 7; j++) prefix = prefix << 8 | (j < len ? data.getByte(start + j) & 0xFF : 0);
        } else {
          Object v = x.getObject(i);
          byte[] bytes = v instanceof String str ? str.getBytes(java.nio.charset.StandardCharsets.UTF_8) : (byte[]) v;
          len = bytes.length;
          for (int j = 0; j < 7; j++) prefix = prefix << 8 | (j < len ? bytes[j] & 0xFF : 0);
        }
        isLonger[at] = len >= 8;
        out[at] = ((prefix << 8 | Math.min(len, 8)) ^ Long.MIN_VALUE) ^ flip;
      }
    }

    /**
     * The rows' references in sorted order. From {@code parallelRows} rows with several threads, the input is cut
     * into that many consecutive stretches, each sorted alone ({@link ParallelTasks}), and the sorted stretches are
     * merged, ties to the earlier stretch — so the order is the one sort's, ties included.
     */
    /** See {@link #leading()}: set when the sort begins. */
    private int leading;

    long[] sort() {
      leading = leading();
      int parts = size >= parallelRows ? Math.min(threads, Math.max(1, size / (parallelRows / 2))) : 1;
      if (parts > 1) {
        try { // the stretches' leading longs, in the runs and merged: in memory, or the sort stays on one thread
          memory.add(16L * leading * size);
        } catch (dev.quiver.common.QuiverException e) {
          if (e.code() != dev.quiver.common.ErrorCode.RESOURCE_EXHAUSTED) throw e;
          parts = 1;
        }
      }
      long[] perm;
      if (parts <= 1) {
        perm = sortRows(0, size, false)[0];
      } else {
        List<java.util.concurrent.Callable<long[][]>> stretches = new ArrayList<>();
        for (int t = 0; t < parts; t++) {
          int lo = (int) ((long) size * t / parts);
          int hi = (int) ((long) size * (t + 1) / parts);
          stretches.add(() -> sortRows(lo, hi, true));
        }
        List<long[][]> sorted = ParallelTasks.run(executor, stretches);
        long[][] merged = sorted.get(0);
        for (int t = 1; t < parts; t++) merged = merge(merged, sorted.get(t));
        perm = merged[0];
      }
      long[] out = new long[size];
      for (int p = 0; p < size; p++) out[p] = refs[(int) perm[p]];
      return out;
    }

    /**
     * Row numbers {@code [lo, hi)} sorted, key by key, the last first (stable); with {@code withLead}, also the
     * {@link #lead} of the sorted rows.
     */
    private long[][] sortRows(int lo, int hi, boolean withLead) {
      int count = hi - lo;
      long[] perm = new long[count]; // row numbers (input order), ordered key by key
      for (int i = 0; i < count; i++) perm[i] = lo + i;
      long[] scratch = new long[count];
      for (int k = nk - 1; k >= 0; k--) {
        if (typed[k]) {
          long[] v = sortKeys[k];
          for (int p = 0; p < count; p++) {
            if ((p & 4095) == 0) cancellation.check(); // every 4,096 rows: a key of 10 M rows takes a tenth of a second
            scratch[p] = v[(int) perm[p]];
          }
          LongSort.byKey(scratch, perm);
          if (longer[k] != null) orderLonger(k, scratch, perm);
          if (nulls[k] != null) LongSort.nullsApart(perm, nulls[k], keys.get(k).nullsFirst(), scratch, count);
        } else {
          sortByKey(k, perm, 0, count);
        }
        cancellation.check();
      }
      if (!withLead) return new long[][] {perm};
      // the radix sort of the first key left its longs in sorted order in scratch, unless NULLs were moved after
      long[][] out = new long[1 + leading][];
      out[0] = perm;
      for (int k = 0; k < leading; k++) out[1 + k] = k == 0 && nulls[0] == null ? scratch : lead(k, perm);
      return out;
    }

    /** The keys before the first that is not typed: their longs lead a merge. */
    private int leading() {
      int k = 0;
      while (k < nk && typed[k]) k++;
      return k;
    }

    /**
     * Key {@code k}'s long for each of the sorted {@code rows}, in their order, so that a merge reads it in sequence
     * rather than at random (read here at random, on the stretch's thread): NULL as the lowest or highest long by
     * where NULLs go (a non-NULL value equal to that long ties with it, and the full comparison decides).
     */
    private long[] lead(int k, long[] rows) {
      long[] v = sortKeys[k];
      boolean[] isNull = nulls[k];
      long nullAs = keys.get(k).nullsFirst() ? Long.MIN_VALUE : Long.MAX_VALUE;
      long[] lead = new long[rows.length];
      for (int p = 0; p < rows.length; p++) {
        int r = (int) rows[p];
        lead[p] = isNull != null && isNull[r] ? nullAs : v[r];
      }
      return lead;
    }

    /**
     * Two sorted runs ({row numbers, then each leading key's longs}) merged, ties to {@code a} (whose rows come first
     * in the input): by the leading longs in sequence, key by key; where a key's longs are equal but may hide a
     * difference (a NULL, a string longer than its long), or all are equal with keys left, by every key.
     */
    private long[][] merge(long[][] a, long[][] b) {
      long[] ra = a[0];
      long[] rb = b[0];
      int n = ra.length + rb.length;
      long[][] out = new long[1 + leading][n];
      boolean[] ambiguous = new boolean[leading]; // equal longs may hide a NULL or a longer string
      for (int k = 0; k < leading; k++) ambiguous[k] = nulls[k] != null || longer[k] != null;
      boolean decide = leading == nk; // all equal and none ambiguous: a tie
      int i = 0;
      int j = 0;
      int o = 0;
      while (i < ra.length && j < rb.length) {
        if ((o & 4095) == 0) cancellation.check();
        int c = 0;
        boolean full = !decide;
        for (int k = 0; k < leading; k++) {
          c = Long.compare(a[k + 1][i], b[k + 1][j]);
          if (c != 0) {
            full = false;
            break;
          }
          if (ambiguous[k]) {
            full = true;
            break;
          }
        }
        if (full) c = compareRows((int) ra[i], (int) rb[j]);
        if (c <= 0) {
          for (int k = 0; k <= leading; k++) out[k][o] = a[k][i];
          i++;
        } else {
          for (int k = 0; k <= leading; k++) out[k][o] = b[k][j];
          j++;
        }
        o++;
      }
      for (; i < ra.length; i++, o++) for (int k = 0; k <= leading; k++) out[k][o] = a[k][i];
      for (; j < rb.length; j++, o++) for (int k = 0; k <= leading; k++) out[k][o] = b[k][j];
      return out;
    }

    /** Rows {@code x} and {@code y} (row numbers) compared by every key, typed keys by their longs. */
    private int compareRows(int x, int y) {
      for (int k = 0; k < nk; k++) {
        if (!typed[k]) {
          int c = compareKey(k, refs[x], refs[y]);
          if (c != 0) return c;
          continue;
        }
        boolean[] isNull = nulls[k];
        if (isNull != null && (isNull[x] || isNull[y])) {
          if (isNull[x] && isNull[y]) continue;
          return isNull[x] == keys.get(k).nullsFirst() ? -1 : 1;
        }
        long a = sortKeys[k][x];
        long b = sortKeys[k][y];
        if (a != b) return Long.compare(a, b);
        boolean[] isLonger = longer[k];
        if (isLonger != null && isLonger[x] && isLonger[y]) {
          int c = compareKey(k, refs[x], refs[y]);
          if (c != 0) return c;
        }
      }
      return 0;
    }

    /**
     * After the radix sort on string key {@code k} ({@code sorted}: the longs, in the order of {@code perm}): each run
     * of equal longs holding a value of 8 bytes or more is ordered by the whole key (a stable sort, so rows whose
     * values are equal keep their order).
     */
    private void orderLonger(int k, long[] sorted, long[] perm) {
      boolean[] isLonger = longer[k];
      int count = perm.length;
      for (int lo = 0; lo < count; ) {
        int hi = lo + 1;
        boolean any = isLonger[(int) perm[lo]];
        while (hi < count && sorted[hi] == sorted[lo]) any |= isLonger[(int) perm[hi++]];
        if (any && hi - lo > 1) sortByKey(k, perm, lo, hi);
        lo = hi;
      }
    }

    /** Rows {@code perm[lo, hi)} ordered by key {@code k} alone with the comparator: a stable merge sort. */
    private void sortByKey(int k, long[] perm, int lo, int hi) {
      Long[] boxed = new Long[hi - lo];
      for (int p = lo; p < hi; p++) boxed[p - lo] = perm[p];
      java.util.Arrays.sort(boxed, (x, y) -> compareKey(k, refs[(int) (long) x], refs[(int) (long) y]));
      for (int p = lo; p < hi; p++) perm[p] = boxed[p - lo];
    }
  }

  private void release(int b) {
    batches.get(b).close();
    batches.set(b, null);
    keyValues.get(b).forEach(ColumnValues::close);
    keyValues.set(b, null);
  }

  /**
   * Rows a batch of a run on disk: small, because writing copies a batch while the rows are still held, and the merge
   * holds one batch of every run.
   */
  static final int RUN_BATCH_ROWS = 4096;
  /** The Arrow bytes of the input batches held. */
  private long heldBytes;
  private SortSpill spill;
  private Merge merge;

  /**
   * The query uses more than {@link MemoryReservation#spillAt} of its memory limit (the scan below keeps decoding
   * into the same limit) and this sort holds at least an eighth of it (spilling a few rows would free nothing worth
   * having).
   */
  private boolean overMemory() {
    long limit = allocator.getLimit();
    return limit > 0 && limit < Long.MAX_VALUE && allocator.getAllocatedMemory() > MemoryReservation.spillAt(limit)
        && heldBytes + memory.used() >= limit / 8;
  }

  /** Writes the rows held, in {@code sorted} order, as a run on disk, and releases them. */
  private void spillRun(long[] sorted) {
    if (spill == null) spill = new SortSpill(schema(), allocator);
    spill.writeRun(batches, sorted, Math.min(batchRows, RUN_BATCH_ROWS), cancellation::check);
    for (int b = 0; b < batches.size(); b++) if (batches.get(b) != null) release(b);
    batches.clear();
    keyValues.clear();
    heldBytes = 0;
    memory.reset();
  }

  @Override
  public Map<String, Long> metrics() {
    Map<String, Long> m = new java.util.LinkedHashMap<>(super.metrics());
    if (spill != null) {
      m.put("spill_runs", (long) spill.runs());
      m.put("spilled_bytes", spill.bytes());
    }
    return m;
  }

  /**
   * The merge of the runs on disk: each run's current batch and row, the runs in a heap by their current row (ties:
   * the earlier run, which holds the earlier input rows), output a batch at a time from the rows taken.
   */
  private final class Merge implements AutoCloseable {
    private final Cursor[] cursors = new Cursor[spill.runs()];
    private final PriorityQueue<Cursor> heap = new PriorityQueue<>((a, b) -> {
      for (int k = 0; k < keys.size(); k++) {
        if (++compares == CHECK_EVERY) {
          compares = 0;
          cancellation.check();
        }
        int c = compareValues(keys.get(k), a.kv.get(k), a.pos, b.kv.get(k), b.pos);
        if (c != 0) return c;
      }
      return Integer.compare(a.run, b.run);
    });
    /** The batches this output refers to: each cursor's current one, and those finished since the last output. */
    private final List<VectorSchemaRoot> held = new ArrayList<>();
    private final List<List<ColumnValues>> heldKeys = new ArrayList<>();

    Merge() {
      for (int r = 0; r < cursors.length; r++) {
        cursors[r] = new Cursor(r);
        if (cursors[r].load()) heap.add(cursors[r]);
      }
    }

    /** One run read back: its current batch (at {@link #slot} of {@link #held}), its key values, its row. */
    private final class Cursor {
      final int run;
      final SpillFile reader;
      VectorSchemaRoot batch;
      List<ColumnValues> kv;
      int pos;
      int slot;

      Cursor(int run) {
        this.run = run;
        this.reader = spill.run(run);
      }

      /** Reads the run's next non-empty batch; false at its end. */
      boolean load() {
        VectorSchemaRoot next;
        while ((next = reader.read()) != null && next.getRowCount() == 0) next.close();
        if (next == null) return false;
        List<ColumnValues> values = new ArrayList<>();
        slot = held.size();
        held.add(next);
        heldKeys.add(values);
        for (Key k : keys) values.add(k.expr().eval(next, allocator));
        batch = next;
        kv = values;
        pos = 0;
        return true;
      }
    }

    /** The next batch of at most {@code rows} merged rows, or null when every run is done. */
    VectorSchemaRoot next(int rows) {
      if (heap.isEmpty()) return null;
      long[] refs = new long[rows];
      int count = 0;
      while (count < rows && !heap.isEmpty()) {
        Cursor c = heap.poll();
        refs[count++] = Rows.ref(c.slot, c.pos);
        if (++c.pos < c.batch.getRowCount() || c.load()) heap.add(c);
      }
      var fields = schema().getFields();
      VectorSchemaRoot out = Rows.root(fields, Rows.copy(held, 0, fields, refs, 0, count, allocator), count);
      // keep only the batches a cursor still reads, renumbered
      java.util.Set<VectorSchemaRoot> current = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      for (Cursor c : heap) current.add(c.batch);
      List<VectorSchemaRoot> keep = new ArrayList<>();
      List<List<ColumnValues>> keepKeys = new ArrayList<>();
      for (int i = 0; i < held.size(); i++) {
        if (current.contains(held.get(i))) {
          keep.add(held.get(i));
          keepKeys.add(heldKeys.get(i));
        } else {
          held.get(i).close();
          heldKeys.get(i).forEach(ColumnValues::close);
        }
      }
      held.clear();
      heldKeys.clear();
      held.addAll(keep);
      heldKeys.addAll(keepKeys);
      for (Cursor c : heap) c.slot = held.indexOf(c.batch);
      return out;
    }

    @Override
    public void close() {
      for (VectorSchemaRoot b : held) b.close();
      for (List<ColumnValues> kv : heldKeys) kv.forEach(ColumnValues::close);
      held.clear();
      heldKeys.clear();
    }
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (order == null) consume();
    if (merge != null) {
      cancellation.check();
      return merge.next(batchRows);
    }
    if (output == null) {
      var fields = schema().getFields();
      long[] sorted = order;
      // a large sort's batches are gathered a few ahead on the pool (each a random read a row and column)
      output = new OutputAhead((from, count) -> Rows.root(fields, Rows.copy(batches, 0, fields, sorted, from, count,
          allocator), count), sorted.length, batchRows, executor, sorted.length >= parallelRows ? threads : 0);
    }
    return output.next();
  }

  /** The in-memory sort's output batches. */
  private OutputAhead output;

  @Override
  public void close() {
    super.close();
    if (output != null) output.close(); // before the batches it reads are released
    output = null;
    for (int b = 0; b < batches.size(); b++) if (batches.get(b) != null) release(b);
    memory.close();
    if (merge != null) merge.close();
    merge = null;
    if (spill != null) spill.close();
  }
}
