package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.Cancellation;
import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.planner.plan.LogicalPlan.AggFunc;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import dev.quiver.planner.plan.LogicalPlan.BoundKind;
import dev.quiver.planner.plan.LogicalPlan.Exclude;
import dev.quiver.planner.plan.LogicalPlan.Frame;
import dev.quiver.planner.plan.LogicalPlan.FrameBound;
import dev.quiver.planner.plan.LogicalPlan.FrameUnit;
import dev.quiver.planner.plan.LogicalPlan.WindowCall;
import dev.quiver.planner.plan.LogicalPlan.WindowFunc;
import dev.quiver.planner.types.SqlTypes;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.IdentityHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One bucket of a {@link WindowExec}: whole partitions of its input (or every row), in batches it owns. {@link
 * #evaluate} sorts its rows (stable, keys compared as {@link SortExec} does) by each distinct (PARTITION BY, ORDER BY)
 * and evaluates each call one partition at a time; the results are kept by the row's place in the bucket and the output
 * order is that of the last sort. Its working memory (the sort's indexes, key columns, results) is charged to a
 * reservation of its own, given back when it is closed with its batches; buckets are independent, so several can be
 * evaluated at once on different threads.
 * <p>Aggregates over a frame: a frame starting at UNBOUNDED PRECEDING (the default) adds each row once to one
 * running accumulator; other frames without EXCLUDE slide (both ends only move forward) with add/remove states for
 * count, sum, avg, bool_and/bool_or and a monotonic deque for min/max, linear in the partition; var/stddev over a
 * sliding frame, DISTINCT aggregates over one and any frame with EXCLUDE are recomputed per row over the frame
 * (time proportional to the frame's size per row).
 */
final class WindowBucket implements AutoCloseable {
  private final List<WindowExec.Call> calls;
  private final Schema schema;
  private final int inputColumns;
  private final BufferAllocator allocator;
  private final int batchRows;
  private final Cancellation cancellation;
  private final MemoryReservation memory;
  final List<VectorSchemaRoot> batches;
  private final int[] batchStart;
  final int rowCount;
  /** Expressions evaluated over every batch, once each. */
  private final IdentityHashMap<PhysicalExpr, List<ColumnValues>> evaluatedBy = new IdentityHashMap<>();
  /** The rows (local ids {@code [0, rowCount)}, in input order) as references into the batches. */
  private long[] localRefs;
  /** Each call's results by local id; the output order as references and as local ids. */
  WindowResult[] results;
  long[] order;
  int[] orderLocal;

  /** A bucket of {@code batches} (owned from now on) for {@code calls}, whose output has {@code schema}. */
  WindowBucket(List<VectorSchemaRoot> batches, List<WindowExec.Call> calls, Schema schema, int inputColumns,
      BufferAllocator allocator, int batchRows, Cancellation cancellation) {
    this.batches = new ArrayList<>(batches);
    this.calls = calls;
    this.schema = schema;
    this.inputColumns = inputColumns;
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.cancellation = cancellation;
    this.memory = new MemoryReservation(allocator, "the window function");
    batchStart = new int[this.batches.size()];
    long total = 0;
    for (int b = 0; b < batchStart.length; b++) {
      batchStart[b] = (int) total;
      total += this.batches.get(b).getRowCount();
    }
    if (total > Integer.MAX_VALUE - 16) {
      close();
      throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "the window function's input has more than "
          + (Integer.MAX_VALUE - 16) + " rows in one bucket");
    }
    rowCount = (int) total;
  }

  /** Where the sort of a large bucket is split (null: on the evaluating thread alone), and into how many stretches. */
  private java.util.concurrent.ExecutorService sortExecutor;
  private int sortThreads = 1;

  /** Sorts of at least twice {@link SortExec#PARALLEL_ROWS} rows are split across {@code threads} on {@code executor}. */
  void sortOn(java.util.concurrent.ExecutorService executor, int threads) {
    this.sortExecutor = threads > 1 ? executor : null;
    this.sortThreads = threads;
  }

  /** The aggregate a window call of an aggregate function computes over its frame. */
  static AggregateCall aggregateCall(WindowCall wc) {
    String separator = wc.agg() == AggFunc.STRING_AGG
        ? (String) ((dev.quiver.planner.expr.Expr.Literal) wc.args().get(1)).value() : null;
    return new AggregateCall(wc.agg(), wc.args().isEmpty() ? null : wc.args().get(0), wc.type(), wc.name(), wc.distinct(),
        separator, List.of());
  }

  /** Charges {@code bytes} of the caller's structures over these rows to the bucket's reservation. */
  void charge(long bytes) {
    memory.add(bytes);
  }

  /** Closes what was evaluated over the batches and gives the working memory back, leaving the batches open. */
  void releaseValues() {
    evaluatedBy.values().forEach(perBatch -> perBatch.forEach(ColumnValues::close));
    evaluatedBy.clear();
    memory.close();
  }

  /** Closes the batches and what was evaluated over them, and gives the working memory back. */
  @Override
  public void close() {
    evaluatedBy.values().forEach(perBatch -> perBatch.forEach(ColumnValues::close));
    evaluatedBy.clear();
    batches.forEach(VectorSchemaRoot::close);
    batches.clear();
    results = null;
    memory.close();
  }

  private static final int CHECK_EVERY = 1 << 14;
  private int ticks;

  private void tick() {
    if ((++ticks & (CHECK_EVERY - 1)) == 0) cancellation.check(); // (a racy count while stretches sort at once)
  }

  /** Each expression's values per batch (evaluated at the first call, kept for the next buckets). */
  private List<List<ColumnValues>> eval(List<PhysicalExpr> exprs) {
    List<List<ColumnValues>> out = new ArrayList<>();
    for (PhysicalExpr e : exprs) {
      List<ColumnValues> perBatch = evaluatedBy.get(e);
      if (perBatch == null) {
        perBatch = new ArrayList<>();
        for (VectorSchemaRoot b : batches) {
          perBatch.add(e.eval(b, allocator));
        }
        evaluatedBy.put(e, perBatch);
      }
      out.add(perBatch);
    }
    return out;
  }

  /**
   * Sorts the bucket's rows and evaluates every call over them: afterwards {@link #order} and {@link #results} hold
   * the output. Runs on any thread (one bucket, one thread at a time).
   */
  void evaluate() {
    int m = rowCount;
    localRefs = new long[m];
    memory.add(8L * m);
    int o = 0;
    for (int b = 0; b < batches.size(); b++) {
      int n = batches.get(b).getRowCount();
      for (int i = 0; i < n; i++) localRefs[o++] = Rows.ref(b, i);
    }
    results = new WindowResult[calls.size()];
    int[] sorted = null;
    // calls with the same partition and order share one sort
    boolean[] done = new boolean[calls.size()];
    for (int c = 0; c < calls.size(); c++) {
      if (done[c]) continue;
      WindowCall wc = calls.get(c).call();
      List<Integer> group = new ArrayList<>();
      for (int d = c; d < calls.size(); d++) {
        WindowCall other = calls.get(d).call();
        if (!done[d] && other.partitionBy().equals(wc.partitionBy()) && other.orderBy().equals(wc.orderBy())) {
          group.add(d);
          done[d] = true;
        }
      }
      WindowExec.Call first = calls.get(c);
      List<List<ColumnValues>> ord = eval(first.order().stream().map(SortExec.Key::expr).toList());
      List<KeyColumn> part = new ArrayList<>();
      long[] partitionIds = partitionIds(first);
      if (partitionIds != null) part.add(new KeyColumn(partitionIds));
      List<KeyColumn> ordKeys = new ArrayList<>();
      for (int k = 0; k < ord.size(); k++) ordKeys.add(new KeyColumn(ord.get(k), first.order().get(k)));
      sorted = sort(part, ordKeys);
      long[] refs = new long[m];
      memory.add(8L * m);
      for (int p = 0; p < m; p++) refs[p] = localRefs[sorted[p]];
      // partition and peer boundaries
      int[] peerStart = new int[m];
      int[] peerEnd = new int[m];
      memory.add(8L * m);
      int ps = 0;
      while (ps < m) {
        int pe = ps + 1;
        while (pe < m && equal(part, sorted[pe - 1], sorted[pe])) pe++;
        int g = ps;
        while (g < pe) {
          int ge = g + 1;
          while (ge < pe && equal(ordKeys, sorted[ge - 1], sorted[ge])) ge++;
          for (int p = g; p < ge; p++) {
            peerStart[p] = g;
            peerEnd[p] = ge;
          }
          g = ge;
        }
        ps = pe;
      }
      for (int d : group) {
        WindowExec.Call call = calls.get(d);
        ArrowType type = schema.getFields().get(inputColumns + d).getType();
        results[d] = WindowResult.of(type, m, memory); // by the row's place in the bucket
        Evaluation ev = new Evaluation(call, eval(call.args()), ord, refs, sorted, peerStart, peerEnd, results[d]);
        for (int s = 0; s < m; ) {
          int e = s + 1;
          while (e < m && equal(part, sorted[e - 1], sorted[e])) e++;
          ev.partition(s, e);
          s = e;
        }
      }
      order = refs; // the last group's order is the output's
      orderLocal = sorted;
    }
  }

  /**
   * One sort key's values in global row order, read once into primitive arrays (BIGINT-like and DOUBLE keys, and
   * DECIMALs whose unscaled value fits a long) or objects; or a partition's number.
   */
  private final class KeyColumn {
    final Kernels.Family family;
    final boolean ascending;
    final boolean nullsFirst;
    final boolean[] nulls;
    long[] longs;
    double[] doubles;
    Object[] objects;
    boolean anyNulls;

    /** A partition's number as the key: any consistent order of the partitions groups them. */
    KeyColumn(long[] ids) {
      family = Kernels.Family.LONG;
      ascending = true;
      nullsFirst = true;
      nulls = new boolean[ids.length];
      longs = ids;
    }

    KeyColumn(List<ColumnValues> perBatch, SortExec.Key key) {
      this.family = key.family();
      this.ascending = key.ascending();
      this.nullsFirst = key.nullsFirst();
      int m = rowCount;
      nulls = new boolean[m];
      memory.add(9L * m);
      switch (family) {
        case LONG, ULONG -> longs = new long[m];
        case DOUBLE -> doubles = new double[m];
        case DECIMAL -> longs = new long[m];
        default -> objects = new Object[m];
      }
      // the bucket's rows are in input order: each batch's values read once, in bulk where typed
      int current = -1;
      ColumnValues v = null;
      boolean anyNull = false;
      long[] batchLongs = null;
      double[] batchDoubles = null;
      for (int l = 0; l < m; l++) {
        long ref = localRefs[l];
        int b = Rows.batch(ref);
        int i = Rows.row(ref);
        if (b != current) {
          current = b;
          v = perBatch.get(b);
          anyNull = BatchValues.anyNull(v);
          int n = batches.get(b).getRowCount();
          if (family == Kernels.Family.LONG || family == Kernels.Family.ULONG) batchLongs = BatchValues.longs(v, n, batchLongs);
          else if (family == Kernels.Family.DOUBLE) batchDoubles = BatchValues.doubles(v, n, batchDoubles);
        }
        if (anyNull && v.isNull(i)) {
          nulls[l] = true;
          anyNulls = true;
          continue;
        }
        switch (family) {
          case LONG, ULONG -> longs[l] = batchLongs[i];
          case DOUBLE -> doubles[l] = batchDoubles[i];
          case DECIMAL -> {
            if (longs != null) {
              try {
                longs[l] = v.getUnscaledLong(i);
                continue;
              } catch (ArithmeticException wide) {
                toObjects(perBatch, l);
              }
            }
            objects[l] = v.getDecimal(i);
          }
          default -> {
            Object x = v.getObject(i);
            // text compares by its UTF-8 bytes: converted once, not at every comparison
            objects[l] = x instanceof String str ? str.getBytes(java.nio.charset.StandardCharsets.UTF_8) : x;
          }
        }
      }
    }

    /** Wide decimals: every value before local id {@code upTo} becomes an object too. */
    private void toObjects(List<ColumnValues> perBatch, int upTo) {
      objects = new Object[rowCount];
      memory.add(24L * rowCount);
      for (int l = 0; l < upTo; l++) {
        ColumnValues v = perBatch.get(Rows.batch(localRefs[l]));
        int i = Rows.row(localRefs[l]);
        if (!v.isNull(i)) objects[l] = v.getDecimal(i);
      }
      longs = null;
    }

    /**
     * The value at local id {@code l} as a long whose signed order is the key's (direction included), for the radix
     * sort; doubles with -0.0 as 0.0 and every NaN as one above the infinities, as {@link Kernels#compareDouble}.
     */
    long sortable(int l) {
      long x = doubles != null ? RangeJoinBounds.sortable(doubles[l])
          : family == Kernels.Family.ULONG ? longs[l] ^ Long.MIN_VALUE : longs[l];
      return ascending ? x : ~x;
    }

    int compare(int a, int b) {
      boolean an = nulls[a];
      boolean bn = nulls[b];
      if (an || bn) {
        if (an && bn) return 0;
        return an == nullsFirst ? -1 : 1;
      }
      int c;
      if (longs != null) {
        c = family == Kernels.Family.ULONG ? Long.compareUnsigned(longs[a], longs[b]) : Long.compare(longs[a], longs[b]);
      } else if (doubles != null) {
        c = Kernels.compareDouble(doubles[a], doubles[b]);
      } else {
        c = Kernels.compareObjects(family, objects[a], objects[b]);
      }
      return ascending ? c : -c;
    }
  }

  /**
   * The bucket's local ids in the order of (partition keys, order keys), stable. Keys held as longs or doubles are
   * sorted one at a time, the last first, by a radix sort ({@link LongSort}) with NULLs then moved by a stable
   * partition; a key of objects (text, wide decimals) sends all of them through a merge sort with the comparator.
   */
  private int[] sort(List<KeyColumn> part, List<KeyColumn> ord) {
    List<KeyColumn> keys = new ArrayList<>(part);
    keys.addAll(ord);
    int count = rowCount;
    memory.add(24L * count);
    boolean typed = true;
    for (KeyColumn k : keys) typed &= k.objects == null;
    int parts = sortExecutor != null && count >= 2 * SortExec.PARALLEL_ROWS ? sortThreads : 1;
    if (parts <= 1) return sortIds(keys, typed, 0, count);
    // consecutive stretches sorted at once, then merged, ties to the earlier stretch: the one sort's order
    boolean allTyped = typed;
    KeyColumn first = keys.get(0);
    boolean leads = first.objects == null;
    List<java.util.concurrent.Callable<Stretch>> stretches = new ArrayList<>();
    for (int t = 0; t < parts; t++) {
      int lo = (int) ((long) count * t / parts);
      int hi = (int) ((long) count * (t + 1) / parts);
      stretches.add(() -> {
        int[] ids = sortIds(keys, allTyped, lo, hi);
        if (!leads) return new Stretch(ids, null);
        // the first key's long in sorted order, read in sequence by the merge (NULL as the end where NULLs go; a
        // value equal to that long ties with it, and the full comparison decides)
        long nullAs = first.nullsFirst ? Long.MIN_VALUE : Long.MAX_VALUE;
        long[] lead = new long[ids.length];
        for (int p = 0; p < ids.length; p++) lead[p] = first.nulls[ids[p]] ? nullAs : first.sortable(ids[p]);
        return new Stretch(ids, lead);
      });
    }
    List<Stretch> sorted = ParallelTasks.run(sortExecutor, stretches);
    Stretch merged = sorted.get(0);
    for (int t = 1; t < parts; t++) merged = merge(merged, sorted.get(t), keys);
    return merged.ids();
  }

  /** A sorted run of local ids and, when the first key is held as longs, that key's sortable long for each. */
  private record Stretch(int[] ids, long[] lead) {}

  private Stretch merge(Stretch a, Stretch b, List<KeyColumn> keys) {
    int[] ia = a.ids();
    int[] ib = b.ids();
    long[] la = a.lead();
    long[] lb = b.lead();
    int[] ids = new int[ia.length + ib.length];
    long[] lead = la == null ? null : new long[ids.length];
    int x = 0;
    int y = 0;
    int o = 0;
    while (x < ia.length && y < ib.length) {
      boolean fromA = la != null && la[x] != lb[y] ? la[x] < lb[y] : compare(keys, ia[x], ib[y]) <= 0;
      if (fromA) {
        if (lead != null) lead[o] = la[x];
        ids[o++] = ia[x++];
      } else {
        if (lead != null) lead[o] = lb[y];
        ids[o++] = ib[y++];
      }
    }
    while (x < ia.length) {
      if (lead != null) lead[o] = la[x];
      ids[o++] = ia[x++];
    }
    while (y < ib.length) {
      if (lead != null) lead[o] = lb[y];
      ids[o++] = ib[y++];
    }
    return new Stretch(ids, lead);
  }

  /** Local ids {@code [lo, hi)} in key order, stable. */
  private int[] sortIds(List<KeyColumn> keys, boolean typed, int lo, int hi) {
    int count = hi - lo;
    int[] ids = new int[count];
    if (typed) {
      long[] perm = new long[count];
      for (int i = 0; i < count; i++) perm[i] = lo + i;
      long[] scratch = new long[count];
      for (int k = keys.size() - 1; k >= 0; k--) {
        KeyColumn key = keys.get(k);
        boolean ordered = true;
        for (int p = 0; p < count; p++) {
          scratch[p] = key.sortable((int) perm[p]);
          ordered &= p == 0 || scratch[p - 1] <= scratch[p];
        }
        cancellation.check();
        if (!ordered) LongSort.byKey(scratch, perm); // in order already (a time column, one partition): stable as is
        if (key.anyNulls) LongSort.nullsApart(perm, key.nulls, key.nullsFirst, scratch, count);
      }
      for (int i = 0; i < count; i++) ids[i] = (int) perm[i];
      return ids;
    }
    for (int i = 0; i < count; i++) ids[i] = lo + i;
    int[] aux = ids.clone();
    mergeSort(aux, ids, 0, count, keys);
    return ids;
  }

  /**
   * The bucket's rows' partition numbers under {@code call}'s PARTITION BY (null without one), by a {@link GroupTable}
   * over its batches (local ids are the bucket's row numbers).
   */
  private long[] partitionIds(WindowExec.Call call) {
    if (call.partition().isEmpty()) return null;
    int[] ids = new int[rowCount];
    long[] out = new long[rowCount];
    memory.add(12L * rowCount);
    numberPartitions(call, ids);
    for (int l = 0; l < rowCount; l++) out[l] = ids[l];
    return out;
  }

  /**
   * Numbers the partitions of {@code call}'s PARTITION BY over the batches held, from 0 in the order they first
   * appear (NULL keys one partition), writing each row's number at its place in the batches; returns the table.
   */
  GroupTable numberPartitions(WindowExec.Call call, int[] out) {
    List<ArrowType> types = new ArrayList<>();
    for (dev.quiver.planner.expr.Expr e : call.call().partitionBy()) types.add(e.type());
    GroupTable partitions = new GroupTable(types);
    List<List<ColumnValues>> values = eval(call.partition());
    int[] ids = new int[batchRows];
    for (int b = 0; b < batches.size(); b++) {
      int n = batches.get(b).getRowCount();
      if (ids.length < n) ids = new int[n];
      List<ColumnValues> keys = new ArrayList<>();
      for (List<ColumnValues> v : values) keys.add(v.get(b));
      partitions.batch(keys, n);
      partitions.ids(0, n, ids);
      System.arraycopy(ids, 0, out, batchStart[b], n);
      tick();
    }
    memory.add(partitions.bytes());
    return partitions;
  }

  private int compare(List<KeyColumn> keys, int a, int b) {
    tick();
    for (KeyColumn k : keys) {
      int c = k.compare(a, b);
      if (c != 0) return c;
    }
    return 0;
  }

  /** A stable merge sort of {@code dst[from, to)} ({@code src} holds the same ids on entry). */
  private void mergeSort(int[] src, int[] dst, int from, int to, List<KeyColumn> keys) {
    if (to - from <= 16) {
      for (int i = from + 1; i < to; i++) {
        int x = dst[i];
        int j = i - 1;
        while (j >= from && compare(keys, dst[j], x) > 0) {
          dst[j + 1] = dst[j];
          j--;
        }
        dst[j + 1] = x;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(dst, src, from, mid, keys);
    mergeSort(dst, src, mid, to, keys);
    if (compare(keys, src[mid - 1], src[mid]) <= 0) {
      System.arraycopy(src, from, dst, from, to - from);
      return;
    }
    for (int i = from, p = from, q = mid; i < to; i++) {
      if (q >= to || p < mid && compare(keys, src[p], src[q]) <= 0) dst[i] = src[p++];
      else dst[i] = src[q++];
    }
  }

  private boolean equal(List<KeyColumn> keys, int a, int b) {
    for (KeyColumn k : keys) if (k.compare(a, b) != 0) return false;
    return true;
  }

  /** The evaluation of one call over the sorted rows, one partition at a time. */
  private final class Evaluation {
    final WindowExec.Call call;
    final WindowCall wc;
    final List<List<ColumnValues>> args;
    final List<List<ColumnValues>> ord;
    /** The rows in the sort's order, as references and as local ids (results are kept by local id). */
    final long[] sorted;
    final int[] local;
    final int[] peerStart;
    final int[] peerEnd;
    final WindowResult out;
    /** For GROUPS frames: each row's peer group in its partition, and the groups' first rows. */
    int[] groupOf;
    int[] groupStart;

    Evaluation(WindowExec.Call call, List<List<ColumnValues>> args, List<List<ColumnValues>> ord, long[] sorted, int[] local,
        int[] peerStart, int[] peerEnd, WindowResult out) {
      this.local = local;
      this.call = call;
      this.wc = call.call();
      this.args = args;
      this.ord = ord;
      this.sorted = sorted;
      this.peerStart = peerStart;
      this.peerEnd = peerEnd;
      this.out = out;
    }

    ColumnValues values(int arg, int p) {
      return args.get(arg).get(Rows.batch(sorted[p]));
    }

    /** Argument {@code arg}'s value at sorted position {@code p}, or null. */
    Object value(int arg, int p) {
      ColumnValues v = values(arg, p);
      int r = Rows.row(sorted[p]);
      return v.isNull(r) ? null : v.getObject(r);
    }

    void set(int p, Object v) {
      out.set(local[p], v);
    }

    void setLong(int p, long v) {
      out.setLong(local[p], v);
    }

    void setDouble(int p, double v) {
      out.setDouble(local[p], v);
    }

    void partition(int ps, int pe) {
      int size = pe - ps;
      switch (wc.func()) {
        case ROW_NUMBER -> {
          for (int p = ps; p < pe; p++) setLong(p, p - ps + 1);
        }
        case RANK -> {
          for (int p = ps; p < pe; p++) setLong(p, peerStart[p] - ps + 1);
        }
        case DENSE_RANK -> {
          long dense = 0;
          for (int p = ps; p < pe; p++) {
            if (peerStart[p] == p) dense++;
            setLong(p, dense);
          }
        }
        case PERCENT_RANK -> {
          for (int p = ps; p < pe; p++) setDouble(p, size == 1 ? 0.0 : (double) (peerStart[p] - ps) / (size - 1));
        }
        case CUME_DIST -> {
          for (int p = ps; p < pe; p++) setDouble(p, (double) (peerEnd[p] - ps) / size);
        }
        case NTILE -> {
          for (int p = ps; p < pe; p++) {
            tick();
            Object k = value(0, p);
            if (k == null) {
              set(p, null);
              continue;
            }
            long buckets = (Long) k;
            if (buckets <= 0) {
              throw new QuiverException(ErrorCode.DATA_ERROR, "argument of ntile must be greater than zero, not " + buckets);
            }
            long q = size / buckets;
            long r = size % buckets;
            long i = p - ps;
            long bucket = i < r * (q + 1) ? i / (q + 1) + 1 : r + (i - r * (q + 1)) / q + 1;
            setLong(p, bucket);
          }
        }
        case LAG, LEAD -> {
          for (int p = ps; p < pe; p++) {
            tick();
            long offset = 1;
            if (wc.args().size() > 1) {
              Object o = value(1, p);
              if (o == null) {
                set(p, null);
                continue;
              }
              offset = Math.max(-(long) Integer.MAX_VALUE, Math.min((Long) o, Integer.MAX_VALUE));
            }
            long target = wc.func() == WindowFunc.LAG ? p - offset : p + offset;
            if (target >= ps && target < pe) set(p, value(0, (int) target));
            else set(p, wc.args().size() > 2 ? value(2, p) : null);
          }
        }
        case FIRST_VALUE, LAST_VALUE, NTH_VALUE -> valueFunctions(ps, pe);
        case AGGREGATE -> aggregate(ps, pe);
      }
    }

    void prepareGroups(int ps, int pe) {
      if (wc.frame() == null || wc.frame().unit() != FrameUnit.GROUPS) return;
      groupOf = new int[pe - ps];
      List<Integer> starts = new ArrayList<>();
      for (int p = ps; p < pe; p++) {
        if (peerStart[p] == p) starts.add(p);
        groupOf[p - ps] = starts.size() - 1;
      }
      starts.add(pe);
      groupStart = starts.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The first row of the frame of the row at {@code p}. */
    int frameStart(FrameBound b, int p, int ps, int pe) {
      FrameUnit unit = wc.frame().unit();
      return switch (b.kind()) {
        case UNBOUNDED_PRECEDING -> ps;
        case CURRENT_ROW -> unit == FrameUnit.ROWS ? p : peerStart[p];
        case UNBOUNDED_FOLLOWING -> pe;
        case PRECEDING, FOLLOWING -> {
          boolean preceding = b.kind() == BoundKind.PRECEDING;
          if (unit == FrameUnit.ROWS) {
            long n = Math.min((Long) b.offset().value(), Integer.MAX_VALUE); // beyond any partition
            long s = preceding ? p - n : p + n;
            yield (int) Math.max(ps, Math.min(pe, s));
          }
          if (unit == FrameUnit.GROUPS) {
            long n = Math.min((Long) b.offset().value(), Integer.MAX_VALUE); // beyond any partition
            long g = groupOf[p - ps] + (preceding ? -n : n);
            int groups = groupStart.length - 1;
            yield g < 0 ? ps : g >= groups ? pe : groupStart[(int) g];
          }
          yield rangeBound(b, p, ps, pe, true);
        }
      };
    }

    /** One past the last row of the frame of the row at {@code p}. */
    int frameEnd(FrameBound b, int p, int ps, int pe) {
      FrameUnit unit = wc.frame().unit();
      return switch (b.kind()) {
        case UNBOUNDED_FOLLOWING -> pe;
        case CURRENT_ROW -> unit == FrameUnit.ROWS ? p + 1 : peerEnd[p];
        case UNBOUNDED_PRECEDING -> ps;
        case PRECEDING, FOLLOWING -> {
          boolean preceding = b.kind() == BoundKind.PRECEDING;
          if (unit == FrameUnit.ROWS) {
            long n = Math.min((Long) b.offset().value(), Integer.MAX_VALUE); // beyond any partition
            long e = (preceding ? p - n : p + n) + 1;
            yield (int) Math.max(ps, Math.min(pe, e));
          }
          if (unit == FrameUnit.GROUPS) {
            long n = Math.min((Long) b.offset().value(), Integer.MAX_VALUE); // beyond any partition
            long g = groupOf[p - ps] + (preceding ? -n : n);
            int groups = groupStart.length - 1;
            yield g < 0 ? ps : g >= groups ? pe : groupStart[(int) g + 1];
          }
          yield rangeBound(b, p, ps, pe, false);
        }
      };
    }

    /**
     * A RANGE bound with an offset: the first row (for a start; for an end, the first row past the frame) whose
     * ORDER BY key is at or after (after) the current key minus (plus) the offset, in the sort's direction. A NULL
     * key's frame is its peers; NULL keys are outside any other row's offset range.
     */
    int rangeBound(FrameBound b, int p, int ps, int pe, boolean start) {
      SortExec.Key key = call.order().get(0);
      ColumnValues cv = ord.get(0).get(Rows.batch(sorted[p]));
      int row = Rows.row(sorted[p]);
      if (cv.isNull(row)) return start ? peerStart[p] : peerEnd[p];
      // the non-NULL keys of the partition
      int lo = ps;
      int hi = pe;
      if (key.nullsFirst()) {
        while (lo < hi && isNullKey(lo)) lo = peerEnd[lo];
      } else {
        int last = hi - 1;
        if (isNullKey(last)) hi = peerStart[last];
      }
      Object v = cv.getObject(row);
      boolean toward = (b.kind() == BoundKind.FOLLOWING) == key.ascending(); // add the offset
      Object t = shift(v, b.offset().value(), toward, key.family());
      // start: first row with key at or after t; end: first row with key after t (in sort order)
      int l = lo;
      int h = hi;
      while (l < h) {
        int m = (l + h) >>> 1;
        ColumnValues mv = ord.get(0).get(Rows.batch(sorted[m]));
        int c = Kernels.compareObjects(key.family(), mv.getObject(Rows.row(sorted[m])), t);
        if (!key.ascending()) c = -c;
        boolean before = start ? c < 0 : c <= 0;
        if (before) l = m + 1;
        else h = m;
      }
      return l;
    }

    boolean isNullKey(int p) {
      return ord.get(0).get(Rows.batch(sorted[p])).isNull(Rows.row(sorted[p]));
    }

    /** {@code v} plus (or minus) {@code offset}, in the key's family; saturated instead of overflowing. */
    Object shift(Object v, Object offset, boolean add, Kernels.Family family) {
      return switch (family) {
        case LONG -> {
          long x = (Long) v;
          long n = offset instanceof Long l ? l : ((BigDecimal) offset).setScale(0, java.math.RoundingMode.FLOOR).longValue();
          try {
            yield add ? Math.addExact(x, n) : Math.subtractExact(x, n);
          } catch (ArithmeticException overflow) {
            yield add ? Long.MAX_VALUE : Long.MIN_VALUE;
          }
        }
        case DOUBLE -> {
          double n = offset instanceof Double d ? d : offset instanceof Long l ? l : ((BigDecimal) offset).doubleValue();
          yield add ? (Double) v + n : (Double) v - n;
        }
        default -> {
          BigDecimal x = (BigDecimal) v;
          BigDecimal n = offset instanceof BigDecimal d ? d : offset instanceof Long l ? BigDecimal.valueOf(l)
              : BigDecimal.valueOf((Double) offset);
          yield add ? x.add(n) : x.subtract(n);
        }
      };
    }

    /** The frame of the row at {@code p} minus its exclusion, as up to three [start, end) segments in {@code seg}. */
    int segments(int p, int ps, int pe, int[] seg) {
      Frame f = wc.frame();
      int fs = frameStart(f.start(), p, ps, pe);
      int fe = Math.max(fs, frameEnd(f.end(), p, ps, pe));
      int k = 0;
      switch (f.exclude()) {
        case NO_OTHERS -> k = add(seg, k, fs, fe);
        case CURRENT_ROW -> {
          k = add(seg, k, fs, Math.min(fe, p));
          k = add(seg, k, Math.max(fs, p + 1), fe);
        }
        case GROUP -> {
          k = add(seg, k, fs, Math.min(fe, peerStart[p]));
          k = add(seg, k, Math.max(fs, peerEnd[p]), fe);
        }
        case TIES -> {
          k = add(seg, k, fs, Math.min(fe, peerStart[p]));
          if (p >= fs && p < fe) k = add(seg, k, p, p + 1);
          k = add(seg, k, Math.max(fs, peerEnd[p]), fe);
        }
      }
      return k;
    }

    private int add(int[] seg, int k, int s, int e) {
      if (s >= e) return k;
      seg[2 * k] = s;
      seg[2 * k + 1] = e;
      return k + 1;
    }

    void valueFunctions(int ps, int pe) {
      prepareGroups(ps, pe);
      int[] seg = new int[6];
      for (int p = ps; p < pe; p++) {
        tick();
        int k = segments(p, ps, pe, seg);
        Object v = null;
        if (k > 0) {
          switch (wc.func()) {
            case FIRST_VALUE -> v = value(0, seg[0]);
            case LAST_VALUE -> v = value(0, seg[2 * k - 1] - 1);
            default -> {
              Object nv = value(1, p);
              if (nv != null) {
                long nth = (Long) nv;
                if (nth <= 0) {
                  throw new QuiverException(ErrorCode.DATA_ERROR, "argument of nth_value must be greater than zero, not " + nth);
                }
                for (int s = 0; s < k; s++) {
                  int len = seg[2 * s + 1] - seg[2 * s];
                  if (nth <= len) {
                    v = value(0, seg[2 * s] + (int) nth - 1);
                    break;
                  }
                  nth -= len;
                }
              }
            }
          }
        }
        set(p, v);
      }
    }

    AggregateCall aggregateCall() {
      return WindowBucket.aggregateCall(wc);
    }

    void aggregate(int ps, int pe) {
      prepareGroups(ps, pe);
      Frame f = wc.frame();
      AggregateCall ac = aggregateCall();
      boolean noExclusion = f.exclude() == Exclude.NO_OTHERS;
      if (noExclusion && f.start().kind() == BoundKind.UNBOUNDED_PRECEDING) {
        // a running aggregate: the frame's end only moves forward
        Accumulator acc = Accumulator.create(ac, memory);
        int added = ps;
        Object result = null;
        for (int p = ps; p < pe; p++) {
          tick();
          int fe = frameEnd(f.end(), p, ps, pe);
          if (added < fe || p == ps) { // peers share one frame: its result is computed once
            while (added < fe) {
              addTo(acc, added);
              added++;
            }
            result = acc.result();
          }
          set(p, result);
        }
        return;
      }
      Sliding sliding = noExclusion && !wc.distinct() ? Sliding.of(ac, this, ps, pe) : null;
      if (sliding != null) {
        int lo = ps;
        int hi = ps;
        for (int p = ps; p < pe; p++) {
          tick();
          int fs = frameStart(f.start(), p, ps, pe);
          int fe = Math.max(fs, frameEnd(f.end(), p, ps, pe));
          while (hi < fe) sliding.add(hi++);
          while (lo < fs) sliding.remove(lo++);
          set(p, sliding.result());
        }
        return;
      }
      // recomputed per row over the frame
      int[] seg = new int[6];
      for (int p = ps; p < pe; p++) {
        int k = segments(p, ps, pe, seg);
        Accumulator acc = Accumulator.create(ac, memory);
        for (int s = 0; s < k; s++) {
          for (int q = seg[2 * s]; q < seg[2 * s + 1]; q++) {
            tick();
            addTo(acc, q);
          }
        }
        set(p, acc.result());
      }
    }

    void addTo(Accumulator acc, int p) {
      if (wc.args().isEmpty()) acc.add(null, Rows.row(sorted[p]));
      else acc.add(values(0, p), Rows.row(sorted[p]));
    }
  }

  /** An aggregate over a frame whose two ends only move forward: rows are added at its end, removed at its start. */
  private abstract static class Sliding {
    final Evaluation ev;
    final AggregateCall call;

    Sliding(Evaluation ev, AggregateCall call) {
      this.ev = ev;
      this.call = call;
    }

    abstract void add(int p);

    abstract void remove(int p);

    abstract Object result();

    /** A sliding state for {@code call} over the partition {@code [ps, pe)}, or null when it has none. */
    static Sliding of(AggregateCall call, Evaluation ev, int ps, int pe) {
      if (call.arg() == null) return new CountRows(ev, call);
      Kernels.Family family = Kernels.family(call.arg().type());
      return switch (call.func()) {
        case COUNT -> new CountRows(ev, call);
        case SUM, AVG -> family == Kernels.Family.DOUBLE ? new DoubleSum(ev, call)
            : family == Kernels.Family.LONG && !(call.type() instanceof ArrowType.Decimal) ? new LongSum(ev, call)
            : new DecimalSum(ev, call);
        case MIN, MAX -> new MinMax(ev, call, family);
        case BOOL_AND, BOOL_OR -> new Bools(ev, call);
        case VAR_SAMP, VAR_POP, STDDEV_SAMP, STDDEV_POP -> new Variances(ev, call, ps, pe);
        default -> null;
      };
    }

    Object value(int p) {
      return ev.value(0, p);
    }
  }

  private static final class CountRows extends Sliding {
    long n;
    CountRows(Evaluation ev, AggregateCall call) { super(ev, call); }
    void add(int p) { if (call.arg() == null || value(p) != null) n++; }
    void remove(int p) { if (call.arg() == null || value(p) != null) n--; }
    Object result() { return n; }
  }

  private static final class LongSum extends Sliding {
    long sum;
    long n;
    LongSum(Evaluation ev, AggregateCall call) { super(ev, call); }
    void add(int p) {
      Object v = value(p);
      if (v == null) return;
      n++;
      try {
        sum = Math.addExact(sum, (Long) v);
      } catch (ArithmeticException e) {
        throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + dev.quiver.planner.expr.Exprs.toUserString(call.arg()) + ") overflows BIGINT");
      }
    }
    void remove(int p) {
      Object v = value(p);
      if (v == null) return;
      n--;
      sum -= (Long) v; // the sum of the rows left: it fitted before they were added
    }
    Object result() {
      if (n == 0) return null;
      if (call.func() == AggFunc.AVG) return average(sum, n);
      return sum;
    }
  }

  /**
   * {@code sum / n} as the double nearest the exact quotient, as the BigDecimal division to 34 digits then rounded to
   * a double gives it. Where both fit 53 bits they are doubles exactly and IEEE division rounds the exact quotient
   * once; that quotient cannot be a tie between two doubles (it would need a 54-bit odd numerator) and lies at least
   * 2^-106 (relative) from one, beyond the 34-digit rounding's reach, so both ways give the same double.
   */
  static double average(long sum, long n) {
    if (Math.abs(sum) <= (1L << 53) && n <= (1L << 53)) return (double) sum / n;
    return BigDecimal.valueOf(sum).divide(BigDecimal.valueOf(n), MathContext.DECIMAL128).doubleValue();
  }

  private static final class DecimalSum extends Sliding {
    BigDecimal sum = BigDecimal.ZERO;
    long n;
    final ArrowType argType;
    DecimalSum(Evaluation ev, AggregateCall call) {
      super(ev, call);
      this.argType = call.arg().type();
    }
    BigDecimal exact(Object v) {
      return v instanceof BigDecimal b ? b : Casts.exact(v, argType);
    }
    void add(int p) {
      Object v = value(p);
      if (v == null) return;
      n++;
      sum = sum.add(exact(v));
    }
    void remove(int p) {
      Object v = value(p);
      if (v == null) return;
      n--;
      sum = sum.subtract(exact(v));
    }
    Object result() {
      if (n == 0) return null;
      if (call.func() == AggFunc.AVG) return sum.divide(BigDecimal.valueOf(n), MathContext.DECIMAL128).doubleValue();
      if (call.type() instanceof ArrowType.Decimal d) {
        BigDecimal s = sum.setScale(d.getScale());
        if (s.precision() > SqlTypes.MAX_DECIMAL_PRECISION) {
          throw new QuiverException(ErrorCode.DATA_ERROR, "sum(" + dev.quiver.planner.expr.Exprs.toUserString(call.arg())
              + ") overflows " + SqlTypes.sqlName(call.type()));
        }
        return s;
      }
      return sum;
    }
  }

  /** A compensated (Neumaier) sum that rows leave as they came; NaN and infinities are counted apart. */
  private static final class DoubleSum extends Sliding {
    double sum;
    double compensation;
    long n;
    long nan;
    long posInf;
    long negInf;
    DoubleSum(Evaluation ev, AggregateCall call) { super(ev, call); }
    void add(int p) { update(p, 1); }
    void remove(int p) { update(p, -1); }
    void update(int p, int sign) {
      Object v = value(p);
      if (v == null) return;
      double x = ((Number) v).doubleValue();
      n += sign;
      if (Double.isNaN(x)) {
        nan += sign;
      } else if (x == Double.POSITIVE_INFINITY) {
        posInf += sign;
      } else if (x == Double.NEGATIVE_INFINITY) {
        negInf += sign;
      } else {
        double y = sign * x;
        double t = sum + y;
        compensation += Math.abs(sum) >= Math.abs(y) ? (sum - t) + y : (y - t) + sum;
        sum = t;
      }
    }
    Object result() {
      if (n == 0) return null;
      double s;
      if (nan > 0 || posInf > 0 && negInf > 0) s = Double.NaN;
      else if (posInf > 0) s = Double.POSITIVE_INFINITY;
      else if (negInf > 0) s = Double.NEGATIVE_INFINITY;
      else s = sum + compensation;
      return call.func() == AggFunc.AVG ? s / n : s;
    }
  }

  /**
   * var/stddev over a frame whose two ends only move forward: a segment tree over the partition's values, each node
   * the (count, mean, sum of squared deviations) of its range, merged by Chan, Golub and LeVeque's pairwise formula;
   * built once per partition (linear), each frame of more than {@link #SHORT_FRAME} rows answered from O(log n) nodes —
   * n·log n in all instead of n times the frame, and no subtraction of rows that left (which would lose precision).
   */
  private static final class Variances extends Sliding {
    /**
     * Frames of up to this many rows are folded value by value, as the aggregate over the same rows is (as fast as
     * the tree's nodes, and the same last bits; the tree's pairwise merges can differ from it by an ulp).
     */
    static final int SHORT_FRAME = 32;
    final int ps;
    final int size;
    final long[] count;
    final double[] mean;
    final double[] m2;
    int lo;
    int hi;

    Variances(Evaluation ev, AggregateCall call, int ps, int pe) {
      super(ev, call);
      this.ps = ps;
      this.size = pe - ps;
      this.lo = ps;
      this.hi = ps;
      count = new long[2 * size];
      mean = new double[2 * size];
      m2 = new double[2 * size];
      Kernels.Family family = Kernels.family(call.arg().type());
      for (int i = 0; i < size; i++) {
        Object v = value(ps + i);
        if (v == null) continue;
        count[size + i] = 1;
        mean[size + i] = switch (family) {
          case DOUBLE -> ((Number) v).doubleValue();
          case LONG -> ((Number) v).longValue();
          default -> Casts.exact(v, call.arg().type()).doubleValue();
        };
      }
      for (int i = size - 1; i >= 1; i--) { // each node the merge of its two children
        n = 0;
        absorb(2 * i);
        absorb(2 * i + 1);
        count[i] = n;
        mean[i] = mu;
        m2[i] = q;
      }
    }

    void add(int p) {
      hi = p + 1;
    }

    void remove(int p) {
      lo = p + 1;
    }

    /** The running (count, mean, sum of squared deviations) of the nodes {@link #absorb}ed so far. */
    private long n;
    private double mu;
    private double q;

    private void absorb(int node) {
      long nb = count[node];
      if (nb == 0) return;
      if (n == 0) {
        n = nb;
        mu = mean[node];
        q = m2[node];
        return;
      }
      long total = n + nb;
      double delta = mean[node] - mu;
      mu += delta * nb / total;
      q += m2[node] + delta * delta * ((double) n * nb / total);
      n = total;
    }

    Object result() {
      n = 0;
      mu = 0;
      q = 0;
      if (hi - lo <= SHORT_FRAME) { // Welford's update a value, in order: the answer of the accumulator over the rows
        for (int leaf = lo - ps + size; leaf < hi - ps + size; leaf++) {
          if (count[leaf] == 0) continue;
          double x = mean[leaf];
          n++;
          double d = x - mu;
          mu += d / n;
          q += d * (x - mu);
        }
      } else {
        for (int l = lo - ps + size, r = hi - ps + size; l < r; l >>= 1, r >>= 1) {
          if ((l & 1) == 1) absorb(l++);
          if ((r & 1) == 1) absorb(--r);
        }
      }
      AggFunc func = call.func();
      boolean sample = func == AggFunc.STDDEV_SAMP || func == AggFunc.VAR_SAMP;
      if (n == 0 || (sample && n == 1)) return null;
      double var = q / (sample ? n - 1 : n);
      return func == AggFunc.STDDEV_SAMP || func == AggFunc.STDDEV_POP ? Math.sqrt(var) : var;
    }
  }

  /** Min or max with a monotonic deque of positions: the front is the best of the frame. */
  private static final class MinMax extends Sliding {
    final Kernels.Family family;
    final boolean min;
    int[] deque = new int[16];
    int head;
    int tail;
    MinMax(Evaluation ev, AggregateCall call, Kernels.Family family) {
      super(ev, call);
      this.family = family;
      this.min = call.func() == AggFunc.MIN;
    }
    boolean notWorse(Object candidate, Object than) {
      int c = Kernels.compareObjects(family, candidate, than);
      return min ? c <= 0 : c >= 0;
    }
    void add(int p) {
      Object v = value(p);
      if (v == null) return;
      while (tail > head && notWorse(v, value(deque[tail - 1]))) tail--;
      if (tail == deque.length) {
        if (head > 0) {
          System.arraycopy(deque, head, deque, 0, tail - head);
          tail -= head;
          head = 0;
        }
        if (tail == deque.length) deque = Arrays.copyOf(deque, deque.length * 2);
      }
      deque[tail++] = p;
    }
    void remove(int p) {
      if (tail > head && deque[head] == p) head++;
    }
    Object result() {
      return tail > head ? value(deque[head]) : null;
    }
  }

  private static final class Bools extends Sliding {
    long trues;
    long falses;
    Bools(Evaluation ev, AggregateCall call) { super(ev, call); }
    void add(int p) {
      Object v = value(p);
      if (v == null) return;
      if ((Boolean) v) trues++;
      else falses++;
    }
    void remove(int p) {
      Object v = value(p);
      if (v == null) return;
      if ((Boolean) v) trues--;
      else falses--;
    }
    Object result() {
      if (trues + falses == 0) return null;
      return call.func() == AggFunc.BOOL_AND ? falses == 0 : trues > 0;
    }
  }
}
