package dev.quiver.scan.prune;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.parquet.column.page.DictionaryPageReadStore;
import org.apache.parquet.hadoop.BloomFilterReader;
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
 * dictionaries, then bloom filters — those two only for columns the predicate tests with = or IN (for
 * ranges statistics already know what a dictionary would tell, and blooms cannot answer), and only if
 * the chunk has one, since reading them costs I/O. The loop is Quiver's so every decision is attributed.
 */
public final class RowGroupPruner {
  private final FilterPredicate predicate;
  private final Set<ColumnPath> predicateColumns;
  private final Set<ColumnPath> equalityColumns = new HashSet<>();

  public RowGroupPruner(ParquetFilterConverter.Pred pred) {
    this.predicate = pred.predicate();
    this.predicateColumns = new HashSet<>();
    for (String c : pred.columns()) predicateColumns.add(ColumnPath.get(c));
    for (String c : pred.equalityColumns()) equalityColumns.add(ColumnPath.get(c));
  }

  public FilterPredicate predicate() {
    return predicate;
  }

  public Set<ColumnPath> predicateColumns() {
    return predicateColumns;
  }

  /** Whether the footer statistics alone prove that no row of {@code block} matches (no I/O: for planning). */
  public boolean prunedByStatistics(BlockMetaData block) {
    return StatisticsFilter.canDrop(predicate, block.getColumns());
  }

  /** The level that prunes {@code block}, or null if it might hold a matching row. */
  public PruningLevel prune(ParquetFileReader reader, BlockMetaData block) {
    return prune(() -> reader.getDictionaryReader(block), () -> reader.getBloomFilterDataReader(block), block);
  }

  /**
   * As above, with the dictionaries and bloom filters read through {@code dictionaries} and {@code blooms} (asked
   * only when the predicate tests a column that has one: a scan's cache answers them without opening the file).
   */
  public PruningLevel prune(Supplier<DictionaryPageReadStore> dictionaries, Supplier<BloomFilterReader> blooms,
      BlockMetaData block) {
    List<ColumnChunkMetaData> columns = block.getColumns();
    if (StatisticsFilter.canDrop(predicate, columns)) return PruningLevel.STATISTICS;
    boolean hasDictionary = false;
    boolean hasBloom = false;
    for (ColumnChunkMetaData c : columns) {
      // ranges are settled by statistics; dictionaries and blooms pay off for = and IN only
      if (!equalityColumns.contains(c.getPath())) continue;
      hasDictionary |= c.hasDictionaryPage();
      hasBloom |= c.getBloomFilterOffset() >= 0;
    }
    if (hasDictionary && DictionaryFilter.canDrop(predicate, columns, dictionaries.get())) {
      return PruningLevel.DICTIONARY;
    }
    if (hasBloom && BloomFilterImpl.canDrop(predicate, columns, blooms.get())) {
      return PruningLevel.BLOOM;
    }
    return null;
  }

}
