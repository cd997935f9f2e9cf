package dev.quiver.planner.source;

import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.read.ParquetScan;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table of Parquet files in one snapshot of a data directory: {@code catalog} is the snapshot it was resolved
 * in (its footer cache and Hadoop configuration are what the scan reads through).
 */
public record ParquetTableSource(Catalog catalog, ParquetTable table,
    java.util.Map<org.apache.hadoop.fs.Path, java.util.Set<Integer>> rowGroups) implements TableSource {
  /** The whole table. */
  public ParquetTableSource(Catalog catalog, ParquetTable table) {
    this(catalog, table, null);
  }

  @Override public String name() { return table.name(); }
  @Override public Schema schema() { return table.schema(); }
  @Override public Field field(String column) { return table.field(column); }
  @Override public long rowCount() { return table.rowCount(); }
  @Override public long distinctBound(String column) { return table.distinctBound(column); }
  @Override public boolean dictionaryEncoded(String column) { return table.dictionaryEncoded(column); }

  @Override
  public String describeScan() {
    return "ParquetScanExec: table=" + table.name() + " files=" + table.files().size();
  }

  @Override
  public BatchReader open(ScanSpec spec, BufferAllocator allocator, ScanMetrics metrics) {
    ParquetScan scan = new ParquetScan(catalog, table, spec.columns(), spec.predicate(), spec.filter(), allocator,
        metrics, spec.batchRows(), spec.pruning(), spec.options());
    if (spec.pipeline() != null) scan.withPipeline(spec.pipeline());
    scan.withStopCheck(spec.stopCheck());
    if (rowGroups != null) scan.withRowGroups(rowGroups);
    return new BatchReader() {
      @Override public VectorSchemaRoot next() { return scan.next(); }
      @Override public void runtimeFilter(dev.quiver.scan.predicate.ScanPredicate filter) { scan.withRuntimeFilter(filter); }
      @Override public boolean keysByIndex(java.util.Set<String> columns) {
        scan.withKeysByIndex(columns);
        return true;
      }
      @Override public boolean topN(dev.quiver.scan.read.TopNFilter filter) {
        scan.withTopN(filter);
        return true;
      }
      @Override public void close() { scan.close(); }
    };
  }

  /** Equal when the same table version is read (the snapshot it came from does not matter). */
  @Override
  public boolean equals(Object o) {
    return o instanceof ParquetTableSource p && p.table.equals(table) && java.util.Objects.equals(p.rowGroups, rowGroups);
  }

  @Override
  public int hashCode() {
    return table.hashCode() * 31 + java.util.Objects.hashCode(rowGroups);
  }

  @Override
  public String toString() {
    return table.name();
  }
}
