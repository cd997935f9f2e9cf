package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.plan.LogicalPlan.JoinType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A hash join: the right input is the build side (retained, hashed on its key expressions), the left
 * input is probed batch by batch. Equal keys are candidates; the residual condition (evaluated on the
 * joined candidate rows) decides. NULL keys never match. Without keys every pair is a candidate (a
 * nested-loop / cross join). NULL_AWARE_ANTI is {@code NOT IN}: a probe row is dropped when some build
 * row could be equal to it (a NULL on either side counts as "could be").
 * <p>Output streams: candidate pairs are evaluated a chunk of at most the session's batch rows at a time,
 * and the probe stops after each chunk that produced rows, keeping its position (probe row, index in its
 * candidates) until the next call. So a fan-out join under a LIMIT stops after the first batches, memory
 * stays bounded whatever the fan-out, and cancellation is checked after every chunk, even when the
 * condition rejects every candidate.
 */
public final class HashJoinExec extends Operator {
  private static final int CHUNK = 1 << 16;

  private final Operator left;
  private final Operator right;
  private final JoinType type;
  private final Schema schema;
  private final String description;
  private final BufferAllocator allocator;
  private final List<PhysicalExpr> leftKeys;
  private final List<PhysicalExpr> rightKeys;
  /** Per key pair: NULL matches NULL ({@code IS NOT DISTINCT FROM}) instead of matching nothing. */
  private final boolean[] nullSafe;
  /**
   * One or two key pairs, each of the LONG family and none null-safe: the build side is indexed in a primitive hash
   * table (two keys packed into one long when every build key fits 32 bits, as TPC-H's and most surrogate keys do).
   */
  private final boolean longKey;
  private final PhysicalExpr residual;
  private final Schema joinedSchema;
  private final List<Field> leftFields;
  private final List<Field> rightFields;
  private final List<Field> outFields;
  private final MemoryReservation memory;

  private final List<VectorSchemaRoot> build = new ArrayList<>();
  private final List<Integer> buildOffsets = new ArrayList<>();
  private Map<Object, long[]> table;
  private long[] allBuild;
  private long[] nullKeyBuild = new long[0];
  private BitSet buildMatched;
  private int buildRows;
  private boolean probeDone;
  private final ArrayDeque<VectorSchemaRoot> pending = new ArrayDeque<>();
  private long candidates;
  /** At most this many rows per output batch (the session's batch rows). */
  private final int batchRows;
  /** Candidate pairs evaluated at a time: at most {@link #batchRows}, so their output is a bounded batch. */
  private final int chunk;
  private final int[] probeRows;
  private final long[] buildRefs;
  private int filled;
  private long[] everyBuild;
  private long[] unmatchedBuild;
  private int unmatchedPos;

  // the probe position, kept between calls: the probe batch, its keys, the next row to look up, and the
  // candidates of the row being emitted (curRefs then curExtra) with the index of the next one
  private VectorSchemaRoot probe;
  private List<ColumnValues> probeKeys;
  private boolean[] matched;
  private boolean[] unknown;
  private int probeRow;
  private long[] curRefs;
  private long[] curExtra;
  private int curRow;
  private int refPos;

  /**
   * {@code leftKeys[i]} (over the left input) equals {@code rightKeys[i]} (over the right input); {@code longKey}: one
   * pair, of the LONG family. {@code residual} (null for none) reads the left columns followed by the right ones.
   * The output is {@code schema}; {@code description} is the EXPLAIN text.
   */
  HashJoinExec(Operator left, Operator right, JoinType type, Schema schema, List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys, boolean longKey, PhysicalExpr residual, String description,
      BufferAllocator allocator, int batchRows) {
    this(left, right, type, schema, leftKeys, rightKeys, new boolean[leftKeys.size()], longKey, residual, description,
        allocator, batchRows);
  }

