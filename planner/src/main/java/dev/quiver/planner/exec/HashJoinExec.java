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
  /** Candidate pairs evaluated, by every prober (the scan's tasks' too). */
  private final java.util.concurrent.atomic.LongAdder candidates = new java.util.concurrent.atomic.LongAdder();
  /** At most this many rows per output batch (the session's batch rows). */
  private final int batchRows;
  /** Candidate pairs evaluated at a time: at most {@link #batchRows}, so their output is a bounded batch. */
  private final int chunk;
  private long[] everyBuild;
  private long[] unmatchedBuild;
  private int unmatchedPos;
  /** The probe loop of the query's thread (a join fused into its probe side's scan has one per scan task too). */
  private final Prober prober;

  /**
   * A keyless join whose conditions bound a build value (a range or band join, {@link RangeJoinBounds}): the build
   * rows sorted by that value ({@link #sortedKeys}, {@link #sortedRefs}; rows where it is NULL left out), the probe
   * side's bounds, and their values for the current probe batch.
   */
  private PhysicalExpr rangeValue;
  private List<RangeBound> rangeBounds = List.of();
  private long[] sortedKeys;
  private long[] sortedRefs;
  private List<ColumnValues> boundValues;
  /**
   * A second build value bounded from the other side (an interval's other end; null: none), its bounds, and the
   * least and greatest {@code second - value} over the build rows (null when that overflows: the bounds are unused).
   */
  private PhysicalExpr rangeSecond;
  /** The range join's values are doubles, sorted and bounded by {@link RangeJoinBounds#sortable} images. */
  private boolean rangeDoubles;
  private List<RangeBound> secondBounds = List.of();
  private long[] secondDelta;
  private List<ColumnValues> secondValues;

  /**
   * {@code x OP probe - offset} for the build value {@code x}; {@code upper}: {@code <}/{@code <=}. {@code column}:
   * the probe side's scan column that {@code probe} reads unchanged (null: none), of type {@code type}.
   */
  record RangeBound(PhysicalExpr probe, long offset, boolean upper, boolean inclusive, String column,
      org.apache.arrow.vector.types.pojo.ArrowType type) {}

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
    this.prober = new Prober();
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(left, right); }

  /**
   * Makes a keyless join a range join: the build rows sorted by {@code value} (over the build side, of the LONG
   * family, or DOUBLE when {@code doubles}), each probe row's candidates the rows whose value the {@code bounds} (over the probe side) allow. The
   * conditions the bounds come from must stay in the residual ({@link RangeJoinBounds} states why this is exact).
   */
  void rangeIndex(PhysicalExpr value, boolean doubles, List<RangeBound> bounds, PhysicalExpr second,
      List<RangeBound> secondBounds) {
    if (!leftKeys.isEmpty() || type == JoinType.NULL_AWARE_ANTI || bounds.isEmpty() || residual == null) {
      throw new IllegalArgumentException("a range join is keyless, not NOT IN, has bounds and keeps its residual");
    }
    this.rangeValue = value;
    this.rangeDoubles = doubles;
    this.rangeBounds = List.copyOf(bounds);
    this.rangeSecond = secondBounds.isEmpty() ? null : second;
    this.secondBounds = secondBounds.isEmpty() ? List.of() : List.copyOf(secondBounds);
  }

  @Override
  public String describe() {
    return fusedPipeline != null && !Boolean.FALSE.equals(inScan) ? description + " [in scan tasks]" : description;
  }

  @Override
  public Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("build_rows", (long) buildRows);
    m.put("candidates", candidates.sum() + (partitionJoin == null ? 0 : partitionJoin.candidates.sum()));
    if (reversed) m.put("reversed", 1L);
    if (spill != null) {
      m.put("spilled_bytes", spilledBytes + (partitionJoin == null ? 0 : partitionJoin.spilledBytes));
      m.put("spill_partitions", (long) JoinSpill.PARTITIONS);
    }
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

  /** The build keys' range as the runtime filter (a semi join about to read ahead on its probe side). */
  private void sendRangeFilter(long min, long max) {
    if (runtimeTarget == null || leftKeys.size() != 1 || runtimeColumn == null) return;
    dev.quiver.scan.predicate.ScanPredicate filter = keyRange(min, max);
    runtimeTarget.runtimeFilter(filter, filter.toString());
  }

  /** {@code min <= key <= max} on the runtime filter's column. */
  private dev.quiver.scan.predicate.ScanPredicate keyRange(long min, long max) {
    return dev.quiver.scan.predicate.ScanPredicate.and(List.of(
        new dev.quiver.scan.predicate.ScanPredicate.Compare(runtimeColumn, dev.quiver.scan.predicate.ScanPredicate.Op.GE,
            min, runtimeType),
        new dev.quiver.scan.predicate.ScanPredicate.Compare(runtimeColumn, dev.quiver.scan.predicate.ScanPredicate.Op.LE,
            max, runtimeType)));
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
      filter = keyRange(min, max);
      shown = filter.toString();
    }
    runtimeTarget.runtimeFilter(filter, shown);
  }

  /**
   * A range join's runtime filter: a probe value {@code p} can match only when its bound meets a build value, so
   * {@code x <= p - c} needs {@code p >= min(x) + c} and {@code x >= p - c} needs {@code p <= max(x) + c} (strict
   * for strict bounds); no build rows: FALSE. Sent, like {@link #sendRuntimeFilter}, to the probe side's scan set by
   * {@link #runtimeFilterTo} for the bounds whose probe value is that scan's column; a sum that overflows is skipped.
   */
  private void sendRangeFilter() {
    if (runtimeTarget == null || rangeDoubles) return;
    dev.quiver.scan.predicate.ScanPredicate filter;
    if (sortedKeys.length == 0) {
      filter = new dev.quiver.scan.predicate.ScanPredicate.Const(false);
      runtimeTarget.runtimeFilter(filter, "FALSE (no build rows)");
      return;
    }
    List<dev.quiver.scan.predicate.ScanPredicate> parts = new ArrayList<>();
    List<RangeBound> all = new ArrayList<>(rangeBounds);
    all.addAll(secondBounds);
    for (int k = 0; k < all.size(); k++) {
      RangeBound b = all.get(k);
      if (b.column() == null) continue;
      boolean second = k >= rangeBounds.size();
      long min = second ? secondMin : sortedKeys[0];
      long max = second ? secondMax : sortedKeys[sortedKeys.length - 1];
      long at;
      try {
        at = Math.addExact(b.upper() ? min : max, b.offset());
      } catch (ArithmeticException overflow) {
        continue;
      }
      dev.quiver.scan.predicate.ScanPredicate.Op op = b.upper()
          ? (b.inclusive() ? dev.quiver.scan.predicate.ScanPredicate.Op.GE : dev.quiver.scan.predicate.ScanPredicate.Op.GT)
          : (b.inclusive() ? dev.quiver.scan.predicate.ScanPredicate.Op.LE : dev.quiver.scan.predicate.ScanPredicate.Op.LT);
      parts.add(new dev.quiver.scan.predicate.ScanPredicate.Compare(b.column(), op, at, b.type()));
    }
    if (parts.isEmpty()) return;
    filter = dev.quiver.scan.predicate.ScanPredicate.and(parts);
    runtimeTarget.runtimeFilter(filter, filter.toString());
  }

  /** A semi or anti join with a build side of at least this many rows first looks at the size of its probe side. */
  static final int REVERSE_MIN_BUILD = 1 << 18;
  /** Probe batches read ahead by {@link #reversedSemiJoin} (handed to the probe loop when it does not reverse). */
  private final ArrayDeque<VectorSchemaRoot> peeked = new ArrayDeque<>();
  /** Whether this join reversed its sides ({@link #reversedSemiJoin}). */
  private boolean reversed;

  /**
   * Whether a reversal may pay: a semi or anti join (EXISTS, IN, NOT EXISTS; not NOT IN, whose NULLs need the whole
   * build side) on one integer key, with no residual, whose build side holds at least {@link #REVERSE_MIN_BUILD} rows.
   */
  private boolean reversible(long[] keys) {
    return (type == JoinType.SEMI || type == JoinType.ANTI) && residual == null && leftKeys.size() == 1
        && keys.length >= REVERSE_MIN_BUILD;
  }

  /**
   * TPC-DS q95's shape: {@code ws_order_number IN (…8.7 million rows…)} over 147 outer rows. Rather than hash the big
   * side, read ahead on the probe side, up to an eighth of the build side's rows; if it ends there, hash the probe
   * rows instead (a small table that stays in cache), look every build key up in it, and emit the probe rows that
   * met a key (SEMI) or none (ANTI), each batch in its order. Exact: a probe row matches when some build row has its
   * key, whichever side is hashed; NULL keys match nothing (the build keys here are the non-NULL ones; a probe row
   * with a NULL key is never marked, so ANTI keeps it and SEMI drops it, as before). The runtime filter (the build
   * keys' range) is sent before reading ahead, so the probe side's scan still prunes by it. Returns false, with the
   * batches read ahead kept for the probe loop, when the probe side is larger.
   */
  private boolean reversedSemiJoin(long[] keys) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (long k : keys) {
      min = Math.min(min, k);
      max = Math.max(max, k);
    }
    sendRangeFilter(min, max);
    long limit = keys.length / 8;
    long rows = 0;
    VectorSchemaRoot batch;
    while (rows <= limit && (batch = left.next()) != null) {
      peeked.add(batch);
      rows += batch.getRowCount();
    }
    if (rows > limit) return false;
    reversed = true;
    // the probe rows' keys: a table from key to the first of its rows (batch, row), chained
    List<VectorSchemaRoot> probes = new ArrayList<>(peeked);
    peeked.clear();
    List<boolean[]> marks = new ArrayList<>();
    LongIntMap heads = new LongIntMap((int) Math.max(8, rows));
    LongList refs = new LongList();
    int[] next = new int[(int) rows];
    try {
      for (int b = 0; b < probes.size(); b++) {
        VectorSchemaRoot p = probes.get(b);
        marks.add(new boolean[p.getRowCount()]);
        try (ColumnValues kv = leftKeys.get(0).eval(p, allocator)) {
          for (int i = 0; i < p.getRowCount(); i++) {
            if (kv.isNull(i)) continue;
            int at = refs.size();
            refs.add(Rows.ref(b, i));
            next[at] = heads.replace(kv.getLong(i), at);
          }
        }
      }
      memory.add(heads.bytes() + 12L * rows);
      long[] r = refs.toArray();
      for (int k = 0; k < keys.length; k++) {
        if ((k & 0xFFFF) == 0) cancellation.check();
        for (int j = heads.get(keys[k]); j >= 0; j = next[j]) {
          boolean[] m = marks.get(Rows.batch(r[j]));
          if (m[Rows.row(r[j])]) break; // this key's rows are marked already
          m[Rows.row(r[j])] = true;
        }
      }
      for (int b = 0; b < probes.size(); b++) {
        prober.probe = probes.get(b);
        probes.set(b, null);
        prober.matched = marks.get(b);
        prober.emitProbeRows(type == JoinType.SEMI, false, prober.pending);
        prober.releaseProbe();
      }
    } finally {
      for (VectorSchemaRoot p : probes) if (p != null) p.close();
    }
    candidates.add(keys.length);
    probeDone = true;
    build.forEach(VectorSchemaRoot::close); // only the keys were needed
    build.clear();
    return true;
  }

  /** The build side's columns, per output column then batch (for gathering output rows). */
  private FieldVector[][] buildSources;

  /** How many {@code second - value} differences {@link #secondDelta} has seen. */
  private long rangeDeltas;
  /** The least and greatest second value of the build rows (for the runtime filter). */
  private long secondMin = Long.MAX_VALUE;
  private long secondMax = Long.MIN_VALUE;

  private void buildSide() {
    table = new HashMap<>();
    if (rangeSecond != null) secondDelta = new long[2];
    Map<Object, LongList> lists = new HashMap<>();
    LongList chainKeys = longKey ? new LongList() : null;
    LongList chainRows = longKey ? new LongList() : null;
    LongList chainSecond = longKey && rightKeys.size() == 2 ? new LongList() : null;
    LongList all = new LongList();
    LongList nullKeys = new LongList();
    VectorSchemaRoot batch;
    while ((batch = right.next()) != null) {
      if (spillable() && overMemory()) {
        spillAll(batch);
        return;
      }
      for (FieldVector v : batch.getFieldVectors()) heldBytes += v.getBufferSize();
      int b = build.size();
      build.add(batch);
      buildOffsets.add(buildRows);
      int n = batch.getRowCount();
      buildRows += n;
      if (rangeValue != null) {
        try (ColumnValues v = rangeValue.eval(batch, allocator);
            ColumnValues w = rangeSecond == null ? null : rangeSecond.eval(batch, allocator)) {
          for (int i = 0; i < n; i++) {
            if (v.isNull(i) || (w != null && w.isNull(i))) continue;
            long x = rangeKey(v, i);
            if (w != null) {
              long y = rangeKey(w, i);
              secondMin = Math.min(secondMin, y);
              secondMax = Math.max(secondMax, y);
            }
            if (w != null && secondDelta != null) {
              try {
                long d = Math.subtractExact(rangeKey(w, i), x);
                if (rangeDeltas == 0 || d < secondDelta[0]) secondDelta[0] = d;
                if (rangeDeltas++ == 0 || d > secondDelta[1]) secondDelta[1] = d;
              } catch (ArithmeticException overflow) {
                secondDelta = null;
              }
            }
            all.add(Rows.ref(b, i));
            nullKeys.add(x); // the sort values, beside their rows
          }
        }
        memory.add(16L * n);
        continue;
      }
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
    for (Map.Entry<Object, LongList> e : lists.entrySet()) {
      table.put(e.getKey(), e.getValue().toArray());
      mostMatches = Math.max(mostMatches, e.getValue().size());
    }
    if (longKey) {
      // the chains are linked from the last row to the first, so that each key's rows come in build order
      long[] keys = chainKeys.toArray();
      if (chainSecond == null && reversible(keys)) {
        probeHere(); // it reads ahead on the probe side
        if (reversedSemiJoin(keys)) return;
      }
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
      // the longest chain: the most build rows one probe row can meet
      int[] length = new int[keys.length];
      for (int r = keys.length - 1; r >= 0; r--) {
        length[r] = chainNext[r] < 0 ? 1 : length[chainNext[r]] + 1;
        mostMatches = Math.max(mostMatches, length[r]);
      }
    }
    buildSources = new FieldVector[rightFields.size()][build.size()];
    for (int c = 0; c < rightFields.size(); c++) {
      for (int b = 0; b < build.size(); b++) buildSources[c][b] = build.get(b).getVector(c);
    }
    if (rangeValue != null) {
      sortedRefs = all.toArray();
      sortedKeys = nullKeys.toArray();
      LongSort.byKey(sortedKeys, sortedRefs);
      sendRangeFilter();
    } else {
      allBuild = all.toArray();
      nullKeyBuild = nullKeys.toArray();
    }
    if (type == JoinType.RIGHT || type == JoinType.FULL) buildMatched = new BitSet(buildRows);
  }

  /** The query's memory used beyond this fraction of its limit while a build side grows: the join spills. */
  static final double SPILL_AT = 0.6;
  /** A partition's join may spill its partition again, up to this depth. */
  static final int MAX_SPILL_LEVEL = 3;
  /** 0 for a planned join; n for the join of a partition spilled n levels deep. */
  private int spillLevel;
  private JoinSpill spill;
  private int partition = -1;
  private HashJoinExec partitionJoin;
  /** Bytes spilled by this join and the partition joins below it that finished. */
  private long spilledBytes;

  /**
   * Whether this join can spill: it has equi-keys (rows partition by them) and is not NULL-aware (NOT IN needs to
   * know of a NULL anywhere on the build side), and the recursion has room.
   */
  private boolean spillable() {
    return !leftKeys.isEmpty() && type != JoinType.NULL_AWARE_ANTI && spillLevel < MAX_SPILL_LEVEL;
  }

  /**
   * The query uses more than {@link #SPILL_AT} of its memory limit and this join's build side holds at least an
   * eighth of the limit (spilling a small build side would free nothing worth having).
   */
  private boolean overMemory() {
    long limit = allocator.getLimit();
    return limit > 0 && limit < Long.MAX_VALUE && allocator.getAllocatedMemory() > limit * SPILL_AT
        && heldBytes + memory.used() >= limit / 8;
  }

  /** The Arrow bytes of the build batches held. */
  private long heldBytes;

  /**
   * Turns this join into a grace hash join: the build rows held so far, {@code next} and the rest of the build side,
   * then the whole probe side, are written to {@link JoinSpill} partitions; {@link #produce()} then joins one
   * partition at a time with a join of its own (which may spill again, one level deeper). The structures built so
   * far are dropped, and no runtime filter is sent (the build side is never whole in memory).
   */
  private void spillAll(VectorSchemaRoot next) {
    probeHere();
    // held with the others, so that close() releases it if spilling fails
    build.add(next);
    buildRows += next.getRowCount();
    spill = new JoinSpill(right.schema(), left.schema(), spillLevel, allocator);
    while (!build.isEmpty()) spillBatch(build.remove(0), true); // each closed as written (a failure leaves the rest)
    buildOffsets.clear();
    memory.reset();
    heldBytes = 0;
    VectorSchemaRoot batch;
    while ((batch = right.next()) != null) {
      buildRows += batch.getRowCount();
      spillBatch(batch, true);
    }
    while ((batch = left.next()) != null) spillBatch(batch, false);
    spill.finishWriting();
    spilledBytes = spill.bytes();
  }

  /** Writes {@code batch} (closed here) to the build or probe partitions. */
  private void spillBatch(VectorSchemaRoot batch, boolean buildSide) {
    List<ColumnValues> kv = new ArrayList<>();
    try {
      for (PhysicalExpr e : buildSide ? rightKeys : leftKeys) kv.add(e.eval(batch, allocator));
      if (buildSide) spill.addBuild(batch, kv, nullSafe);
      else spill.addProbe(batch, kv, nullSafe);
    } finally {
      kv.forEach(ColumnValues::close);
      batch.close();
    }
    cancellation.check();
  }

  /** The next output batch of the spilled join: partition by partition, each joined by a join of its own. */
  private VectorSchemaRoot spilledNext() {
    while (true) {
      if (partitionJoin != null) {
        VectorSchemaRoot out = partitionJoin.next();
        if (out != null) return out;
        finishPartition();
      }
      do {
        if (++partition >= JoinSpill.PARTITIONS) return null;
      } while (!spill.hasRows(partition));
      Operator probeSide = spill.probeReader(partition);
      Operator buildSide = spill.buildReader(partition);
      partitionJoin = new HashJoinExec(probeSide, buildSide, type, schema, leftKeys, rightKeys, nullSafe, longKey,
          residual, description, allocator, batchRows);
      partitionJoin.spillLevel = spillLevel + 1;
      partitionJoin.cancellation = cancellation;
      probeSide.cancellation = cancellation;
      buildSide.cancellation = cancellation;
    }
  }

  private void finishPartition() {
    candidates.add(partitionJoin.candidates.sum());
    spilledBytes += partitionJoin.spilledBytes;
    partitionJoin.close();
    partitionJoin = null;
  }

  /**
   * A join fused into its probe side's scan ({@link #fuseInto}): the pipeline, this join's stage in it, and whether
   * it probes there (known once the first probe batch came up: a join below may have kept the stages above it here).
   */
  private ScanPipeline fusedPipeline;
  /** The most build rows with one key (what one probe row can meet), once built. */
  private int mostMatches;
  /**
   * A fused join whose key meets more build rows than this probes on the query's thread: a scan task holds a row
   * group's output, which a fan-out join (every order with every order of its status) multiplies without bound,
   * whereas the query's thread emits it a bounded batch at a time. Semi and anti joins emit at most their probe rows.
   */
  static final int FUSED_MOST_MATCHES = 64;
  private int fusedStage;
  private java.util.concurrent.atomic.LongAdder fusedRows;
  private Boolean inScan;

  /**
   * Makes this join a stage of {@code pipeline} (at {@code stage}, counting its output in {@code rows}): once its build
   * side is complete, the probe side's scan tasks probe it (in parallel, each with its own {@link Prober}) and this
   * operator passes their batches up. Only joins whose probe rows are independent of each other: INNER, LEFT, SEMI,
   * ANTI and NOT IN with keys (RIGHT and FULL mark build rows, which the tasks would share). A join that spills or
   * may reverse its sides tells the pipeline, before the scan starts, to stop below it; then it and everything above
   * run here as operators over the scan's batches, as they would unfused.
   */
  void fuseInto(ScanPipeline pipeline, int stage, java.util.concurrent.atomic.LongAdder rows) {
    if (!fusable(type, leftKeys.size())) throw new IllegalArgumentException("this join cannot probe in scan tasks");
    this.fusedPipeline = pipeline;
    this.fusedStage = stage;
    this.fusedRows = rows;
  }

  /** Whether a join of {@code type} with {@code keys} equi-keys can probe in its probe side's scan tasks. */
  static boolean fusable(JoinType type, int keys) {
    return keys > 0 && type != JoinType.RIGHT && type != JoinType.FULL;
  }

  /** Before a fused join reads its probe side itself (spilling, reading ahead): the scan's tasks stop below it. */
  private void probeHere() {
    if (fusedPipeline != null) fusedPipeline.runHere(fusedStage);
  }

  /** A fused join's probe of one batch in a scan task ({@code batch} owned from now on); output to {@code out}. */
  void probeInTask(Prober taskProber, VectorSchemaRoot batch, List<VectorSchemaRoot> out) {
    taskProber.startProbe(batch);
    try {
      while (taskProber.probe != null) taskProber.advance();
    } finally {
      taskProber.releaseProbe();
      out.addAll(taskProber.pending);
      taskProber.pending.clear();
    }
  }

  /** A prober for a scan task. */
  Prober newProber() {
    return new Prober();
  }

  @Override
  protected long outputRows() {
    return Boolean.TRUE.equals(inScan) ? fusedRows.sum() : super.outputRows();
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (table == null) buildSide();
    if (spill != null) return spilledNext();
    if (fusedPipeline != null && inScan == null) {
      if (!type.leftOnly() && mostMatches > FUSED_MOST_MATCHES) probeHere();
      // the first batch up from the scan: the scan's tasks were made by now, with this join's stage or without
      VectorSchemaRoot first = peeked.isEmpty() ? left.next() : peeked.poll();
      inScan = fusedPipeline.runsInTasks(fusedStage);
      if (inScan) return first;
      if (first != null) peeked.addFirst(first);
    }
    if (Boolean.TRUE.equals(inScan)) return left.next();
    ArrayDeque<VectorSchemaRoot> pending = prober.pending;
    while (true) {
      if (!pending.isEmpty()) return pending.poll();
      if (prober.probe != null) {
        prober.advance();
        continue;
      }
      if (probeDone) {
        if (unmatchedBuild == null || unmatchedPos >= unmatchedBuild.length) return null;
        emitUnmatchedBuild();
        continue;
      }
      VectorSchemaRoot batch = peeked.isEmpty() ? left.next() : peeked.poll();
      if (batch == null) {
        probeDone = true;
        if (buildMatched != null) unmatchedBuild = unmatchedBuildRows();
        continue;
      }
      prober.startProbe(batch);
    }
  }

  /**
   * The probe of one thread: the probe position, kept between calls (the probe batch, its keys, the next row to look
   * up, and the candidates of the row being emitted, curRefs then curExtra, with the index of the next one), the
   * chunk of candidate pairs collected, and the output not yet taken. It reads the build side's structures, which no
   * one changes once built; RIGHT and FULL joins' {@link #buildMatched} is written only by the query thread's prober.
   */
  final class Prober {
    private final ArrayDeque<VectorSchemaRoot> pending = new ArrayDeque<>();
    private final int[] probeRows = new int[chunk];
    private final long[] buildRefs = new long[chunk];
    private int filled;
    private VectorSchemaRoot probe;
    private List<ColumnValues> probeKeys;
    private boolean[] matched;
    private boolean[] unknown;
    private int probeRow;
    private long[] curRefs;
    /** {@link #curRefs}' candidates end here (a range join's are a slice of its sorted build rows). */
    private int curEnd;
    private long[] curExtra;
    private int curRow;
    private int refPos;
    /** The range join's bound values for the probe batch. */
    private List<ColumnValues> boundValues;
    private List<ColumnValues> secondValues;
    /** The one candidate of a unique key ({@link #chain}); used before the next lookup. */
    private final long[] single = new long[1];

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
      if (rangeValue != null) {
        boundValues = new ArrayList<>();
        for (RangeBound b : rangeBounds) boundValues.add(b.probe().eval(batch, allocator));
        secondValues = new ArrayList<>();
        if (secondDelta != null) for (RangeBound b : secondBounds) secondValues.add(b.probe().eval(batch, allocator));
      }
    }

    /**
     * Continues probing the current probe batch until one chunk of candidate pairs produced output or the
     * batch is done. The position (probe row, and the index in that row's candidates) is kept between
     * calls, so one probe row with millions of matches is emitted over many calls, and cancellation is
     * checked for every chunk of candidates even when the condition rejects all of them.
     */
    private void advance() {
      JoinType type = HashJoinExec.this.type;
      boolean needPairs = !type.leftOnly() || residual != null;
      int n = probe.getRowCount();
      while (true) {
        if (curRefs != null) {
          int lenA = curEnd;
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
        int from = 0;
        int to = -1;
        if (rangeValue != null) {
          long packed = candidateRange(i);
          from = (int) (packed >>> 32);
          to = (int) packed;
          refs = from < to ? sortedRefs : null;
        } else if (leftKeys.isEmpty()) {
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
        if (refs == null) continue;
        if (to < 0) to = refs.length;
        if (to - from + (extra == null ? 0 : extra.length) == 0) continue;
        if (!needPairs) {
          matched[i] = true;
          continue;
        }
        curRefs = refs;
        curEnd = to;
        curExtra = extra;
        curRow = i;
        refPos = from;
      }
      if (filled > 0) flush();
      finishProbe();
    }

    /**
     * The slice of {@link #sortedKeys} that probe row {@code i}'s bounds allow, as {@code from << 32 | to} (empty when
     * a bound is NULL or the bounds cross); a bound beyond the longs constrains nothing.
     */
    private long candidateRange(int i) {
      long lo = Long.MIN_VALUE;
      long hi = Long.MAX_VALUE;
      for (int k = 0; k < rangeBounds.size(); k++) {
        ColumnValues v = boundValues.get(k);
        if (v.isNull(i)) return 0;
        RangeBound b = rangeBounds.get(k);
        long p = rangeKey(v, i);
        long at;
        try {
          at = Math.subtractExact(p, b.offset());
        } catch (ArithmeticException overflow) {
          continue;
        }
        if (b.upper()) {
          if (!b.inclusive()) {
            if (at == Long.MIN_VALUE) return 0;
            at--;
          }
          hi = Math.min(hi, at);
        } else {
          if (!b.inclusive()) {
            if (at == Long.MAX_VALUE) return 0;
            at++;
          }
          lo = Math.max(lo, at);
        }
      }
      // a bound on the second value, y OP p - c, bounds the sorted one x = y - (y - x): x >= p - c - dmax or
      // x <= p - c - dmin (strict bounds loosened to inclusive: a superset)
      for (int k = 0; k < secondValues.size(); k++) {
        ColumnValues v = secondValues.get(k);
        if (v.isNull(i)) return 0;
        RangeBound b = secondBounds.get(k);
        long at;
        try {
          at = Math.subtractExact(Math.subtractExact(rangeKey(v, i), b.offset()), secondDelta[b.upper() ? 0 : 1]);
        } catch (ArithmeticException overflow) {
          continue;
        }
        if (b.upper()) hi = Math.min(hi, at);
        else lo = Math.max(lo, at);
      }
      if (lo > hi) return 0;
      int from = LongSort.firstAtLeast(sortedKeys, lo);
      int to = hi == Long.MAX_VALUE ? sortedKeys.length : LongSort.firstAtLeast(sortedKeys, hi + 1);
      return ((long) from << 32) | to;
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

    /** The probe batch is done: emits its rows that a left-only or outer join keeps, and releases it. */
    private void finishProbe() {
      try {
        switch (type) {
          case LEFT, FULL -> emitProbeRows(false, true, pending);
          case SEMI -> emitProbeRows(true, false, pending);
          case ANTI -> emitProbeRows(false, false, pending);
          case NULL_AWARE_ANTI -> {
            for (int i = 0; i < matched.length; i++) matched[i] |= unknown[i];
            emitProbeRows(false, false, pending);
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
      if (boundValues != null) boundValues.forEach(ColumnValues::close);
      boundValues = null;
      if (secondValues != null) secondValues.forEach(ColumnValues::close);
      secondValues = null;
      if (probe != null) probe.close();
      probe = null;
      curRefs = null;
      curExtra = null;
    }

    /**
     * Evaluates the chunk of candidate pairs collected so far; keeps matches (and emits them, at most
     * {@link #chunk} rows, for joins that output pairs).
     */
    private void flush() {
      int count = filled;
      filled = 0;
      candidates.add(count);
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
     * Adds to {@code out} the probe rows whose {@code matched} flag equals {@code want}, padded with NULLs when asked,
     * in batches of at most {@link #batchRows} rows.
     */
    private void emitProbeRows(boolean want, boolean padRight, ArrayDeque<VectorSchemaRoot> out) {
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
        out.add(Rows.root(outFields, vectors, len));
      }
    }

    /** Releases the probe batch and the output not taken. */
    private void close() {
      releaseProbe();
      pending.forEach(VectorSchemaRoot::close);
      pending.clear();
    }
  }

  /** Row {@code i}'s range-join value: its long, or a double's {@link RangeJoinBounds#sortable} image. */
  private long rangeKey(ColumnValues v, int i) {
    return rangeDoubles ? RangeJoinBounds.sortable(v.getDouble(i)) : v.getLong(i);
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

  /** Every build row (for a NULL probe key of NOT IN with a residual), computed once (by whichever prober asks first). */
  private synchronized long[] everyBuildRow() {
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
    prober.pending.add(Rows.root(outFields, vectors, count));
  }

  @Override
  public void close() {
    super.close();
    if (partitionJoin != null) partitionJoin.close();
    partitionJoin = null;
    if (spill != null) spill.close();
    peeked.forEach(VectorSchemaRoot::close);
    peeked.clear();
    prober.close();
    build.forEach(VectorSchemaRoot::close);
    build.clear();
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
    int size() { return n; }
  }
}
