package dev.quiver.scan.prune;

/** The level that proved a row group cannot match, in the order the levels are tried. */
public enum PruningLevel {
  /** The file's hive partition values contradict the predicate. */
  PARTITION,
  /** min / max / null_count statistics of the column chunk. */
  STATISTICS,
  /** Every value of a fully dictionary-encoded column chunk. */
  DICTIONARY,
  /** The column chunk's bloom filter. */
  BLOOM,
  /**
   * A filter known only at run time: a hash join's build side, complete, gives the range (or the set) of its keys,
   * and the probe side's scan skips row groups whose statistics show they hold none of them.
   */
  RUNTIME,
  /**
   * A top-N's bound, tightened while the scan runs: once {@code ORDER BY k LIMIT n} holds n rows, a row group whose
   * statistics show that none of its rows sorts before the n-th is skipped (see {@code TopNFilter}).
   */
  TOP_N
}
