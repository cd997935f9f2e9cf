package dev.quiver.scan.prune;

import dev.quiver.scan.table.ChunkStats;
import java.util.List;

/**
 * What a scan did with one row group, recorded only when its {@link ScanMetrics} were made to
 * {@link ScanMetrics#recordingRowGroups() record row groups}: {@code ordinal} orders the reports as the scan
 * planned them (files, then row groups); {@code file} is relative to the data directory; {@code prunedBy} the level
 * that skipped it (null: read); {@code pagesTotal}/{@code pagesPruned} the pages of the columns read and those the
 * page index excluded (0/0 when the page index excluded nothing or was not used); {@code rowsRead} the rows decoded;
 * {@code rowsPassing} those that passed the scan's row filter (its exact conjuncts; all rows read when it has none);
 * {@code stats} the footer's statistics of the predicate's columns in this row group; {@code fromStatistics} that the
 * scan's pipeline took the row group's answer from its footer statistics (not read: {@code rowsRead} 0).
 */
public record RowGroupReport(int ordinal, String file, int index, long rows, long compressedBytes,
    PruningLevel prunedBy, int pagesTotal, int pagesPruned, long rowsRead, long rowsPassing, List<ChunkStats> stats,
    boolean fromStatistics) {
  public RowGroupReport {
    stats = List.copyOf(stats);
  }

  /** A row group pruned or read (not answered from its statistics). */
  public RowGroupReport(int ordinal, String file, int index, long rows, long compressedBytes, PruningLevel prunedBy,
      int pagesTotal, int pagesPruned, long rowsRead, long rowsPassing, List<ChunkStats> stats) {
    this(ordinal, file, index, rows, compressedBytes, prunedBy, pagesTotal, pagesPruned, rowsRead, rowsPassing, stats,
        false);
  }

  /** The same row group, answered from its footer statistics. */
  public RowGroupReport answeredFromStatistics() {
    return new RowGroupReport(ordinal, file, index, rows, compressedBytes, null, 0, 0, 0, rows, stats, true);
  }
}
