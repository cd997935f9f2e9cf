package dev.quiver.scan.table;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The metadata a scan reads to prune, beyond the footer ({@link FooterCache}): dictionary pages and bloom filters of
 * column chunks, and their column and offset indexes, kept across queries in one cache bounded by bytes
 * (least recently used first out). An entry is keyed by the version of its file (path, length, modification time and
 * identity, as the footer cache and the stale-file check compare them: see {@link FileVersions}), the row group and
 * the column, so a replaced file is never answered from the cache; and it is put only by a reader that has checked,
 * after reading it, that the file is still that version ({@link #put} is the caller's promise). A value may be
 * {@code null} (the chunk has none); that is cached too. Values must be immutable, or never changed by their users.
 * Thread-safe.
 */
public final class MetadataCache {
  /** What an entry holds. */
  public enum Kind { DICTIONARY, BLOOM, COLUMN_INDEX, OFFSET_INDEX }

  /** An entry's key: the file version, the row group, the column (its dotted path) and the kind. */
  public record Key(String path, long length, long modificationTime, String version, int rowGroup, String column,
      Kind kind) {
    public static Key of(DataFile file, int rowGroup, String column, Kind kind) {
      return new Key(file.path().toString(), file.length(), file.modificationTime(), file.version(), rowGroup, column,
          kind);
    }
  }

  /** A cached value (null: the chunk has none) and what it is charged. */
  public record Entry(Object value, long bytes) {}

  /** Charged to every entry beyond its value: the key, the map's node, the entry. */
  public static final long OVERHEAD = 160;

  private final long maxBytes;
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();

  /** A cache of at most {@code maxBytes} (0: caches nothing). */
  public MetadataCache(long maxBytes) {
    if (maxBytes < 0) throw new IllegalArgumentException("a cache of " + maxBytes + " bytes");
    this.maxBytes = maxBytes;
  }

  public long maxBytes() {
    return maxBytes;
  }

  /** The entry of {@code key}, or null when it is not cached (a miss). */
  public Entry get(Key key) {
    Entry e;
    synchronized (entries) {
      e = entries.get(key);
    }
    (e == null ? misses : hits).incrementAndGet();
    return e;
  }

  /**
   * Caches {@code value} (null: the chunk has none) charged {@code valueBytes} plus {@link #OVERHEAD}, evicting the
   * least recently used entries until the whole fits; an entry larger than the cache is not kept.
   */
  public void put(Key key, Object value, long valueBytes) {
    long charge = Math.max(0, valueBytes) + OVERHEAD;
    if (charge > maxBytes) return;
    synchronized (entries) {
      Entry old = entries.put(key, new Entry(value, charge));
      if (old != null) bytes -= old.bytes();
      bytes += charge;
      Iterator<Map.Entry<Key, Entry>> it = entries.entrySet().iterator();
      while (bytes > maxBytes && it.hasNext()) {
        Map.Entry<Key, Entry> eldest = it.next();
        if (eldest.getKey().equals(key)) continue;
        bytes -= eldest.getValue().bytes();
        it.remove();
        evictions.incrementAndGet();
      }
    }
  }

  /** Bytes charged to the entries held. */
  public long bytes() {
    synchronized (entries) {
      return bytes;
    }
  }

  public int size() {
    synchronized (entries) {
      return entries.size();
    }
  }

  public long hits() {
    return hits.get();
  }

  public long misses() {
    return misses.get();
  }

  public long evictions() {
    return evictions.get();
  }
}
