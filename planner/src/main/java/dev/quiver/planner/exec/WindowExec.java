package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import dev.quiver.planner.plan.LogicalPlan.BoundKind;
import dev.quiver.planner.plan.LogicalPlan.Exclude;
import dev.quiver.planner.plan.LogicalPlan.Frame;
import dev.quiver.planner.plan.LogicalPlan.FrameUnit;
import dev.quiver.planner.plan.LogicalPlan.WindowCall;
import dev.quiver.planner.plan.LogicalPlan.WindowFunc;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
/**
 * Window functions. The input is buffered (its batches retained in the query's allocator) and evaluated in
 * {@link WindowBucket}s: when every call has the same PARTITION BY and the input is large for the query's memory, in
 * buckets of whole partitions, evaluated on the scan's threads a few at a time (the thread that reads the output
 * evaluates the next one itself when no worker has begun it, so progress never waits for a free worker), their
 * rows output bucket after bucket; otherwise in one bucket of every row. The output is the input's columns then one
 * per call; its order is that of each bucket's last sort, bucket after bucket. Aggregates over whole partitions
 * alone take no bucket: they are aggregated by hash and appended to the input batches as they came
 * ({@link WholePartitions}).
 * <p><b>Spilling.</b> With a shared PARTITION BY, when the input held passes a quarter of the query's memory limit (or
 * the query passes {@link MemoryReservation#spillAt} while it holds an eighth), the rows held and every later one are
 * written, split by a hash of their partition keys ({@link KeyPartitions}: a partition's rows all land in one file),
 * into {@link #SPILL_FILES} files under {@code --spill-dir}; each file is then read back alone and bucketed as
 * above. A file still too large is split again by a differently salted hash, up to {@link #MAX_LEVEL} times (a
 * single partition larger than the memory cannot be split and fails with RESOURCE_EXHAUSTED). EXPLAIN ANALYZE shows
 * {@code spilled_bytes} and {@code spill_partitions}.
 */
public final class WindowExec extends Operator {
  /** A compiled call: its expressions over the input's batches. */
  record Call(WindowCall call, List<PhysicalExpr> args, List<PhysicalExpr> partition, List<SortExec.Key> order) {}

  static final int SPILL_FILES = 64;
  static final int MAX_LEVEL = 3;

  private final Operator input;
  private final Schema schema;
  private final List<Call> calls;
  private final String description;
  private final BufferAllocator allocator;
  private final int batchRows;
  /** Where buckets are evaluated besides the reading thread (null: on it alone), and how many at once. */
  private final ExecutorService executor;
  private final int threads;
  /** The per-partition top-k's memory. */
  private final MemoryReservation memory;
  /** Rows kept per partition (-1: all), see the constructor. */
  private final long partitionLimit;
  /** Rows the per-partition limit kept (for EXPLAIN ANALYZE), -1 without one. */
  private long keptRows = -1;
  /** Whether every call has the same, non-empty PARTITION BY: the input can be split by partition. */
  private final boolean partitioned;
  /**
   * Whether every call is an aggregate over its whole partition, all over one PARTITION BY (or none): computed by
   * hash aggregation and joined back to the rows in input order ({@link WholePartitions}), with no sort.
   */
  private final boolean wholePartitions;
  private WholePartitions whole;
  private boolean consumed;
  /** Input batches held (not yet spilled or bucketed) and their Arrow bytes. */
  private final List<VectorSchemaRoot> held = new ArrayList<>();
  private long heldBytes;
  /** The spill being written, and the files written still to read, with their levels. */
  private Partitions spilling;
  private final ArrayDeque<Partitions.File> spilled = new ArrayDeque<>();
  private long spilledBytes;
  private long spillPartitions;
  /** The buckets not yet output, in order; the one being output. */
  private final ArrayDeque<Task> tasks = new ArrayDeque<>();
  private WindowBucket current;
  private int emitted;
  private long bucketCount;
  private volatile boolean closing;

