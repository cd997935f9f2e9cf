package dev.quiver.planner.exec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An external sort's sorted runs on disk: each run a {@link SpillFile} of rows already in order, in a directory of
 * the query's own under {@link JoinSpill#directory()} (the server's {@code --spill-dir}), written by
 * {@link #writeRun} and read back batch by batch through {@link #run}. Closing deletes every file and the
 * directory, whether the sort finished, failed or was cancelled.
 */
final class SortSpill implements AutoCloseable {
  private static final String OWNER = "the sort";
  private final Schema schema;
  private final BufferAllocator allocator;
  private final Path dir;
  private final List<SpillFile> runs = new ArrayList<>();

  SortSpill(Schema schema, BufferAllocator allocator) {
    this.schema = schema;
    this.allocator = allocator;
    this.dir = SpillFile.directory("quiver-sort-", OWNER);
  }

  /** The runs written. */
  int runs() {
    return runs.size();
  }

  /** Bytes written to disk. */
  long bytes() {
    long sum = 0;
    for (SpillFile f : runs) sum += f.bytes();
    return sum;
  }

  /**
   * Writes rows {@code order} (references into {@code batches}, see {@link Rows}) as a new run, {@code batchRows}
   * rows a batch; {@code check} runs between batches (cancellation).
   */
  void writeRun(List<VectorSchemaRoot> batches, long[] order, int batchRows, Runnable check) {
    SpillFile run = new SpillFile(dir.resolve("run-" + runs.size() + ".arrows"), schema, allocator, OWNER);
    runs.add(run);
    for (int from = 0; from < order.length; from += batchRows) {
      check.run();
      int count = Math.min(batchRows, order.length - from);
      try (VectorSchemaRoot chunk = Rows.root(schema.getFields(),
          Rows.copy(batches, 0, schema.getFields(), order, from, count, allocator), count)) {
        run.write(chunk);
      }
    }
    run.finish();
  }

  /** Run {@code r}, to read back. */
  SpillFile run(int r) {
    return runs.get(r);
  }

  @Override
  public void close() {
    for (SpillFile f : runs) f.close();
    SpillFile.deleteDirectory(dir);
  }
}
