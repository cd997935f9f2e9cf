package dev.quiver.scan.prune;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.parquet.filter2.bloomfilterlevel.BloomFilterImpl;
import org.apache.parquet.filter2.dictionarylevel.DictionaryFilter;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.filter2.statisticslevel.StatisticsFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;

/**
 * Decides per row group which level, if any, proves that no row can match: statistics first, then
 * dictionaries (only read when a predicate column of the chunk has one), then bloom filters (only read
 * when a predicate column has one). The loop is Quiver's so every decision is attributed.
 */
public final class RowGroupPruner {
  private final FilterPredicate predicate;
  private final Set<ColumnPath> predicateColumns;

  public RowGroupPruner(ParquetFilterConverter.Pred pred) {
    this.predicate = pred.predicate();
    this.predicateColumns = new HashSet<>();
    for (String c : pred.columns()) predicateColumns.add(ColumnPath.get(c));
  }

  public FilterPredicate predicate() {
    return predicate;
  }

  public Set<ColumnPath> predicateColumns() {
    return predicateColumns;
  }

  /** The level that prunes {@code block}, or null if it might hold a matching row. */
  public PruningLevel prune(ParquetFileReader reader, BlockMetaData block) {
    List<ColumnChunkMetaData> columns = block.getColumns();
    if (StatisticsFilter.canDrop(predicate, columns)) return PruningLevel.STATISTICS;
    boolean hasDictionary = false;
    boolean hasBloom = false;
    for (ColumnChunkMetaData c : columns) {
      if (!predicateColumns.contains(c.getPath())) continue;
      hasDictionary |= c.hasDictionaryPage();
      hasBloom |= c.getBloomFilterOffset() >= 0;
    }
    if (hasDictionary && DictionaryFilter.canDrop(predicate, columns, reader.getDictionaryReader(block))) {
      return PruningLevel.DICTIONARY;
    }
    if (hasBloom && BloomFilterImpl.canDrop(predicate, columns, reader.getBloomFilterDataReader(block))) {
      return PruningLevel.BLOOM;
    }
    return null;
  }

}
