package dev.quiver.planner.exec;

import dev.quiver.common.ArrowBulk;
import dev.quiver.planner.kernel.BatchValues;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.scan.read.DictionaryStrings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import dev.quiver.planner.kernel.Vectors;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The group ids of a hash aggregation, a batch at a time and without an object per row. Each key column maps
 * its values to small dense ids (a primitive hash table over longs, normalised double bits or the key bytes,
 * NULL an id of its own; the value itself is kept once per distinct value); several columns then combine
 * pairwise, {@code (ids so far, next column's id)} packed into a long, in a further primitive table. Ids are
 * handed out in order of first appearance at every level, so group ids number the groups in the order their
 * first row arrived. While the columns' ids fit side by side in 63 bits they are instead packed into one long
 * looked up in one table ({@link PackedKeys}); when they no longer fit, the levels are built from the groups' keys,
 * in group order, and used from then on. Equality is SQL's: {@code -0.0} is {@code 0.0}, every NaN is one NaN, decimals compare by
 * value, NULLs form one group.
 */
final class GroupTable {
  private final ColumnKeys[] columns;
  /** Level {@code c} (c ≥ 1): (group of columns [0, c), id of column c) → group of columns [0, c]. */
  private final LongIntMap[] levels;
  private final int[] levelCounts;
  /** Per column, the column id of each group's key. */
  private int[][] groupKeys;
  /**
   * With several key columns, per DOUBLE column: each group's own first value ({@code -0.0} and {@code 0.0} share a
   * column id, but a group shows the value of its first row).
   */
  private final Object[][] groupValues;
  private int groups;
  /** With several columns, while their ids fit in one long; else null (levels used). */
  private PackedKeys packed;
  /** Per chunk, for the packed key: each column's distinct count and its rows' ids. */
  private final int[] distinct;
  private final int[][] columnIds;
  private int[] scratch;
  private long chargedValues;

  GroupTable(List<ArrowType> keyTypes) {
    columns = new ColumnKeys[keyTypes.size()];
    for (int c = 0; c < columns.length; c++) columns[c] = ColumnKeys.of(keyTypes.get(c));
    levels = new LongIntMap[columns.length];
    levelCounts = new int[columns.length];
    distinct = new int[columns.length];
    columnIds = new int[columns.length][];
    if (PackedKeys.fits(columns.length)) {
      packed = new PackedKeys(columns.length);
    } else {
      for (int c = 1; c < columns.length; c++) levels[c] = new LongIntMap();
    }
    groupKeys = new int[columns.length][16];
    groupValues = new Object[columns.length][];
    for (int c = 0; c < columns.length; c++) {
      if (columns.length > 1 && columns[c] instanceof DoubleKeys) groupValues[c] = new Object[16];
    }
  }

  int groups() {
    return groups;
  }

  /**
   * Sizes the empty table for {@code groups} groups and {@code distinct[c]} distinct values of each key column (what
   * an earlier task of the same aggregation saw), so that it need not grow row by row: a partial aggregation's task
   * over 100,000 string keys rehashed its table 13 times, a tenth of H2O q7. Hints under {@value #HINT_MIN} are
   * ignored (growing such tables costs little), as is a hint for a table that has rows.
   */
  void expect(int groups, int[] distinct) {
    if (this.groups > 0) return;
    for (int c = 0; c < columns.length; c++) if (distinct[c] >= HINT_MIN) columns[c].expect(distinct[c]);
    if (groups >= HINT_MIN) {
      ensure(groups);
      if (packed != null) packed.expect(groups);
    }
  }

  static final int HINT_MIN = 4096;

  /** Key column {@code c}'s distinct values so far (NULL's included). */
  int distinct(int c) {
    return columns[c].distinct();
  }

  /** Whether several key columns are looked up as one packed key (for tests). */
  boolean packs() {
    return packed != null;
  }

  /**
   * Whether this chunk's column ids still fit the packed key ({@link PackedKeys#fit}); when they do not, the levels
   * are built from the groups' keys, in group order, and used from then on.
   */
  private boolean fitPacked() {
    for (int c = 0; c < columns.length; c++) distinct[c] = columns[c].distinct();
    if (packed.fit(distinct, groupKeys, groups)) return true;
    packed = null;
    for (int c = 1; c < columns.length; c++) levels[c] = new LongIntMap();
    for (int g = 0; g < groups; g++) {
      int prev = groupKeys[0][g];
      for (int c = 1; c < columns.length; c++) prev = levelId(c, prev, groupKeys[c][g]);
    }
    return false;
  }

  /** Level {@code c}'s id of (group of columns [0, c) {@code prev}, column c's id {@code cur}), made if new. */
  private int levelId(int c, int prev, int cur) {
    long key = ((long) prev << 32) | (cur & 0xFFFFFFFFL);
    int id = levels[c].get(key);
    if (id < 0) {
      id = levelCounts[c]++;
      levels[c].put(key, id);
    }
    return id;
  }

  /** Starts a batch of {@code n} rows whose key columns are {@code keyValues}. */
  void batch(List<ColumnValues> keyValues, int n) {
    if (columns.length > 1 && (scratch == null || scratch.length < n)) scratch = new int[n];
    for (int c = 0; c < columns.length; c++) columns[c].batch(keyValues.get(c), n);
  }

  /** Writes the group of rows {@code [lo, hi)} of the current batch into {@code out[lo, hi)}. */
  void ids(int lo, int hi, int[] out) {
    int k = columns.length;
    if (k == 1) {
      columns[0].ids(lo, hi, out);
      int newGroups = columns[0].distinct();
      if (newGroups > groups) {
        ensure(newGroups);
        for (int g = groups; g < newGroups; g++) groupKeys[0][g] = g;
        groups = newGroups;
      }
      return;
    }
    for (int c = 0; c < k; c++) columns[c].ids(lo, hi, columns[c].lastIds);
    if (packed != null && fitPacked()) {
      for (int c = 0; c < k; c++) columnIds[c] = columns[c].lastIds;
      long[] keys = packed.pack(columnIds, lo, hi);
      int[] direct = packed.direct();
      if (direct != null) {
        for (int i = lo; i < hi; i++) {
          int at = (int) keys[i];
          int g = direct[at] - 1;
          if (g < 0) {
            g = groups;
            direct[at] = g + 1;
            newGroup(g, i);
          }
          out[i] = g;
        }
        return;
      }
      LongIntMap table = packed.table();
      for (int i = lo; i < hi; i++) {
        int g = table.get(keys[i]);
        if (g < 0) {
          g = groups;
          table.put(keys[i], g);
          newGroup(g, i);
        }
        out[i] = g;
      }
      return;
    }
    int[] prev = columns[0].lastIds;
    for (int c = 1; c < k; c++) {
      int[] cur = columns[c].lastIds;
      boolean last = c == k - 1;
      int[] dst = last ? out : scratch; // scratch may be prev: row i is read before it is written
      for (int i = lo; i < hi; i++) {
        int made = levelCounts[c];
        int g = levelId(c, prev[i], cur[i]);
        if (last && g == made) newGroup(g, i);
        dst[i] = g;
      }
      prev = dst;
    }
  }

  /** Records the key of new group {@code g}, first seen at row {@code i} of the current batch. */
  private void newGroup(int g, int i) {
    ensure(g + 1);
    for (int c = 0; c < columns.length; c++) {
      groupKeys[c][g] = columns[c].lastIds[i];
      if (groupValues[c] != null) groupValues[c][g] = columns[c].v.getObject(i);
    }
    groups = g + 1;
  }

  private void ensure(int count) {
    if (count > groupKeys[0].length) {
      int cap = Math.max(count, groupKeys[0].length * 2);
      for (int c = 0; c < groupKeys.length; c++) {
        groupKeys[c] = Arrays.copyOf(groupKeys[c], cap);
        if (groupValues[c] != null) groupValues[c] = Arrays.copyOf(groupValues[c], cap);
      }
    }
  }

  /** Key column {@code c}'s value (physical form, null for NULL) of group {@code g}. */
  Object key(int c, int g) {
    return groupValues[c] != null ? groupValues[c][g] : columns[c].value(groupKeys[c][g]);
  }

  /**
   * Key column {@code c} of groups {@code [first, first + count)} into slots {@code [0, count)} of {@code v} (allocated
   * for them): integer keys written as primitives, the others through {@link Vectors#set}.
   */
  void writeKeys(int c, FieldVector v, int first, int count) {
    if (groupValues[c] == null && columns[c] instanceof LongKeys lk && LongKeys.writes(v)) {
      int[] ids = groupKeys[c];
      for (int r = 0; r < count; r++) {
        int id = ids[first + r];
        if (id == lk.nullId) v.setNull(r);
        else LongKeys.write(v, r, lk.raw[id]);
      }
      return;
    }
    if (columns[c] instanceof BytesKeys bk && v instanceof BaseVariableWidthVector w) {
      // the key bytes straight from the pool: no String made and encoded again per group
      int[] ids = groupKeys[c];
      for (int r = 0; r < count; r++) {
        int id = ids[first + r];
        if (id == bk.nullId) w.setNull(r);
        else w.setSafe(r, bk.pool, bk.starts[id], bk.ends[id] - bk.starts[id]);
      }
      return;
    }
    for (int r = 0; r < count; r++) Vectors.set(v, r, key(c, first + r));
  }

  /** Bytes held (tables, distinct key values, per-group key ids), for memory accounting. */
  long bytes() {
    long b = 4L * groupKeys.length * groupKeys[0].length;
    for (ColumnKeys c : columns) b += c.bytes();
    for (int c = 1; c < levels.length; c++) if (levels[c] != null) b += levels[c].bytes();
    if (packed != null) b += packed.bytes();
    return b;
  }

  /** The ids of one key column: dense, in order of first appearance; the distinct values kept once each. */
  private abstract static class ColumnKeys {
    final List<Object> values = new ArrayList<>();
    long valueBytes;
    /** The column ids of the current batch's rows (with several key columns). */
    int[] lastIds;
    ColumnValues v;
    int n;
    boolean nulls;
    int nullId = -1;

    static ColumnKeys of(ArrowType t) {
      return switch (Kernels.family(t)) {
        case LONG -> new LongKeys();
        case DOUBLE -> new DoubleKeys();
        case BYTES -> new BytesKeys();
        default -> new ObjectKeys();
      };
    }

    /** Ids handed out so far (NULL's included). */
    int count;

    int distinct() {
      return count;
    }

    /** The value of id {@code id} (physical form, null for NULL). */
    Object value(int id) {
      return values.get(id);
    }

    void batch(ColumnValues values, int rows) {
      this.v = values;
      this.n = rows;
      this.nulls = values.vector() != null && values.vector().getNullCount() > 0;
      if (lastIds == null || lastIds.length < rows) lastIds = new int[rows];
      prepare();
    }

    abstract void prepare();

    /** Sizes the (empty) lookup for {@code n} distinct values. */
    void expect(int n) {}

    /** The id of row {@code i}'s (non-NULL) value, made if new. */
    abstract int idOf(int i);

    final int nullId() {
      if (nullId < 0) nullId = add(null);
      return nullId;
    }

    /** A new id for {@code value}. */
    int add(Object value) {
      values.add(value);
      valueBytes += 16 + (value == null ? 0 : value instanceof String s ? 40 + s.length()
          : value instanceof byte[] b ? 16 + b.length : 16);
      return count++;
    }

    void ids(int lo, int hi, int[] out) {
      if (v.vector() == null) {
        int id = v.isNull(0) ? nullId() : idOf(0);
        Arrays.fill(out, lo, hi, id);
      } else if (!nulls) {
        for (int i = lo; i < hi; i++) out[i] = idOf(i);
      } else {
        for (int i = lo; i < hi; i++) out[i] = v.isNull(i) ? nullId() : idOf(i);
      }
    }

    long bytes() {
      return valueBytes + 8L * values.size();
    }
  }

  /**
   * Integers, dates, timestamps: the values kept as longs, not objects; a value's id found first in a direct table
   * over a window of at most {@value #DIRECT_MAX} consecutive values (a small key domain — years, flags, small ids —
   * costs one array read a row, no hashing), or up to {@value #DENSE_MAX} values (4 MiB) while at least a quarter of
   * the window's values are keys (H2O's id6: 100,000 ids 1..100,000, where the hash table's probes were a third of
   * the aggregation), else in a primitive hash table.
   */
  private static final class LongKeys extends ColumnKeys {
    static final int DIRECT_MAX = 1 << 16;
    static final int DENSE_MAX = 1 << 20;
    static final long SAFE = 1L << 62;
    LongIntMap map = new LongIntMap();
    long[] x;
    long[] raw = new long[16];
    /** direct[k - base]: the id of value k, -1 if not known there. */
    int[] direct;
    long base;
    /** The batch before's values, an array to fill again. */
    long[] scratch;
    @Override void prepare() {
      x = v.vector() == null ? null : BatchValues.longs(v, n, scratch);
      if (x != null) scratch = x;
    }
    @Override void expect(int n) {
      if (count > 0) return;
      map = new LongIntMap(n);
      raw = new long[n + 1];
    }
    @Override int add(Object value) {
      if (count == raw.length) raw = Arrays.copyOf(raw, 2 * count);
      if (value != null) raw[count] = (Long) value;
      return count++;
    }
    @Override Object value(int id) {
      return id == nullId ? null : (Object) raw[id];
    }
    @Override void ids(int lo, int hi, int[] out) {
      if (x == null || nulls) {
        super.ids(lo, hi, out);
        return;
      }
      long[] keys = x;
      for (int i = lo; i < hi; i++) {
        long k = keys[i];
        int[] d = direct;
        long at = k - base;
        int id;
        if (d != null && k <= SAFE && k >= -SAFE && at >= 0 && at < d.length && (id = d[(int) at]) >= 0) {
          out[i] = id;
        } else {
          out[i] = idOf(i);
        }
      }
    }
    @Override int idOf(int i) {
      long k = x == null ? v.getLong(i) : x[i];
      int id = map.get(k);
      if (id < 0) {
        id = add(k);
        map.put(k, id);
      }
      remember(k, id);
      return id;
    }
    /**
     * Puts value {@code k}'s id into the direct table, widening its window while it stays small. Only values within
     * ±2^62 go there, so that no difference of a value and the window's base overflows.
     */
    private void remember(long k, int id) {
      if (k > SAFE || k < -SAFE) return;
      if (direct == null) {
        direct = new int[1024];
        Arrays.fill(direct, -1);
        base = k - 512;
      }
      long at = k - base;
      if (at < 0 || at >= direct.length) {
        long lo = Math.min(base, k);
        long hi = Math.max(base + direct.length, k + 1);
        long span = hi - lo;
        // a wide domain: the hash table alone, unless the keys fill a quarter of a window of up to DENSE_MAX
        if (span > DIRECT_MAX && (span > DENSE_MAX || 4L * count < span)) return;
        int size = (int) Math.min(span > DIRECT_MAX ? DENSE_MAX : DIRECT_MAX, Math.max(span, 2L * direct.length));
        long newBase = k < base ? Math.max(hi - size, lo - (size - (hi - lo)) / 2) : lo;
        if (newBase > lo) newBase = lo;
        if (newBase + size < hi) newBase = hi - size;
        int[] grown = new int[size];
        Arrays.fill(grown, -1);
        System.arraycopy(direct, 0, grown, (int) (base - newBase), direct.length);
        direct = grown;
        base = newBase;
        at = k - base;
      }
      direct[(int) at] = id;
    }
    @Override long bytes() {
      return super.bytes() + map.bytes() + 8L * raw.length + (direct == null ? 0 : 4L * direct.length);
    }
    /** Whether {@link #write} takes {@code v}. */
    static boolean writes(FieldVector v) {
      return v instanceof BigIntVector || v instanceof IntVector || v instanceof DateDayVector
          || v instanceof TimeStampVector;
    }
    /** {@code x} (physical form) into slot {@code r} of {@code v}, one that {@link #writes}. */
    static void write(FieldVector v, int r, long x) {
      if (v instanceof BigIntVector b) b.set(r, x);
      else if (v instanceof IntVector b) b.set(r, (int) x);
      else if (v instanceof DateDayVector b) b.set(r, (int) x);
      else ((TimeStampVector) v).set(r, x);
    }
  }

  private static final class DoubleKeys extends ColumnKeys {
    LongIntMap map = new LongIntMap();
    @Override void prepare() {}
    @Override void expect(int n) {
      if (count == 0) map = new LongIntMap(n);
    }
    @Override int idOf(int i) {
      double d = v.getDouble(i);
      long k = d == 0.0 ? 0L : Double.doubleToLongBits(d); // -0.0 is 0.0; every NaN is the canonical NaN
      int id = map.get(k);
      if (id < 0) {
        id = add(v.getObject(i));
        map.put(k, id);
      }
      return id;
    }
    @Override long bytes() { return super.bytes() + map.bytes(); }
  }

  /**
   * A well-mixed hash of {@code bytes[from, to)} (at least 2 bytes), read 8 bytes at a time. The table probes
   * linearly from the hash's low bits, so they must not keep the structure of the keys: a polynomial hash
   * ({@code 31 * h + b}) of keys that differ in their last digits ("id0000012345") crowds them into clusters of
   * neighbouring slots: H2O's 100,000 such keys took 2.8 extra probes each at the table's load, against 0.3 for
   * random keys.
   */
  static int hashBytes(byte[] bytes, int from, int to) {
    long h = (to - from) * 0x9E3779B97F4A7C15L;
    int j = from;
    for (; j + 8 <= to; j += 8) {
      h = Long.rotateLeft(h ^ (long) ArrowBulk.LONGS.get(bytes, j) * 0xC2B2AE3D27D4EB4FL, 31) * 0x9E3779B97F4A7C15L;
    }
    if (j < to) {
      long tail = 0;
      for (int k = to - 1; k >= j; k--) tail = tail << 8 | (bytes[k] & 0xFF);
      h = Long.rotateLeft(h ^ tail * 0xC2B2AE3D27D4EB4FL, 31) * 0x9E3779B97F4A7C15L;
    }
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    return (int) h;
  }

  /** Strings and binaries: the key bytes hashed straight from the batch's buffers, stored once per value. */
  private static final class BytesKeys extends ColumnKeys {
    /** Values of at most one byte: indexed directly (0: empty, 1 + b: the byte b). */
    final int[] small = new int[257];
    /**
     * The hash table: four longs a slot, so that a lookup touches one place in memory (keeping ids, hashes and the
     * pool's offsets in separate arrays cost a cache miss each, and most of a 100,000-key aggregation): the id + 1
     * (0: empty) and the hash, the length, then the key's first 16 bytes (zero-padded); a longer key's rest is
     * compared in the pool.
     */
    long[] table = new long[4 * 16];
    int capacity = 16;
    int size;
    byte[] pool = new byte[64];
    int poolEnd;
    /** Value id → its bytes in the pool (ids of NULL and of short values have none). */
    int[] starts = new int[16];
    int[] ends = new int[16];
    byte[] data;
    byte[] offsets;
    /**
     * For strings read from a dictionary-encoded chunk ({@link DictionaryStrings}): each row's dictionary index, and
     * the id of each dictionary entry met so far (-1: not yet), for the dictionary {@link #dictionary}. An entry met
     * for the first time is looked up by its bytes in the dictionary: the batch may not hold its rows' strings
     * ({@link DictionaryStrings#absent}).
     */
    int[] rowEntries;
    int[] entryIds;
    DictionaryStrings.Entries dictionary;
    BytesKeys() {
      Arrays.fill(small, -1);
    }
    @Override void expect(int n) {
      if (count > 0) return;
      capacity = Integer.highestOneBit(Math.max(16, 2 * n) - 1) << 1;
      table = new long[4 * capacity];
      starts = new int[n + 1];
      ends = new int[n + 1];
    }
    @Override void prepare() {
      FieldVector vector = v.vector();
      DictionaryStrings d = vector == null ? null : DictionaryStrings.of(vector);
      rowEntries = d == null ? null : d.ids();
      if (d != null) {
        // one lookup by value per dictionary entry, then every row by its index (no copy of the batch's bytes)
        if (d.dictionary() != dictionary) {
          dictionary = d.dictionary();
          if (entryIds == null || entryIds.length < d.dictionarySize()) entryIds = new int[d.dictionarySize()];
          Arrays.fill(entryIds, 0, d.dictionarySize(), -1);
        }
        offsets = null;
        data = null;
        return;
      }
      if (vector instanceof BaseVariableWidthVector w) {
        offsets = new byte[4 * (n + 1)];
        w.getOffsetBuffer().getBytes(0, offsets, 0, offsets.length);
        int end = n == 0 ? 0 : (int) ArrowBulk.INTS.get(offsets, 4 * n);
        data = new byte[end];
        if (end > 0) w.getDataBuffer().getBytes(0, data, 0, end);
      } else {
        offsets = null;
        data = null;
      }
    }
    @Override void ids(int lo, int hi, int[] out) {
      if (rowEntries == null || nulls) {
        super.ids(lo, hi, out);
        return;
      }
      // dictionary-encoded and no NULLs: each row by its entry, in one loop without a call a row
      int[] entries = rowEntries;
      int[] known = entryIds;
      for (int i = lo; i < hi; i++) {
        int id = known[entries[i]];
        if (id < 0) {
          id = idOfEntry(entries[i], i);
          known[entries[i]] = id;
        }
        out[i] = id;
      }
    }
    @Override int idOf(int i) {
      if (rowEntries != null) {
        int e = rowEntries[i];
        int id = entryIds[e];
        if (id < 0) {
          id = idOfEntry(e, i);
          entryIds[e] = id;
        }
        return id;
      }
      if (offsets != null) {
        return idOfBytes(i, data, (int) ArrowBulk.INTS.get(offsets, 4 * i), (int) ArrowBulk.INTS.get(offsets, 4 * i + 4));
      }
      byte[] bytes = v.getBytes(i);
      return idOfBytes(i, bytes, 0, bytes.length);
    }
    /** The id of dictionary entry {@code e}, held by row {@code i}: looked up by the entry's bytes. */
    private int idOfEntry(int e, int i) {
      int from = dictionary.offsets()[e];
      return idOfBytes(i, dictionary.bytes(), from, from + dictionary.lengths()[e]);
    }
    /** The id of row {@code i}'s value, {@code bytes[from, to)}, made if new. */
    private int idOfBytes(int i, byte[] bytes, int from, int to) {
      int len = to - from;
      if (len <= 1) {
        int s = len == 0 ? 0 : 1 + (bytes[from] & 0xFF);
        int id = small[s];
        if (id < 0) {
          id = newValue(i, bytes, from, to);
          small[s] = id;
        }
        return id;
      }
      int h = hashBytes(bytes, from, to);
      long k0 = prefix(bytes, from, Math.min(len, 8));
      long k1 = len <= 8 ? 0 : prefix(bytes, from + 8, Math.min(len - 8, 8));
      long[] t = table;
      int mask = capacity - 1;
      int p = h & mask;
      long head;
      while ((head = t[4 * p]) != 0) {
        if ((int) head == h && t[4 * p + 1] == len && t[4 * p + 2] == k0 && t[4 * p + 3] == k1) {
          int id = (int) (head >>> 32) - 1;
          if (len <= 16 || Arrays.equals(pool, starts[id] + 16, ends[id], bytes, from + 16, to)) return id;
        }
        p = (p + 1) & mask;
      }
      int id = newValue(i, bytes, from, to);
      t[4 * p] = (long) (id + 1) << 32 | (h & 0xFFFFFFFFL);
      t[4 * p + 1] = len;
      t[4 * p + 2] = k0;
      t[4 * p + 3] = k1;
      if (2 * ++size > capacity) rehash();
      return id;
    }
    /** Whether the values are strings (else binaries): known from the first value. */
    Boolean strings;
    /** Values are kept in the pool only: no String or byte[] made per distinct value (a value is made when asked). */
    @Override int add(Object value) {
      return count++;
    }
    @Override Object value(int id) {
      if (id == nullId) return null;
      return strings ? new String(pool, starts[id], ends[id] - starts[id], java.nio.charset.StandardCharsets.UTF_8)
          : Arrays.copyOfRange(pool, starts[id], ends[id]);
    }
    @Override long bytes() {
      return valueBytes + 8L * count + pool.length + 8L * starts.length + 8L * table.length + 4L * small.length
          + (entryIds == null ? 0 : 4L * entryIds.length);
    }
    private int newValue(int i, byte[] bytes, int from, int to) {
      if (strings == null) strings = v.getObject(i) instanceof String;
      int id = add(null);
      int len = to - from;
      int at = poolEnd;
      if (at + len > pool.length) pool = Arrays.copyOf(pool, Math.max(at + len, 2 * pool.length));
      System.arraycopy(bytes, from, pool, at, len);
      if (id >= starts.length) {
        starts = Arrays.copyOf(starts, Math.max(id + 1, 2 * starts.length));
        ends = Arrays.copyOf(ends, starts.length);
      }
      starts[id] = at;
      ends[id] = at + len;
      poolEnd = at + len;
      valueBytes += len;
      return id;
    }
    /** Bytes {@code [from, from + n)} ({@code n <= 8}) as a little-endian long, zero above them. */
    private static long prefix(byte[] bytes, int from, int n) {
      if (n == 8) return (long) ArrowBulk.LONGS.get(bytes, from);
      long x = 0;
      int k = n;
      if (k >= 4) {
        x = (int) ArrowBulk.INTS.get(bytes, from + n - 4) & 0xFFFFFFFFL;
        k = n - 4;
      }
      for (int j = k - 1; j >= 0; j--) x = x << 8 | (bytes[from + j] & 0xFF);
      return x;
    }
    private void rehash() {
      long[] old = table;
      int oldCapacity = capacity;
      capacity *= 2;
      table = new long[4 * capacity];
      long[] t = table;
      int mask = capacity - 1;
      for (int q = 0; q < oldCapacity; q++) {
        long head = old[4 * q];
        if (head == 0) continue;
        int p = (int) head & mask;
        while (t[4 * p] != 0) p = (p + 1) & mask;
        System.arraycopy(old, 4 * q, t, 4 * p, 4);
      }
    }
  }

  /** Any other type (decimals, booleans …): {@link Keys#of} in a HashMap. */
  private static final class ObjectKeys extends ColumnKeys {
    final Map<Object, Integer> map = new HashMap<>();
    @Override void prepare() {}
    @Override int idOf(int i) {
      Object k = Keys.of(v, i);
      Integer id = map.get(k);
      if (id == null) {
        id = add(v.getObject(i));
        map.put(k, id);
        valueBytes += Keys.sizeOf(k) + 32;
      }
      return id;
    }
  }
}
