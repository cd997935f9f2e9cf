package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.kernel.PhysicalExpr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The first k rows of each partition by an order, ties by input order, kept while the input streams: the
 * ranked-window shape {@code row_number() OVER (PARTITION BY p ORDER BY o) <= k}. Each batch's partitions are
 * numbered by a {@link GroupTable}; each partition keeps a heap of at most k slots, worst on top, every slot holding a
 * copy of its row's order keys (typed: longs, doubles, or objects) and its input sequence number, so a row is
 * compared with its partition's worst kept row without reading a batch again; most rows lose that one comparison.
 * <p>Batches are retained only while a kept row lives in them (a count a batch), and when the retained batches hold
 * many more rows than are kept, the kept rows are copied into new batches and the old ones released (compaction), so
 * memory follows the rows kept, not the input. {@link #finish} compacts once more: its batches hold exactly the kept
 * rows in input order, which is all a stable sort by (partition, order) needs to number them as over the whole input
 * (a kept row's rank counts the rows before it in its partition, and every row before a kept row is kept).
 */
final class PartitionTopK implements AutoCloseable {
  /** Compaction when the retained batches hold this many rows and more than {@link #SLACK} times the rows kept. */
  static final int COMPACT_AT = 1 << 20;
  private static final int SLACK = 4;

  private final List<PhysicalExpr> partition;
  private final List<SortExec.Key> order;
  private final int k;
  private final List<Field> fields;
  private final int batchRows;
  private final BufferAllocator allocator;
  private final MemoryReservation memory;
  private final GroupTable partitions;
  private final SlotKeys[] keys;
  private final long compactAt;

  /** Retained batches (null once released), the kept rows in each, the rows they hold in all. */
  private final List<VectorSchemaRoot> batches = new ArrayList<>();
  private int[] keptIn = new int[16];
  private long retainedRows;

  /** Partition p's heap: slots {@code heap[p * k, p * k + sizes[p])}, worst first; slot s's row {@code refs[s]}. */
  private int[] heap = new int[0];
  private int[] sizes = new int[0];
  private long[] refs = new long[0];
  private long[] seqs = new long[0];
  private long seq;
  private long kept;
  private int[] pids = new int[0];

  PartitionTopK(List<PhysicalExpr> partition, List<ArrowType> partitionTypes, List<SortExec.Key> order, long k,
      List<Field> fields, int batchRows, BufferAllocator allocator, MemoryReservation memory, long compactAt) {
    this.compactAt = compactAt;
    this.partition = partition;
    this.order = order;
    this.k = Math.toIntExact(k);
    this.fields = fields;
    this.batchRows = batchRows;
    this.allocator = allocator;
    this.memory = memory;
    this.partitions = partition.isEmpty() ? null : new GroupTable(partitionTypes);
    this.keys = new SlotKeys[order.size()];
    for (int c = 0; c < keys.length; c++) keys[c] = new SlotKeys(order.get(c));
  }

  /** The rows kept so far. */
  long kept() {
    return kept;
  }

  /** Takes {@code batch} (owned from here on) and keeps those of its rows that are among their partition's first k. */
  void add(VectorSchemaRoot batch) {
    int n = batch.getRowCount();
    if (n == 0) {
      batch.close();
      return;
    }
    int b = batches.size();
    batches.add(batch);
    if (keptIn.length <= b) keptIn = Arrays.copyOf(keptIn, 2 * b + 2);
    retainedRows += n;
    List<ColumnValues> evaluated = new ArrayList<>();
    try {
      if (pids.length < n) pids = new int[n];
      int count = 1;
      if (partitions != null) {
        List<ColumnValues> values = new ArrayList<>(partition.size());
        for (PhysicalExpr e : partition) {
          ColumnValues v = e.eval(batch, allocator);
          evaluated.add(v);
          values.add(v);
        }
        long before = partitions.bytes();
        partitions.batch(values, n);
        partitions.ids(0, n, pids);
        memory.add(Math.max(0, partitions.bytes() - before));
        count = partitions.groups();
      } else {
        Arrays.fill(pids, 0, n, 0);
      }
      grow(count);
      for (int c = 0; c < keys.length; c++) {
        ColumnValues v = order.get(c).expr().eval(batch, allocator);
        evaluated.add(v);
        keys[c].batch(v, n);
      }
      long first = seq;
      seq += n;
      if (keys.length == 1 && keys[0].plainLongs()) {
        keepLongs(b, n, first);
      } else {
        for (int i = 0; i < n; i++) offer(b, i, first + i);
      }
    } finally {
      evaluated.forEach(ColumnValues::close);
    }
    if (keptIn[b] == 0) release(b);
    if (retainedRows >= compactAt && retainedRows > SLACK * kept) compact();
  }

  /** One LONG-family order key without NULLs in the batch (nor, then, in its rows compared): compared inline. */
  private void keepLongs(int b, int n, long first) {
    SlotKeys key = keys[0];
    long[] values = key.batchLongs;
    long[] slots = key.longs;
    boolean[] slotNulls = key.nulls;
    boolean ascending = key.ascending;
    boolean unsigned = key.family == Kernels.Family.ULONG;
    for (int i = 0; i < n; i++) {
      int p = pids[i];
      int at = p * k;
      if (sizes[p] == k) {
        int worst = heap[at];
        if (!slotNulls[worst]) { // a NULL worst: the general comparison
          long x = values[i];
          long w = slots[worst];
          int c = unsigned ? Long.compareUnsigned(x, w) : Long.compare(x, w);
          if (ascending ? c >= 0 : c <= 0) continue; // not better than the worst kept (a tie came later)
        }
      }
      offer(b, i, first + i);
    }
  }

  /** Row {@code i} of batch {@code b}, sequence {@code s}: into its partition's heap if it is among the first k. */
  private void offer(int b, int i, long s) {
    int p = pids[i];
    int at = p * k;
    int size = sizes[p];
    if (size < k) {
      int slot = at + size;
      heap[at + size] = slot;
      sizes[p] = size + 1;
      put(slot, b, i, s);
      kept++;
      siftUp(at, size);
    } else {
      int worst = heap[at];
      if (compareRow(i, worst) >= 0) return; // a tie is not better: the kept row came first
      int old = Rows.batch(refs[worst]);
      keptIn[old]--;
      put(worst, b, i, s);
      if (keptIn[old] == 0 && old != b) release(old);
      siftDown(at);
    }
  }

  private void put(int slot, int b, int i, long s) {
    refs[slot] = Rows.ref(b, i);
    seqs[slot] = s;
    keptIn[b]++;
    for (SlotKeys key : keys) key.put(slot, i);
  }

  private void release(int b) {
    VectorSchemaRoot batch = batches.get(b);
    if (batch == null) return;
    retainedRows -= batch.getRowCount();
    batch.close();
    batches.set(b, null);
  }

  private int compareRow(int i, int slot) {
    for (SlotKeys key : keys) {
      int c = key.compareRow(i, slot);
      if (c != 0) return c;
    }
    return 0;
  }

  /** Whether slot {@code a} sorts after slot {@code b}: by the order, then the later row. */
  private boolean worse(int a, int b) {
    for (SlotKeys key : keys) {
      int c = key.compareSlots(a, b);
      if (c != 0) return c > 0;
    }
    return seqs[a] > seqs[b];
  }

  private void siftUp(int at, int i) {
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!worse(heap[at + i], heap[at + parent])) return;
      int t = heap[at + i];
      heap[at + i] = heap[at + parent];
      heap[at + parent] = t;
      i = parent;
    }
  }

  private void siftDown(int at) {
    int i = 0;
    while (true) {
      int l = 2 * i + 1;
      if (l >= k) return;
      int w = l + 1 < k && worse(heap[at + l + 1], heap[at + l]) ? l + 1 : l;
      if (!worse(heap[at + w], heap[at + i])) return;
      int t = heap[at + i];
      heap[at + i] = heap[at + w];
      heap[at + w] = t;
      i = w;
    }
  }

  /** Room for {@code count} partitions. */
  private void grow(int count) {
    if (sizes.length >= count) return;
    int old = sizes.length;
    int cap = Math.max(count, 2 * old);
    int slots = Math.multiplyExact(cap, k);
    memory.add((long) (cap - old) * (4 + (long) k * (4 + 8 + 8 + 9L * keys.length)));
    sizes = Arrays.copyOf(sizes, cap);
    heap = Arrays.copyOf(heap, slots);
    refs = Arrays.copyOf(refs, slots);
    seqs = Arrays.copyOf(seqs, slots);
    for (SlotKeys key : keys) key.grow(slots);
  }

  /** The kept rows' slots in input order (by their sequence numbers, which are distinct). */
  private int[] keptSlots() {
    int[] slots = new int[Math.toIntExact(kept)];
    int o = 0;
    int maxSlot = 0;
    for (int p = 0; p < sizes.length; p++) {
      for (int j = 0; j < sizes[p]; j++) {
        slots[o++] = p * k + j;
        maxSlot = p * k + j;
      }
    }
    int slotBits = 32 - Integer.numberOfLeadingZeros(maxSlot);
    if (slotBits + (64 - Long.numberOfLeadingZeros(seq)) <= 63) { // (sequence, slot) packed in one long
      long[] pairs = new long[slots.length];
      for (int j = 0; j < slots.length; j++) pairs[j] = (seqs[slots[j]] << slotBits) | slots[j];
      Arrays.sort(pairs);
      long mask = (1L << slotBits) - 1;
      for (int j = 0; j < slots.length; j++) slots[j] = (int) (pairs[j] & mask);
      return slots;
    }
    Integer[] boxed = new Integer[slots.length];
    for (int j = 0; j < slots.length; j++) boxed[j] = slots[j];
    Arrays.sort(boxed, (x, y) -> Long.compare(seqs[x], seqs[y]));
    for (int j = 0; j < slots.length; j++) slots[j] = boxed[j];
    return slots;
  }

  /** Copies the kept rows, in input order, into new batches and releases the old ones. */
  private void compact() {
    int[] slots = keptSlots();
    long[] from = new long[slots.length];
    for (int j = 0; j < slots.length; j++) from[j] = refs[slots[j]];
    List<VectorSchemaRoot> fresh = new ArrayList<>();
    try {
      for (int start = 0; start < slots.length; start += batchRows) {
        int count = Math.min(batchRows, slots.length - start);
        List<FieldVector> vectors = Rows.copy(batches, 0, fields, from, start, count, allocator);
        fresh.add(Rows.root(fields, vectors, count));
      }
    } catch (RuntimeException e) {
      fresh.forEach(VectorSchemaRoot::close);
      throw e;
    }
    for (int b = 0; b < batches.size(); b++) release(b);
    batches.clear();
    Arrays.fill(keptIn, 0);
    retainedRows = 0;
    for (int f = 0; f < fresh.size(); f++) {
      VectorSchemaRoot batch = fresh.get(f);
      batches.add(batch);
      if (keptIn.length <= f) keptIn = Arrays.copyOf(keptIn, 2 * f + 2);
      keptIn[f] = batch.getRowCount();
      retainedRows += batch.getRowCount();
    }
    for (int j = 0; j < slots.length; j++) refs[slots[j]] = Rows.ref(j / batchRows, j % batchRows);
  }

  /**
   * The kept rows, in input order, in batches of at most {@code batchRows} rows that the caller owns from here on;
   * this object holds nothing afterwards.
   */
  List<VectorSchemaRoot> finish() {
    compact();
    List<VectorSchemaRoot> out = new ArrayList<>(batches);
    batches.clear();
    retainedRows = 0;
    return out;
  }

  @Override
  public void close() {
    for (VectorSchemaRoot b : batches) if (b != null) b.close();
    batches.clear();
  }

  /**
   * One order key's values: those of the current batch, read once, and a copy in every kept slot, compared as
   * {@link WindowExec}'s sort compares them (NULLs first or last as asked, doubles in SQL order, text by its UTF-8
   * bytes, decimals of up to 18 digits by their unscaled longs).
   */
  private static final class SlotKeys {
    final Kernels.Family family;
    final boolean ascending;
    final boolean nullsFirst;
    /** Decimals: as longs when the type's precision is at most 18, decided by the first batch's type. */
    boolean asLongs;
    final boolean asDoubles;
    private boolean typed;
    boolean[] nulls = new boolean[0];
    long[] longs;
    double[] doubles;
    Object[] objects;
    // the current batch
    ColumnValues batch;
    boolean batchHasNulls;
    long[] batchLongs;
    double[] batchDoubles;

    SlotKeys(SortExec.Key key) {
      this.family = key.family();
      this.ascending = key.ascending();
      this.nullsFirst = key.nullsFirst();
      this.asLongs = family == Kernels.Family.LONG || family == Kernels.Family.ULONG;
      this.asDoubles = family == Kernels.Family.DOUBLE;
      if (asLongs) longs = new long[0];
      else if (asDoubles) doubles = new double[0];
      else if (family != Kernels.Family.DECIMAL) objects = new Object[0];
      typed = family != Kernels.Family.DECIMAL;
    }

    boolean plainLongs() {
      return asLongs && !batchHasNulls;
    }

    void grow(int slots) {
      nulls = Arrays.copyOf(nulls, slots);
      if (longs != null) longs = Arrays.copyOf(longs, slots);
      if (doubles != null) doubles = Arrays.copyOf(doubles, slots);
      if (objects != null) objects = Arrays.copyOf(objects, slots);
      // a decimal's storage is made at its first batch, at the size reached by then
    }

    void batch(ColumnValues v, int n) {
      if (!typed) {
        typed = true;
        asLongs = Kernels.smallDecimal(v.type());
        if (asLongs) longs = new long[nulls.length];
        else objects = new Object[nulls.length];
      }
      batch = v;
      batchHasNulls = BatchValues.anyNull(v);
      if (family == Kernels.Family.DECIMAL && asLongs) {
        batchLongs = BatchValues.unscaled(v, n, batchLongs);
      } else if (asLongs) {
        batchLongs = BatchValues.longs(v, n, batchLongs);
      } else if (asDoubles) {
        batchDoubles = BatchValues.doubles(v, n, batchDoubles);
      }
    }

    private Object object(int i) {
      if (family == Kernels.Family.DECIMAL) return batch.getDecimal(i);
      Object x = batch.getObject(i);
      return x instanceof String s ? s.getBytes(java.nio.charset.StandardCharsets.UTF_8) : x;
    }

    void put(int slot, int i) {
      boolean isNull = batchHasNulls && batch.isNull(i);
      nulls[slot] = isNull;
      if (isNull) {
        if (objects != null) objects[slot] = null;
        return;
      }
      if (asLongs) longs[slot] = batchLongs[i];
      else if (asDoubles) doubles[slot] = batchDoubles[i];
      else objects[slot] = object(i);
    }

    int compareRow(int i, int slot) {
      boolean an = batchHasNulls && batch.isNull(i);
      boolean bn = nulls[slot];
      if (an || bn) return nullOrder(an, bn);
      int c;
      if (asLongs) {
        c = family == Kernels.Family.ULONG ? Long.compareUnsigned(batchLongs[i], longs[slot])
            : Long.compare(batchLongs[i], longs[slot]);
      } else if (asDoubles) {
        c = Kernels.compareDouble(batchDoubles[i], doubles[slot]);
      } else {
        c = Kernels.compareObjects(family, object(i), objects[slot]);
      }
      return ascending ? c : -c;
    }

    int compareSlots(int a, int b) {
      boolean an = nulls[a];
      boolean bn = nulls[b];
      if (an || bn) return nullOrder(an, bn);
      int c;
      if (asLongs) {
        c = family == Kernels.Family.ULONG ? Long.compareUnsigned(longs[a], longs[b]) : Long.compare(longs[a], longs[b]);
      } else if (asDoubles) {
        c = Kernels.compareDouble(doubles[a], doubles[b]);
      } else {
        c = Kernels.compareObjects(family, objects[a], objects[b]);
      }
      return ascending ? c : -c;
    }

    private int nullOrder(boolean an, boolean bn) {
      if (an && bn) return 0;
      return an == nullsFirst ? -1 : 1;
    }
  }
}