  /**
   * As above; {@code nullSafe[i]}: the pair {@code i} is {@code IS NOT DISTINCT FROM} (NULL matches NULL, a NULL
   * key is never unknown). A null-safe pair cannot be the {@code longKey}.
   */
  HashJoinExec(Operator left, Operator right, JoinType type, Schema schema, List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys, boolean[] nullSafe, boolean longKey, PhysicalExpr residual, String description,
      BufferAllocator allocator, int batchRows) {
    this.left = left;
    this.batchRows = Math.max(1, batchRows);
    this.chunk = Math.min(CHUNK, this.batchRows);
    this.probeRows = new int[chunk];
    this.buildRefs = new long[chunk];
    this.right = right;
    this.type = type;
    this.schema = schema;
    this.description = description;
    this.allocator = allocator;
    if (leftKeys.size() != rightKeys.size()) throw new IllegalArgumentException("join keys come in pairs");
    this.leftKeys = List.copyOf(leftKeys);
    this.rightKeys = List.copyOf(rightKeys);
    if (nullSafe.length != leftKeys.size()) throw new IllegalArgumentException("one null-safe flag a key pair");
    this.nullSafe = nullSafe.clone();
    if (longKey && (leftKeys.size() > 2 || this.nullSafe[0] || this.nullSafe[leftKeys.size() - 1])) {
      throw new IllegalArgumentException("a long key is one or two key pairs, none null-safe");
    }
    this.longKey = longKey;
    this.leftFields = left.schema().getFields();
    this.rightFields = right.schema().getFields();
    List<Field> joined = new ArrayList<>(leftFields);
    joined.addAll(rightFields);
    this.joinedSchema = new Schema(joined);
    this.residual = residual;
    this.outFields = schema.getFields();
    this.memory = new MemoryReservation(allocator, "the hash join's build side");
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(left, right); }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("build_rows", (long) buildRows);
    m.put("candidates", candidates);
    return m;
  }

  /**
   * For one integer-like key, no boxing: key → the first of its build rows (an index into {@link #chainRefs}), each
   * row's next one with the same key in {@link #chainNext} (-1 ends), in build order.
   */
  private LongIntMap longTable;
  /** Two keys that do not both fit 32 bits: (first, second) → the first of their build rows. */
  private Map<LongPair, Integer> pairTable;
  private long[] chainRefs;
  private int[] chainNext;
  /** Where the build keys go as a runtime filter (null: nowhere): the probe side's scan, its column and type. */
  private ScanExec runtimeTarget;
  private String runtimeColumn;
  private org.apache.arrow.vector.types.pojo.ArrowType runtimeType;
  /** Up to this many distinct build keys go as a set ({@code IN}); more as their range. */
  static final int RUNTIME_SET_MAX = 1024;

  /**
   * Sends the build side's keys, once built, to {@code scan} as a filter on {@code column} (of {@code type}): their
   * set when at most {@link #RUNTIME_SET_MAX}, else their range; no rows: FALSE. Legal only where the join drops
   * probe rows without a match (INNER, SEMI, RIGHT) and the column reaches the probe key unchanged (the planner's
   * {@link PhysicalPlanner#traceToScan}); the scan only prunes with it. A NULL key matches nothing, and the filter,
   * which no NULL satisfies, agrees.
   */
  void runtimeFilterTo(ScanExec scan, String column, org.apache.arrow.vector.types.pojo.ArrowType type) {
    this.runtimeTarget = scan;
    this.runtimeColumn = column;
    this.runtimeType = type;
  }

  private void sendRuntimeFilter(long[] keys) {
    if (runtimeTarget == null || longTable == null || leftKeys.size() != 1) return;
    dev.quiver.scan.predicate.ScanPredicate filter;
    String shown;
    if (keys.length == 0) {
      filter = new dev.quiver.scan.predicate.ScanPredicate.Const(false);
      shown = "FALSE (no build rows)";
    } else if (longTable.size() <= RUNTIME_SET_MAX) {
      long[] distinct = longTable.keys();
      java.util.Arrays.sort(distinct);
      List<Object> values = new ArrayList<>(distinct.length);
      for (long k : distinct) values.add(k);
      filter = new dev.quiver.scan.predicate.ScanPredicate.In(runtimeColumn, values, runtimeType);
      shown = distinct.length <= 8 ? filter.toString() : runtimeColumn + " IN (" + distinct.length + " values from "
          + dev.quiver.common.Values.toSql(distinct[0], runtimeType) + " to "
          + dev.quiver.common.Values.toSql(distinct[distinct.length - 1], runtimeType) + ")";
    } else {
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (long k : keys) {
        min = Math.min(min, k);
        max = Math.max(max, k);
      }
      filter = dev.quiver.scan.predicate.ScanPredicate.and(List.of(
          new dev.quiver.scan.predicate.ScanPredicate.Compare(runtimeColumn, dev.quiver.scan.predicate.ScanPredicate.Op.GE,
              min, runtimeType),
          new dev.quiver.scan.predicate.ScanPredicate.Compare(runtimeColumn, dev.quiver.scan.predicate.ScanPredicate.Op.LE,
              max, runtimeType)));
      shown = filter.toString();
    }
    runtimeTarget.runtimeFilter(filter, shown);
  }

  /** The build side's columns, per output column then batch (for gathering output rows). */
  private FieldVector[][] buildSources;

  private void buildSide() {
    table = new HashMap<>();
    Map<Object, LongList> lists = new HashMap<>();
    LongList chainKeys = longKey ? new LongList() : null;
    LongList chainRows = longKey ? new LongList() : null;
    LongList chainSecond = longKey && rightKeys.size() == 2 ? new LongList() : null;
    LongList all = new LongList();
    LongList nullKeys = new LongList();
    VectorSchemaRoot batch;
    while ((batch = right.next()) != null) {
      int b = build.size();
      build.add(batch);
      buildOffsets.add(buildRows);
      int n = batch.getRowCount();
      buildRows += n;
      if (rightKeys.isEmpty()) {
        for (int i = 0; i < n; i++) all.add(Rows.ref(b, i));
        memory.add(8L * n);
        continue;
      }
      List<ColumnValues> kv = new ArrayList<>();
      try {
        for (PhysicalExpr e : rightKeys) kv.add(e.eval(batch, allocator));
        for (int i = 0; i < n; i++) {
          if (Keys.anyNull(kv, nullSafe, i)) {
            nullKeys.add(Rows.ref(b, i));
            continue;
          }
          if (longKey) {
            chainKeys.add(kv.get(0).getLong(i));
            if (chainSecond != null) chainSecond.add(kv.get(1).getLong(i));
            chainRows.add(Rows.ref(b, i));
            memory.add(chainSecond == null ? 20 : 28); // keys, reference, next
            continue;
          }
          Object key = Keys.row(kv, i);
          LongList l = lists.get(key);
          if (l == null) {
            l = new LongList();
            lists.put(key, l);
            memory.add(64 + Keys.sizeOf(key));
          }
          l.add(Rows.ref(b, i));
          memory.add(8);
        }
      } finally {
        kv.forEach(ColumnValues::close);
      }
    }
    for (Map.Entry<Object, LongList> e : lists.entrySet()) table.put(e.getKey(), e.getValue().toArray());
    if (longKey) {
      // the chains are linked from the last row to the first, so that each key's rows come in build order
      long[] keys = chainKeys.toArray();
      chainRefs = chainRows.toArray();
      chainNext = new int[keys.length];
      long[] second = chainSecond == null ? null : chainSecond.toArray();
      if (second != null && !(fitsInt(keys) && fitsInt(second))) {
        pairTable = new HashMap<>();
        memory.add(64L * keys.length);
        for (int r = keys.length - 1; r >= 0; r--) {
          Integer next = pairTable.put(new LongPair(keys[r], second[r]), r);
          chainNext[r] = next == null ? -1 : next;
        }
      } else {
        if (second != null) for (int r = 0; r < keys.length; r++) keys[r] = pack(keys[r], second[r]);
        longTable = new LongIntMap(keys.length);
        memory.add(longTable.bytes());
        for (int r = keys.length - 1; r >= 0; r--) chainNext[r] = longTable.replace(keys[r], r);
        if (second == null) sendRuntimeFilter(keys);
      }
    }
    buildSources = new FieldVector[rightFields.size()][build.size()];
    for (int c = 0; c < rightFields.size(); c++) {
      for (int b = 0; b < build.size(); b++) buildSources[c][b] = build.get(b).getVector(c);
    }
    allBuild = all.toArray();
    nullKeyBuild = nullKeys.toArray();
    if (type == JoinType.RIGHT || type == JoinType.FULL) buildMatched = new BitSet(buildRows);
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (table == null) buildSide();
    while (true) {
      if (!pending.isEmpty()) return pending.poll();
      if (probe != null) {
        advance();
        continue;
      }
      if (probeDone) {
        if (unmatchedBuild == null || unmatchedPos >= unmatchedBuild.length) return null;
        emitUnmatchedBuild();
        continue;
      }
      VectorSchemaRoot batch = left.next();
      if (batch == null) {
        probeDone = true;
        if (buildMatched != null) unmatchedBuild = unmatchedBuildRows();
        continue;
      }
      startProbe(batch);
    }
  }

  /** Takes {@code batch} as the probe batch: its keys are evaluated, its rows are looked up by {@link #advance()}. */
  private void startProbe(VectorSchemaRoot batch) {
    probe = batch;
    int n = batch.getRowCount();
    matched = new boolean[n];
    unknown = type == JoinType.NULL_AWARE_ANTI ? new boolean[n] : null;
    probeRow = 0;
    curRefs = null;
    curExtra = null;
    filled = 0;
    probeKeys = new ArrayList<>();
    for (PhysicalExpr e : leftKeys) probeKeys.add(e.eval(batch, allocator));
  }

  /**
   * Continues probing the current probe batch until one chunk of candidate pairs produced output or the
   * batch is done. The position (probe row, and the index in that row's candidates) is kept between
   * calls, so one probe row with millions of matches is emitted over many calls, and cancellation is
   * checked for every chunk of candidates even when the condition rejects all of them.
   */
  private void advance() {
    JoinType type = this.type;
    boolean needPairs = !type.leftOnly() || residual != null;
    int n = probe.getRowCount();
    while (true) {
      if (curRefs != null) {
        int lenA = curRefs.length;
        int len = lenA + (curExtra == null ? 0 : curExtra.length);
        while (refPos < len) {
          if (filled == chunk) {
            flush();
            if (!pending.isEmpty()) return;
            cancellation.check();
          }
          int take = Math.min(chunk - filled, len - refPos);
          for (int k = 0; k < take; k++, refPos++) {
            probeRows[filled] = curRow;
            buildRefs[filled++] = refPos < lenA ? curRefs[refPos] : curExtra[refPos - lenA];
          }
        }
        curRefs = null;
        curExtra = null;
      }
      if (probeRow >= n) break;
      int i = probeRow++;
      long[] refs;
      long[] extra = null;
      if (leftKeys.isEmpty()) {
        refs = allBuild;
      } else if (Keys.anyNull(probeKeys, nullSafe, i)) {
        if (unknown == null || buildRows == 0) continue;
        if (residual == null) {
          unknown[i] = true;
          continue;
        }
        refs = everyBuildRow();
      } else {
        if (longKey) {
          int at = chainHead(i);
          refs = at < 0 ? null : chain(at);
        } else {
          refs = table.get(Keys.row(probeKeys, i));
        }
        if (unknown != null && nullKeyBuild.length > 0) {
          extra = nullKeyBuild;
          if (refs == null) refs = new long[0];
        }
      }
      if (refs == null || refs.length + (extra == null ? 0 : extra.length) == 0) continue;
      if (!needPairs) {
        matched[i] = true;
        continue;
      }
      curRefs = refs;
      curExtra = extra;
      curRow = i;
      refPos = 0;
    }
    if (filled > 0) flush();
    finishProbe();
  }

  /** The first build row (index into {@link #chainRefs}) whose keys equal probe row {@code i}'s, or -1. */
  private int chainHead(int i) {
    long a = probeKeys.get(0).getLong(i);
    if (probeKeys.size() == 1) return longTable.get(a);
    long b = probeKeys.get(1).getLong(i);
    if (pairTable != null) {
      Integer at = pairTable.get(new LongPair(a, b));
      return at == null ? -1 : at;
    }
    // packed: a probe key beyond 32 bits equals no build key
    return a == (int) a && b == (int) b ? longTable.get(pack(a, b)) : -1;
  }

  private static long pack(long a, long b) {
    return (a << 32) | (b & 0xFFFFFFFFL);
  }

  private static boolean fitsInt(long[] values) {
    for (long v : values) if (v != (int) v) return false;
    return true;
  }

  /** Two keys that do not pack into one long. */
  private record LongPair(long a, long b) {}

  /** The build rows of the chain starting at index {@code at}, in build order (most keys have one: no list). */
  private long[] chain(int at) {
    if (chainNext[at] < 0) {
      single[0] = chainRefs[at];
      return single;
    }
    int n = 0;
    for (int j = at; j >= 0; j = chainNext[j]) n++;
    long[] out = new long[n];
    n = 0;
    for (int j = at; j >= 0; j = chainNext[j]) out[n++] = chainRefs[j];
    return out;
  }

  /** The one candidate of a unique key ({@link #chain}); used before the next lookup. */
  private final long[] single = new long[1];

  /** The probe batch is done: emits its rows that a left-only or outer join keeps, and releases it. */
  private void finishProbe() {
    try {
      switch (type) {
        case LEFT, FULL -> emitProbeRows(false, true);
        case SEMI -> emitProbeRows(true, false);
        case ANTI -> emitProbeRows(false, false);
        case NULL_AWARE_ANTI -> {
          for (int i = 0; i < matched.length; i++) matched[i] |= unknown[i];
          emitProbeRows(false, false);
        }
        default -> { }
      }
    } finally {
      releaseProbe();
    }
  }

  private void releaseProbe() {
    if (probeKeys != null) probeKeys.forEach(ColumnValues::close);
    probeKeys = null;
    if (probe != null) probe.close();
    probe = null;
    curRefs = null;
    curExtra = null;
  }

  /** Every build row (for a NULL probe key of NOT IN with a residual), computed once. */
  private long[] everyBuildRow() {
    if (everyBuild != null) return everyBuild;
    long[] out = new long[buildRows];
    int k = 0;
    for (int b = 0; b < build.size(); b++) {
      int n = build.get(b).getRowCount();
      for (int i = 0; i < n; i++) out[k++] = Rows.ref(b, i);
    }
    memory.add(8L * buildRows);
    everyBuild = out;
    return out;
  }

  /**
   * Evaluates the chunk of candidate pairs collected so far; keeps matches (and emits them, at most
   * {@link #chunk} rows, for joins that output pairs).
   */
  private void flush() {
    int count = filled;
    filled = 0;
    candidates += count;
    long[] probeRefs = new long[count];
    for (int k = 0; k < count; k++) probeRefs[k] = Rows.ref(0, probeRows[k]);
    List<FieldVector> vectors = new ArrayList<>(Rows.copy(List.of(probe), 0, leftFields, probeRefs, 0, count, allocator));
    try {
      buildColumns(vectors, buildRefs, 0, count);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    VectorSchemaRoot joined = new VectorSchemaRoot(joinedSchema.getFields(), vectors, count);
    int[] keep = new int[count];
    int kept = 0;
    try {
      if (residual == null) {
        for (int k = 0; k < count; k++) keep[kept++] = k;
      } else {
        try (ColumnValues mask = residual.eval(joined, allocator)) {
          for (int k = 0; k < count; k++) if (!mask.isNull(k) && mask.getBool(k)) keep[kept++] = k;
        }
      }
      for (int k = 0; k < kept; k++) {
        matched[probeRows[keep[k]]] = true;
        if (buildMatched != null) {
          long r = buildRefs[keep[k]];
          buildMatched.set(buildOffsets.get(Rows.batch(r)) + Rows.row(r));
        }
      }
      if (type.leftOnly() || kept == 0) return;
      VectorSchemaRoot out = kept == count ? null : FilterExec.take(joined, keep, kept, allocator);
      if (out == null) {
        out = joined;
        joined = null;
      }
      pending.add(Rows.root(outFields, new ArrayList<>(out.getFieldVectors()), out.getRowCount()));
    } finally {
      if (joined != null) joined.close();
    }
  }

  /**
   * Emits the probe rows whose {@code matched} flag equals {@code want}, padded with NULLs when asked, in
   * batches of at most {@link #batchRows} rows.
   */
  private void emitProbeRows(boolean want, boolean padRight) {
    int n = probe.getRowCount();
    int[] rows = new int[n];
    int count = 0;
    for (int i = 0; i < n; i++) if (matched[i] == want) rows[count++] = i;
    for (int from = 0; from < count; from += batchRows) {
      int len = Math.min(batchRows, count - from);
      int[] part = from == 0 ? rows : java.util.Arrays.copyOfRange(rows, from, from + len);
      List<FieldVector> vectors;
      try (VectorSchemaRoot taken = FilterExec.take(probe, part, len, allocator)) {
        vectors = new ArrayList<>();
        for (FieldVector v : taken.getFieldVectors()) {
          FieldVector t = v.getField().createVector(allocator);
          v.makeTransferPair(t).transfer();
          t.setValueCount(len);
          vectors.add(t);
        }
      }
      if (padRight) {
        try {
          vectors.addAll(Rows.nulls(rightFields, len, allocator));
        } catch (RuntimeException e) {
          vectors.forEach(FieldVector::close);
          throw e;
        }
      }
      pending.add(Rows.root(outFields, vectors, len));
    }
  }

  /** The build rows no probe row matched (RIGHT and FULL joins), once the probe side is done. */
  private long[] unmatchedBuildRows() {
    LongList refs = new LongList();
    for (int b = 0; b < build.size(); b++) {
      int n = build.get(b).getRowCount();
      for (int i = 0; i < n; i++) if (!buildMatched.get(buildOffsets.get(b) + i)) refs.add(Rows.ref(b, i));
    }
    long[] r = refs.toArray();
    memory.add(8L * r.length);
    return r;
  }

  /** Adds to {@code vectors} the build side's columns of the rows {@code refs[from, from + count)}. */
  private void buildColumns(List<FieldVector> vectors, long[] refs, int from, int count) {
    for (int c = 0; c < rightFields.size(); c++) {
      vectors.add(Gather.column(buildSources[c], rightFields.get(c), refs, from, count, allocator));
    }
  }

  /** Emits the next batch of unmatched build rows, padded with NULLs on the probe side. */
  private void emitUnmatchedBuild() {
    int count = Math.min(batchRows, unmatchedBuild.length - unmatchedPos);
    List<FieldVector> vectors = new ArrayList<>(Rows.nulls(leftFields, count, allocator));
    try {
      buildColumns(vectors, unmatchedBuild, unmatchedPos, count);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    unmatchedPos += count;
    pending.add(Rows.root(outFields, vectors, count));
  }

  @Override
  public void close() {
    super.close();
    releaseProbe();
    build.forEach(VectorSchemaRoot::close);
    build.clear();
    pending.forEach(VectorSchemaRoot::close);
    pending.clear();
    memory.close();
  }

  /** A growable list of longs. */
  static final class LongList {
    private long[] a = new long[4];
    private int n;
    void add(long v) {
      if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
      a[n++] = v;
    }
    long[] toArray() { return java.util.Arrays.copyOf(a, n); }
  }
}
