package dev.quiver.planner;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.optimizer.Optimizer;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.source.ParquetTableSource;
import dev.quiver.scan.read.ParquetScan;
import dev.quiver.scan.table.DataFile;
import dev.quiver.scan.table.FileSystems;
import dev.quiver.scan.table.FileVersions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.Path;

/**
 * Splitting a query into fragments that run independently, one per Flight endpoint. Only a chain of filters and
 * projections over one Parquet table scan (what the physical planner fuses into the scan's row-group tasks: no
 * aggregate, join, sort, limit, window, union or distinct, so no merge step) is split: its row groups left after
 * planning-time pruning (partition values, footer statistics) are dealt into at most {@code max} groups balanced
 * by compressed bytes, largest first, each to the lightest group; never an empty fragment.
 */
public final class Fragments {
  private Fragments() {}

  /** Row groups {@code rowGroups} of one version of one file. */
  public record FilePart(DataFile file, List<Integer> rowGroups) {
    public FilePart {
      rowGroups = List.copyOf(rowGroups);
    }
  }

  /** One fragment: the parts of the files it reads, and their compressed bytes. */
  public record Fragment(List<FilePart> parts, long compressedBytes) {
    public Fragment {
      parts = List.copyOf(parts);
    }
  }

  /** The table scan under {@code q}'s plan if the plan is filters and projections over it (and no EXPLAIN), else null. */
  static LogicalPlan.TableScan splittableScan(PreparedQuery q) {
    if (q.explain() != PreparedQuery.ExplainMode.NONE) return null;
    LogicalPlan p = q.plan();
    while (p instanceof LogicalPlan.Filter || p instanceof LogicalPlan.Project) p = p.children().get(0);
    return p instanceof LogicalPlan.TableScan s && s.table() instanceof ParquetTableSource src && src.rowGroups() == null
        ? s : null;
  }

  /**
   * {@code q} cut into at most {@code max} fragments (fewer when fewer row groups survive pruning), or null when
   * it is not to be split: {@code max} below 2, a plan other than filters and projections over one Parquet scan,
   * or fewer than two surviving row groups.
   */
  public static List<Fragment> split(PreparedQuery q, int max) {
    if (max < 2) return null;
    LogicalPlan.TableScan scan = splittableScan(q);
    if (scan == null) return null;
    ParquetTableSource src = (ParquetTableSource) scan.table();
    List<ParquetScan.RowGroupRef> groups = new ArrayList<>(
        ParquetScan.survivingRowGroups(src.catalog(), src.table(), scan.predicate(), q.pruning()));
    if (groups.size() < 2) return null;
    int n = Math.min(max, groups.size());
    groups.sort(Comparator.comparingLong(ParquetScan.RowGroupRef::compressedBytes).reversed());
    List<List<ParquetScan.RowGroupRef>> bins = new ArrayList<>();
    long[] bytes = new long[n];
    for (int i = 0; i < n; i++) bins.add(new ArrayList<>());
    for (ParquetScan.RowGroupRef g : groups) {
      int lightest = 0;
      for (int i = 1; i < n; i++) {
        // ties (row groups of no bytes) go to the fragment with fewer groups: none stays empty
        if (bytes[i] < bytes[lightest] || bytes[i] == bytes[lightest] && bins.get(i).size() < bins.get(lightest).size()) {
          lightest = i;
        }
      }
      bins.get(lightest).add(g);
      bytes[lightest] += g.compressedBytes();
    }
    // each fragment reads its files in table order and their row groups in file order
    Map<Path, Integer> order = new HashMap<>();
    for (DataFile f : src.table().files()) order.put(f.path(), order.size());
    List<Fragment> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<DataFile, TreeSet<Integer>> byFile = new LinkedHashMap<>();
      bins.get(i).stream().sorted(Comparator.comparingInt((ParquetScan.RowGroupRef g) -> order.get(g.file().path()))
          .thenComparingInt(ParquetScan.RowGroupRef::index))
          .forEach(g -> byFile.computeIfAbsent(g.file(), k -> new TreeSet<>()).add(g.index()));
      List<FilePart> parts = new ArrayList<>();
      byFile.forEach((f, idx) -> parts.add(new FilePart(f, new ArrayList<>(idx))));
      out.add(new Fragment(parts, bytes[i]));
    }
    return out;
  }

  /**
   * {@code q} (planned over the current snapshot) restricted to {@code parts}: fails with FILE_CHANGED, naming
   * the file, if one of them is not the version the fragment was planned over (changed, replaced or deleted
   * since), or if {@code q} is not a query that can be split.
   */
  public static PreparedQuery restrict(PreparedQuery q, List<FilePart> parts) {
    LogicalPlan.TableScan scan = splittableScan(q);
    if (scan == null) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the ticket is a fragment of a query that cannot be split into"
          + " endpoints: run the query again");
    }
    ParquetTableSource src = (ParquetTableSource) scan.table();
    FileSystems fileSystems = src.catalog().fileSystems();
    Map<Path, DataFile> current = new HashMap<>();
    for (DataFile f : src.table().files()) current.put(f.path(), f);
    Map<Path, Set<Integer>> groups = new HashMap<>();
    List<DataFile> files = new ArrayList<>();
    for (FilePart part : parts) {
      DataFile planned = part.file();
      QuiverException changed = FileVersions.changed(fileSystems, planned, null);
      DataFile now = current.get(planned.path());
      if (changed != null || now == null) throw stale(planned, changed);
      // the file is the planned version (the snapshot may not have seen a change back and forth yet)
      if (!now.sameVersion(planned)) {
        now = new DataFile(planned.path(), planned.length(), planned.modificationTime(), planned.version(),
            now.partitionValues());
      }
      files.add(now);
      groups.put(now.path(), Set.copyOf(part.rowGroups()));
    }
    dev.quiver.scan.table.ParquetTable t = src.table();
    dev.quiver.scan.table.ParquetTable only = new dev.quiver.scan.table.ParquetTable(t.name(), files, t.schema(),
        t.partitionColumns(), t.unsupportedColumns(), t.rowCount(), t.distinctBounds());
    ParquetTableSource restricted = new ParquetTableSource(src.catalog(), only, Map.copyOf(groups));
    LogicalPlan plan = replaceScan(q.plan(), new LogicalPlan.TableScan(restricted, scan.columns(), scan.names(),
        scan.predicate(), scan.residual(), scan.exact()));
    return new PreparedQuery(q.sql(), q.explain(), q.analyzed(), new Optimizer.Result(plan, q.steps()), q.schema(),
        q.eval(), q.parameterTypes(), q.batchRows(), q.pruning(), q.plansBuilt(), q.planningNanos(), q.parallelPipelines());
  }

  private static QuiverException stale(DataFile planned, QuiverException cause) {
    return new QuiverException(ErrorCode.FILE_CHANGED, "stale endpoint: file " + planned.path() + " changed since"
        + " the query's endpoints were planned (its length, modified time or identity differs, or it is gone); run the"
        + " query again (GetFlightInfo) for endpoints of the current data", cause);
  }

  private static LogicalPlan replaceScan(LogicalPlan p, LogicalPlan.TableScan scan) {
    if (p instanceof LogicalPlan.TableScan) return scan;
    return p.withChildren(List.of(replaceScan(p.children().get(0), scan)));
  }
}
