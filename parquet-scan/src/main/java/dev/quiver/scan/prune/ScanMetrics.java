package dev.quiver.scan.prune;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counters of one scan, attributed per pruning level; safe to update from several threads. */
public final class ScanMetrics {
  private final AtomicLong rowGroupsTotal = new AtomicLong();
  private final EnumMap<PruningLevel, AtomicLong> pruned = new EnumMap<>(PruningLevel.class);
  private final AtomicLong pagesPruned = new AtomicLong();
  private final AtomicLong rowsScanned = new AtomicLong();
  private final AtomicLong bytesScanned = new AtomicLong();
  private final AtomicLong filesTotal = new AtomicLong();
  private final AtomicLong rowsFilteredLate = new AtomicLong();
  private final AtomicLong dictionaryFilterRows = new AtomicLong();
  private final AtomicLong dictionaryKeyRows = new AtomicLong();
  private final AtomicLong decoderFallbacks = new AtomicLong();
  private final AtomicLong fromStatistics = new AtomicLong();
  private final AtomicLong metadataCacheHits = new AtomicLong();
  private final AtomicLong metadataCacheMisses = new AtomicLong();
  /** The runtime filter the scan was given (null: none), as EXPLAIN ANALYZE shows it. */
  private volatile String runtimeFilter;
  /** The top-N filter (null: the scan has none); its text is its bound now, as EXPLAIN ANALYZE shows it. */
  private volatile Object topNFilter;

  /** One report per row group, when asked for ({@link #recordingRowGroups()}); null otherwise (costs nothing). */
  private final ConcurrentLinkedQueue<RowGroupReport> rowGroups;

  public ScanMetrics() {
    this(false);
  }

  private ScanMetrics(boolean recordRowGroups) {
    for (PruningLevel l : PruningLevel.values()) pruned.put(l, new AtomicLong());
    rowGroups = recordRowGroups ? new ConcurrentLinkedQueue<>() : null;
  }

  /** Metrics that also keep a {@link RowGroupReport} per row group (for a profile; the plain path does not). */
  public static ScanMetrics recordingRowGroups() {
    return new ScanMetrics(true);
  }

  /** Whether the scan should make {@link RowGroupReport}s. */
  public boolean recordsRowGroups() {
    return rowGroups != null;
  }

  /** Records what happened to one row group (ignored unless {@link #recordsRowGroups()}); any thread. */
  public void report(RowGroupReport report) {
    if (rowGroups != null) rowGroups.add(report);
  }

  /** The row-group reports so far, in the scan's order (files, then row groups); empty unless recording. */
  public List<RowGroupReport> rowGroupReports() {
    if (rowGroups == null) return List.of();
    List<RowGroupReport> out = new ArrayList<>(rowGroups);
    out.sort(Comparator.comparingInt(RowGroupReport::ordinal));
    return out;
  }

