package dev.quiver.planner.exec;

import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A final aggregation's input on disk, split into {@link #PARTITIONS} partitions by a hash of the group keys
 * ({@link KeyPartitions}), so that every state and row of a group lands in one partition and each partition can be
 * aggregated alone. Per partition, state batches and rows passed through go to two {@link SpillFile}s (their columns
 * differ); {@link #next} reads a partition's states, then its rows. The files live in a directory of the query's
 * own under {@code --spill-dir}; closing deletes them, however the query ended.
 */
final class AggregateSpill implements AutoCloseable {
  static final int PARTITIONS = 16;
  /**
   * The deepest level: a partition that does not fit in memory is split again, by other bits of the keys' hash, into
   * {@link #PARTITIONS} at the next level; at this one it fails (16^4 = 65,536 partitions: the input would have to be
   * tens of thousands of times the query's memory, or one group too big alone).
   */
  static final int MAX_LEVEL = 3;
  /** 0 for the aggregation's input; a partition split again is at its spill's level + 1. */
  final int level;
  private static final String OWNER = "the hash aggregation";
  private final Schema stateSchema;
  private final int keyCount;
  private final BufferAllocator allocator;
  private final Path dir;
  private final SpillFile[] states = new SpillFile[PARTITIONS];
  private final SpillFile[] rows = new SpillFile[PARTITIONS];

  AggregateSpill(Schema stateSchema, int keyCount, BufferAllocator allocator) {
    this(stateSchema, keyCount, allocator, 0);
  }

  AggregateSpill(Schema stateSchema, int keyCount, BufferAllocator allocator, int level) {
    if (keyCount == 0) throw new IllegalArgumentException("one group needs no partitions");
    this.level = level;
    this.stateSchema = stateSchema;
    this.keyCount = keyCount;
    this.allocator = allocator;
    this.dir = SpillFile.directory("quiver-aggregate-", OWNER);
  }

  /** Writes the rows of {@code b} (states or rows passed through; not closed here) to their partitions. */
  void add(VectorSchemaRoot b) {
    int n = b.getRowCount();
    if (n == 0) return;
    boolean raw = PartialAggregate.isRaw(b, keyCount);
    int[] part = KeyPartitions.of(b, keyCount, PARTITIONS, level);
    int[] count = new int[PARTITIONS];
    for (int p : part) count[p]++;
    for (int p = 0; p < PARTITIONS; p++) {
      if (count[p] == 0) continue;
      int[] selected = new int[count[p]];
      int k = 0;
      for (int i = 0; i < n; i++) if (part[i] == p) selected[k++] = i;
      SpillFile[] files = raw ? rows : states;
      if (files[p] == null) {
        files[p] = new SpillFile(dir.resolve((raw ? "rows-" : "states-") + p + ".arrows"),
            raw ? b.getSchema() : stateSchema, allocator, OWNER);
      }
      try (VectorSchemaRoot taken = FilterExec.take(b, selected, k, allocator)) {
        files[p].write(taken);
      }
    }
  }

  /** Ends writing: the partitions can be read. */
  void finishWriting() {
    for (SpillFile f : states) if (f != null) f.finish();
    for (SpillFile f : rows) if (f != null) f.finish();
  }

  /** The next batch of partition {@code p} (its states first, then its rows; owned by the caller), or null. */
  VectorSchemaRoot next(int p) {
    VectorSchemaRoot b = states[p] == null ? null : states[p].read();
    if (b == null && rows[p] != null) b = rows[p].read();
    return b;
  }

  /** Bytes written to disk. */
  long bytes() {
    long sum = 0;
    for (SpillFile f : states) if (f != null) sum += f.bytes();
    for (SpillFile f : rows) if (f != null) sum += f.bytes();
    return sum;
  }

  @Override
  public void close() {
    for (SpillFile f : states) if (f != null) f.close();
    for (SpillFile f : rows) if (f != null) f.close();
    SpillFile.deleteDirectory(dir);
  }
}