  /**
   * Window functions {@code calls} over {@code input}, output with {@code schema}. With {@code partitionLimit} k > 0
   * — every call a {@code row_number()} over the same partitioning and order, under a filter that keeps only
   * {@code row_number <= k} — only the first k rows of each partition (by the order, ties by input order, as the
   * stable sort numbers them) are kept, found with a bounded heap per partition
   * while the input streams ({@link PartitionTopK}: only they stay buffered), and only they are sorted and output.
   * Their row numbers are those of the whole input: a row's number counts the rows before it in its partition, and
   * every row before a kept row is kept. Buckets are evaluated on {@code executor}, up to {@code threads} at once.
   */
  WindowExec(Operator input, Schema schema, List<Call> calls, String description, BufferAllocator allocator, int batchRows,
      long partitionLimit, ExecutorService executor, int threads) {
    this.partitionLimit = partitionLimit;
    this.input = input;
    this.schema = schema;
    this.calls = List.copyOf(calls);
    this.description = description;
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.executor = threads > 1 ? executor : null;
    this.threads = this.executor == null ? 1 : threads;
    this.memory = new MemoryReservation(allocator, "the window function");
    List<dev.quiver.planner.expr.Expr> partitionBy = calls.get(0).call().partitionBy();
    boolean same = !partitionBy.isEmpty();
    for (Call c : calls) same &= c.call().partitionBy().equals(partitionBy);
    this.partitioned = same;
    boolean whole = partitionLimit <= 0;
    for (Call c : calls) whole &= c.call().partitionBy().equals(partitionBy) && wholePartition(c.call());
    this.wholePartitions = whole;
  }

  /**
   * Whether {@code call} is an aggregate over its whole partition: no ORDER BY (every row a peer of every other)
   * and a frame from UNBOUNDED PRECEDING to UNBOUNDED FOLLOWING, or to CURRENT ROW by RANGE or GROUPS, excluding
   * nothing.
   */
  private static boolean wholePartition(WindowCall call) {
    Frame f = call.frame();
    if (call.func() != WindowFunc.AGGREGATE || !call.orderBy().isEmpty() || f == null) return false;
    if (f.exclude() != Exclude.NO_OTHERS || f.start().kind() != BoundKind.UNBOUNDED_PRECEDING) return false;
    BoundKind end = f.end().kind();
    return end == BoundKind.UNBOUNDED_FOLLOWING || end == BoundKind.CURRENT_ROW && f.unit() != FrameUnit.ROWS;
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }
  @Override public String describe() { return description; }

  /**
   * With a per-partition limit: the rows it kept, {@code kept_rows}; when split, the number of {@code buckets}; after
   * spilling, {@code spilled_bytes} and {@code spill_partitions} (files written, counting those split again).
   */
  @Override
  public Map<String, Long> metrics() {
    if (partitionLimit <= 0 && bucketCount <= 1 && spillPartitions == 0) return super.metrics();
    Map<String, Long> m = new java.util.LinkedHashMap<>(super.metrics());
    if (keptRows >= 0) m.put("kept_rows", keptRows);
    if (bucketCount > 1) m.put("buckets", bucketCount);
    if (spillPartitions > 0) {
      m.put("spilled_bytes", spilledBytes);
      m.put("spill_partitions", spillPartitions);
    }
    return m;
  }

  /** Cancellation as the buckets check it: also when this operator is being closed. */
  private void check() {
    if (closing) throw new QuiverException(ErrorCode.CANCELLED, "the window function was closed");
    cancellation.check();
  }

  private void consume() {
    consumed = true;
    VectorSchemaRoot batch;
    if (partitionLimit > 0) { // only the first rows of each partition are buffered; then numbered as below
      Call first = calls.get(0);
      try (PartitionTopK topK = new PartitionTopK(first.partition(), partitionTypes(), first.order(), partitionLimit,
          input.schema().getFields(), batchRows, allocator, memory, PartitionTopK.COMPACT_AT)) {
        while ((batch = input.next()) != null) topK.add(batch);
        keptRows = topK.kept();
        held.addAll(topK.finish());
      }
    }
    while (partitionLimit <= 0 && (batch = input.next()) != null) {
      held.add(batch);
      heldBytes += allocated(batch);
      if (partitioned && overMemory()) spillHeld();
    }
    if (spilling != null) {
      spillHeld();
      spilling.finish(spilled);
      spilling = null;
    } else if (wholePartitions && !held.isEmpty()) {
      whole = new WholePartitions(new ArrayList<>(held));
      held.clear();
    } else {
      List<VectorSchemaRoot> all = new ArrayList<>(held);
      held.clear();
      split(all);
    }
  }