  public void file() { filesTotal.incrementAndGet(); }
  public void rowGroup() { rowGroupsTotal.incrementAndGet(); }
  public void pruned(PruningLevel level) { pruned.get(level).incrementAndGet(); }
  public void scanned(long rows, long bytes) { rowsScanned.addAndGet(rows); bytesScanned.addAndGet(bytes); }
  public void pagesPruned(long n) { pagesPruned.addAndGet(n); }
  /** Rows whose predicate columns were decoded and failed, so no other column was decoded for them. */
  public void filteredLate(long n) { rowsFilteredLate.addAndGet(n); }
  public long rowsFilteredLate() { return rowsFilteredLate.get(); }
  /**
   * Rows whose filter verdict was their dictionary entry's: the filter ran once per entry of the column chunk's
   * dictionary and the rows were judged by their indexes, their strings never decoded for it.
   */
  public void dictionaryFilterRows(long n) { dictionaryFilterRows.addAndGet(n); }
  public long dictionaryFilterRows() { return dictionaryFilterRows.get(); }
  /** Rows whose string group key went to the scan's pipeline as a dictionary index, no string made. */
  public void dictionaryKeyRows(long n) { dictionaryKeyRows.addAndGet(n); }
  public long dictionaryKeyRows() { return dictionaryKeyRows.get(); }
  /**
   * Column chunks the own decoders were meant to read but parquet-java's column readers read (a type or
   * encoding the own decoders do not handle); 0 when the own decoders are off.
   */
  public void decoderFallbacks(long n) { decoderFallbacks.addAndGet(n); }
  public long decoderFallbacks() { return decoderFallbacks.get(); }
  /** A row group read (counted in the total) whose rows were answered from its footer statistics: no page read. */
  public void answeredFromStatistics() { fromStatistics.incrementAndGet(); }
  /** A dictionary, bloom filter or page index the scan found in the metadata cache. */
  public void metadataCacheHit() { metadataCacheHits.incrementAndGet(); }
  /** One the scan had to read from its file (the cache did not have it). */
  public void metadataCacheMiss() { metadataCacheMisses.incrementAndGet(); }
  public long metadataCacheHits() { return metadataCacheHits.get(); }
  public long metadataCacheMisses() { return metadataCacheMisses.get(); }
  public long rowGroupsFromStatistics() { return fromStatistics.get(); }
  /** The scan got a runtime filter, shown as {@code text}. */
  public synchronized void runtimeFilter(String text) {
    runtimeFilter = runtimeFilter == null ? text : runtimeFilter + " AND " + text;
  }
  /** The scan prunes by a top-N's bound, {@code filter} (its {@code toString()} shows the bound now). */
  public void topNFilter(Object filter) { topNFilter = filter; }
  /** The top-N filter's bound now, or null when the scan has none. */
  public String topNFilter() { return topNFilter == null ? null : topNFilter.toString(); }
  /** The runtime filter the scan got, or null. */
  public String runtimeFilter() { return runtimeFilter; }

  public long rowGroupsTotal() { return rowGroupsTotal.get(); }
  public long rowGroupsPruned() { return pruned.values().stream().mapToLong(AtomicLong::get).sum(); }
  public long rowGroupsPruned(PruningLevel level) { return pruned.get(level).get(); }
  public long rowsScanned() { return rowsScanned.get(); }
  public long bytesScanned() { return bytesScanned.get(); }

  /**
   * The metrics in EXPLAIN ANALYZE order, as {@code key -> value}; {@code row_groups_pruned_runtime} only for a scan
   * that got a runtime filter, {@code row_groups_pruned_top_n} only for one under a top-N, {@code row_groups_from_statistics}, {@code dictionary_filter_rows}, {@code dictionary_key_rows} and {@code decoder_fallbacks} only if not 0, {@code metadata_cache_hits} and
   * {@code _misses} only when the scan looked any dictionary, bloom filter or page index up in its cache.
   */
  public Map<String, Long> asMap() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("files", filesTotal.get());
    m.put("row_groups_total", rowGroupsTotal());
    m.put("row_groups_pruned", rowGroupsPruned());
    m.put("row_groups_pruned_partition", rowGroupsPruned(PruningLevel.PARTITION));
    m.put("row_groups_pruned_statistics", rowGroupsPruned(PruningLevel.STATISTICS));
    m.put("row_groups_pruned_dictionary", rowGroupsPruned(PruningLevel.DICTIONARY));
    m.put("row_groups_pruned_bloom", rowGroupsPruned(PruningLevel.BLOOM));
    if (runtimeFilter != null) m.put("row_groups_pruned_runtime", rowGroupsPruned(PruningLevel.RUNTIME));
    if (topNFilter != null) m.put("row_groups_pruned_top_n", rowGroupsPruned(PruningLevel.TOP_N));
    if (fromStatistics.get() != 0) m.put("row_groups_from_statistics", fromStatistics.get());
    m.put("pages_pruned", pagesPruned.get());
    m.put("rows_scanned", rowsScanned());
    m.put("bytes_scanned", bytesScanned());
    m.put("rows_filtered_late", rowsFilteredLate.get());
    if (dictionaryFilterRows.get() != 0) m.put("dictionary_filter_rows", dictionaryFilterRows.get());
    if (dictionaryKeyRows.get() != 0) m.put("dictionary_key_rows", dictionaryKeyRows.get());
    if (decoderFallbacks.get() != 0) m.put("decoder_fallbacks", decoderFallbacks.get());
    if (metadataCacheHits.get() + metadataCacheMisses.get() != 0) {
      m.put("metadata_cache_hits", metadataCacheHits.get());
      m.put("metadata_cache_misses", metadataCacheMisses.get());
    }
    return m;
  }
}