  /**
   * Aggregates over whole partitions: the partitions numbered by a {@link GroupTable} over the rows held, each call's
   * aggregate folded per partition by typed {@link GroupedAccumulator}s (as a hash aggregation does: the same
   * results, each row folded once in input order), and each batch then output as it came with every call's value
   * for its row's partition appended. Nothing is sorted or copied but the results.
   */
  private final class WholePartitions implements AutoCloseable {
    private final List<VectorSchemaRoot> batches;
    private final int[] groupOf;
    private final FieldVector[] results;
    /** The next batch to output and its first row. */
    private int next;
    private int start;

    WholePartitions(List<VectorSchemaRoot> batches) {
      this.batches = batches;
      results = new FieldVector[calls.size()];
      try {
        int rowCount = 0;
        for (VectorSchemaRoot b : batches) rowCount += b.getRowCount();
        groupOf = new int[rowCount];
        memory.add(4L * rowCount);
        int groups = 1;
        if (partitioned) {
          WindowBucket numbering = bucket(batches); // borrows the batches: not closed, its values are
          try {
            groups = numbering.numberPartitions(calls.get(0), groupOf).groups();
          } finally {
            numbering.releaseValues();
          }
        }
        List<Field> fields = schema.getFields();
        int inputColumns = input.schema().getFields().size();
        int[] ids = new int[batchRows];
        for (int c = 0; c < calls.size(); c++) {
          Call call = calls.get(c);
          GroupedAccumulator acc = GroupedAccumulator.of(Accumulator.factory(WindowBucket.aggregateCall(call.call())),
              memory);
          acc.grow(groups);
          memory.add(GroupedAccumulator.chargePerGroup(new GroupedAccumulator[] {acc}) * groups);
          int first = 0;
          for (VectorSchemaRoot b : batches) {
            int n = b.getRowCount();
            if (ids.length < n) ids = new int[n];
            System.arraycopy(groupOf, first, ids, 0, n);
            try (ColumnValues v = call.args().isEmpty() ? null : call.args().get(0).eval(b, allocator)) {
              acc.batch(v, n);
              acc.update(ids, 0, n);
            }
            first += n;
            check();
          }
          Field f = fields.get(inputColumns + c);
          FieldVector v = Vectors.create(f.getName(), f.getType(), allocator, groups);
          results[c] = v;
          acc.write(v, 0, groups);
          v.setValueCount(groups);
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    /** The next input batch with the calls' values appended, or null. */
    VectorSchemaRoot next() {
      if (next >= batches.size()) return null;
      VectorSchemaRoot b = batches.get(next);
      int n = b.getRowCount();
      long[] refs = new long[n];
      for (int i = 0; i < n; i++) refs[i] = Rows.ref(0, groupOf[start + i]);
      List<Field> fields = schema.getFields();
      int inputColumns = input.schema().getFields().size();
      List<FieldVector> appended = new ArrayList<>();
      try {
        for (int c = 0; c < calls.size(); c++) {
          appended.add(Gather.column(new FieldVector[] {results[c]}, fields.get(inputColumns + c), refs, 0, n, allocator));
        }
      } catch (RuntimeException e) {
        appended.forEach(FieldVector::close);
        throw e;
      }
      List<FieldVector> vectors = new ArrayList<>(b.getFieldVectors()); // handed over with the batch
      vectors.addAll(appended);
      batches.set(next++, null);
      start += n;
      return Rows.root(fields, vectors, n);
    }

    @Override
    public void close() {
      for (VectorSchemaRoot b : batches) if (b != null) b.close();
      batches.clear();
      for (FieldVector v : results) if (v != null) v.close();
    }
  }

  private List<ArrowType> partitionTypes() {
    List<ArrowType> types = new ArrayList<>();
    for (dev.quiver.planner.expr.Expr e : calls.get(0).call().partitionBy()) types.add(e.type());
    return types;
  }

  /** The memory {@code batch}'s buffers take (their capacity, which is what the allocator counts). */
  private static long allocated(VectorSchemaRoot batch) {
    long bytes = 0;
    for (FieldVector v : batch.getFieldVectors()) {
      for (org.apache.arrow.memory.ArrowBuf b : v.getBuffers(false)) bytes += b.capacity();
    }
    return bytes;
  }

  /**
   * The rows held must go to disk: before spilling, past a quarter of the query's limit (bucketing them in memory
   * copies them once more, and the buckets' working memory takes another quarter) or past {@link
   * MemoryReservation#spillAt} while holding an eighth of it; once spilling, every sixteenth of the limit.
   */
  private boolean overMemory() {
    long limit = allocator.getLimit();
    if (limit <= 0 || limit == Long.MAX_VALUE) return false;
    if (spilling != null) return heldBytes >= limit / 16;
    return heldBytes > limit / 4
        || allocator.getAllocatedMemory() > MemoryReservation.spillAt(limit) && heldBytes >= limit / 8;
  }

  /**
   * Writes the rows held to the spill's files by their partition keys, and releases them: a few batches at a time
   * (about 1/32 of the limit), each released once written, so that spilling needs little more memory than it frees.
   */
  private void spillHeld() {
    if (spilling == null) spilling = new Partitions(0);
    long slice = Math.max(1L << 20, allocator.getLimit() / 32);
    List<VectorSchemaRoot> batches = new ArrayList<>();
    long bytes = 0;
    while (!held.isEmpty()) {
      VectorSchemaRoot b = held.remove(0);
      batches.add(b);
      bytes += allocated(b);
      if (bytes >= slice || held.isEmpty()) {
        try {
          spilling.add(batches);
        } finally {
          batches.forEach(VectorSchemaRoot::close);
          batches.clear();
          bytes = 0;
        }
      }
    }
    heldBytes = 0;
  }

  /**
   * Splits {@code batches} (owned from now on) into buckets of whole partitions when they are many rows for the
   * query's memory and every call has the same PARTITION BY: the partitions are numbered by a {@link GroupTable} over
   * the partition columns and packed, in the order they first appear, into buckets of about {@link #bucketTarget}
   * rows (a larger partition alone), and each bucket's rows are copied, in input order, into a batch of its own
   * ({@link Gather#deal}: the input read once, in order; then released). Otherwise one bucket holds every row. The
   * buckets are queued for evaluation.
   */
  private void split(List<VectorSchemaRoot> batches) {
    WindowBucket whole = bucket(batches);
    int rowCount = whole.rowCount;
    long target = bucketTarget();
    if (rowCount == 0) {
      whole.close();
      return;
    }
    if (!partitioned || rowCount <= target) {
      whole.sortOn(executor, threads); // one bucket: its sort is split instead
      enqueue(whole);
      return;
    }
    List<VectorSchemaRoot> dealt;
    int[] sizesOf;
    try {
      int[] groupOf = new int[rowCount];
      whole.charge(8L * rowCount);
      GroupTable partitions = whole.numberPartitions(calls.get(0), groupOf);
      int groups = partitions.groups();
      long[] sizes = new long[groups];
      for (int g : groupOf) sizes[g]++;
      int[] bucketOf = new int[groups];
      int bucket = 0;
      long filled = 0;
      for (int g = 0; g < groups; g++) {
        if (filled > 0 && filled + sizes[g] > target) {
          bucket++;
          filled = 0;
        }
        bucketOf[g] = bucket;
        filled += sizes[g];
      }
      if (bucket == 0) {
        WindowBucket one = whole;
        whole = null;
        one.sortOn(executor, threads);
        enqueue(one);
        return;
      }
      sizesOf = new int[bucket + 1];
      int[] rowBucket = new int[rowCount];
      whole.charge(4L * rowCount);
      for (int r = 0; r < rowCount; r++) sizesOf[rowBucket[r] = bucketOf[groupOf[r]]]++;
      check();
      dealt = Gather.deal(whole.batches, input.schema().getFields(), rowBucket, sizesOf, allocator);
    } finally {
      if (whole != null) whole.close();
    }
    for (int k = 0; k < dealt.size(); k++) {
      try {
        enqueue(bucket(List.of(dealt.get(k))));
      } catch (RuntimeException e) {
        for (int j = k + 1; j < dealt.size(); j++) dealt.get(j).close();
        throw e;
      }
    }
  }

  private WindowBucket bucket(List<VectorSchemaRoot> batches) {
    return new WindowBucket(batches, calls, schema, input.schema().getFields().size(), allocator, batchRows, this::check);
  }

  private void enqueue(WindowBucket b) {
    tasks.add(new Task(b));
    bucketCount++;
  }

  /**
   * Rows a bucket should hold: at most {@link #BUCKET_ROWS}, so that its arrays (read in the sort's order, that is at
   * random) stay near the processor's caches, and a quarter of the query's memory at about 128 bytes a row shared by
   * the buckets evaluated at once; at least 4,096.
   */
  private long bucketTarget() {
    long limit = allocator.getLimit();
    return Math.max(4096, Math.min(BUCKET_ROWS, limit / 4 / 128 / (threads + 1)));
  }

  static final long BUCKET_ROWS = 1 << 18;

  /** The next bucket, evaluated (its successors begun on the workers); null when every one is done. */
  private WindowBucket nextBucket() {
    while (tasks.isEmpty()) {
      Partitions.File file = spilled.poll();
      if (file == null) return null;
      readBack(file);
    }
    Task next = tasks.poll();
    int ahead = 0;
    for (Task t : tasks) {
      if (ahead++ >= threads) break;
      t.submit();
    }
    return next.await();
  }

  /**
   * Reads a spill file back and buckets it; a file larger than a quarter of the query's limit is split again into
   * files of the next level instead.
   */
  private void readBack(Partitions.File file) {
    long limit = allocator.getLimit();
    boolean large = limit > 0 && limit < Long.MAX_VALUE && file.bytes() > limit / 4;
    try (file) {
      if (large) {
        if (file.level() + 1 >= MAX_LEVEL) {
          throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "the window function needs more memory than the "
              + "query's limit of " + (limit >> 20) + " MiB (--query-memory): after splitting its input by PARTITION BY "
              + MAX_LEVEL + " times, " + (file.bytes() >> 20) + " MiB of it are still in one piece (one partition "
              + "holds them, or a few large ones do)");
        }
        Partitions again = new Partitions(file.level() + 1);
        try {
          VectorSchemaRoot b;
          while ((b = file.read()) != null) {
            try {
              again.add(List.of(b));
            } finally {
              b.close();
            }
            check();
          }
          again.finish(spilled);
        } catch (RuntimeException e) {
          again.close();
          throw e;
        }
        return;
      }
      List<VectorSchemaRoot> batches = new ArrayList<>();
      try {
        VectorSchemaRoot b;
        while ((b = file.read()) != null) batches.add(b);
      } catch (RuntimeException e) {
        batches.forEach(VectorSchemaRoot::close);
        throw e;
      }
      split(batches);
    }
  }

  /**
   * A bucket waiting for evaluation: by a worker of the executor or by the reading thread, whichever claims it first
   * (a bucket is evaluated once, on one thread).
   */
  private final class Task {
    final WindowBucket bucket;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CompletableFuture<WindowBucket> done = new CompletableFuture<>();
    private boolean submitted;

    Task(WindowBucket bucket) {
      this.bucket = bucket;
    }

    void submit() {
      if (submitted || executor == null) return;
      submitted = true;
      try {
        executor.execute(this::run);
      } catch (RejectedExecutionException e) {
        // the pool is shutting down: the reading thread evaluates it
      }
    }

    private void run() {
      if (!claimed.compareAndSet(false, true)) return;
      try {
        bucket.evaluate();
        done.complete(bucket);
      } catch (Throwable t) {
        done.completeExceptionally(t);
      }
    }

    /** Evaluates the bucket here unless a worker has begun it, then waits for it; its failure is thrown here. */
    WindowBucket await() {
      run();
      try {
        return done.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        discard();
        throw new QuiverException(ErrorCode.CANCELLED, "the window function was interrupted");
      } catch (ExecutionException e) {
        discard();
        if (e.getCause() instanceof RuntimeException r) throw r;
        if (e.getCause() instanceof Error err) throw err;
        throw new IllegalStateException(e.getCause());
      }
    }

    /** Closes the bucket once no thread evaluates it (waiting for a worker that has begun). */
    void discard() {
      if (claimed.compareAndSet(false, true)) {
        bucket.close();
        return;
      }
      try {
        done.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException ignored) {
        // failed: closed all the same
      }
      bucket.close();
    }
  }

  /**
   * The input split into {@link #SPILL_FILES} Arrow IPC files by a hash of its partition keys at one level, in a
   * directory of its own under {@code --spill-dir}; closing deletes what is left.
   */
  private final class Partitions implements AutoCloseable {
    private final int level;
    private final java.nio.file.Path dir;
    private final SpillFile[] files = new SpillFile[SPILL_FILES];

    /** One file, read back after the spill: owns its part of the directory; closing deletes it. */
    record File(SpillFile spill, java.nio.file.Path dir, int level, long bytes) implements AutoCloseable {
      VectorSchemaRoot read() {
        return spill.read();
      }

      @Override
      public void close() {
        spill.close();
        SpillFile.deleteDirectory(dir); // once its last file is gone
      }
    }

    Partitions(int level) {
      this.level = level;
      this.dir = SpillFile.directory("quiver-window-", "the window function");
    }

    /** Writes the rows of {@code batches} (not closed here) to the files of their partition keys. */
    void add(List<VectorSchemaRoot> batches) {
      Call first = calls.get(0);
      List<Field> fields = input.schema().getFields();
      int rows = 0;
      for (VectorSchemaRoot b : batches) rows += b.getRowCount();
      if (rows == 0) return;
      int[] part = new int[rows];
      int[] sizes = new int[SPILL_FILES];
      int at = 0;
      for (VectorSchemaRoot b : batches) {
        int n = b.getRowCount();
        List<ColumnValues> values = new ArrayList<>();
        try {
          List<FieldVector> keys = new ArrayList<>();
          for (PhysicalExpr e : first.partition()) {
            ColumnValues v = e.eval(b, allocator);
            values.add(v);
            if (v.vector() != null) keys.add(v.vector()); // a constant is one value for every row
          }
          int[] p = KeyPartitions.of(keys, n, SPILL_FILES, level);
          for (int i = 0; i < n; i++) sizes[part[at + i] = p[i]]++;
          at += n;
        } finally {
          values.forEach(ColumnValues::close);
        }
      }
      check();
      List<VectorSchemaRoot> dealt = Gather.deal(batches, fields, part, sizes, allocator);
      try {
        for (int f = 0; f < SPILL_FILES; f++) {
          if (sizes[f] == 0) continue;
          if (files[f] == null) {
            files[f] = new SpillFile(dir.resolve("partition-" + f + ".arrows"), input.schema(), allocator,
                "the window function");
          }
          files[f].write(dealt.get(f));
        }
      } finally {
        dealt.forEach(VectorSchemaRoot::close);
      }
    }

    /** Ends writing; each file written goes on {@code out} to be read back (which then owns it). */
    void finish(ArrayDeque<File> out) {
      try {
        for (SpillFile f : files) if (f != null) f.finish();
      } catch (RuntimeException e) {
        close();
        throw e;
      }
      for (int f = 0; f < SPILL_FILES; f++) {
        if (files[f] == null) continue;
        spilledBytes += files[f].bytes();
        spillPartitions++;
        out.add(new File(files[f], dir, level, files[f].bytes()));
        files[f] = null;
      }
      SpillFile.deleteDirectory(dir); // nothing written: empty
    }

    @Override
    public void close() {
      for (int f = 0; f < SPILL_FILES; f++) {
        if (files[f] != null) files[f].close();
        files[f] = null;
      }
      SpillFile.deleteDirectory(dir);
    }
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (!consumed) consume();
    if (whole != null) return whole.next();
    while (current == null || emitted >= current.order.length) {
      if (current != null) {
        current.close();
        current = null;
      }
      current = nextBucket();
      emitted = 0;
      if (current == null) return null;
    }
    int count = Math.min(batchRows, current.order.length - emitted);
    List<Field> fields = schema.getFields();
    int inputColumns = input.schema().getFields().size();
    List<FieldVector> vectors = new ArrayList<>(Rows.copy(current.batches, 0, fields.subList(0, inputColumns),
        current.order, emitted, count, allocator));
    try {
      for (int c = 0; c < calls.size(); c++) {
        Field f = fields.get(inputColumns + c);
        FieldVector v = Vectors.create(f.getName(), f.getType(), allocator, count);
        vectors.add(v);
        current.results[c].write(v, current.orderLocal, emitted, count);
        v.setValueCount(count);
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    emitted += count;
    return Rows.root(fields, vectors, count);
  }

  @Override
  public void close() {
    closing = true;
    super.close();
    if (whole != null) whole.close();
    whole = null;
    held.forEach(VectorSchemaRoot::close);
    held.clear();
    for (Task t : tasks) t.discard();
    tasks.clear();
    if (current != null) current.close();
    current = null;
    if (spilling != null) spilling.close();
    spilling = null;
    spilled.forEach(Partitions.File::close);
    spilled.clear();
    memory.close();
  }
}
