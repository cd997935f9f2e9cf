package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An external sort's sorted runs on disk: each run is an Arrow IPC stream file of rows already in order, in a
 * directory of the query's own under {@link JoinSpill#directory()} (the server's {@code --spill-dir}), written by
 * {@link #writeRun} and read back batch by batch by {@link #open}. Closing deletes every file and the directory,
 * whether the sort finished, failed or was cancelled.
 */
final class SortSpill implements AutoCloseable {
  private final Schema schema;
  private final BufferAllocator allocator;
  private final Path dir;
  private final List<Path> runs = new ArrayList<>();
  private final List<Long> runRows = new ArrayList<>();
  private long bytes;

  SortSpill(Schema schema, BufferAllocator allocator) {
    this.schema = schema;
    this.allocator = allocator;
    try {
      Files.createDirectories(JoinSpill.directory());
      this.dir = Files.createTempDirectory(JoinSpill.directory(), "quiver-sort-");
    } catch (IOException e) {
      throw failed(e);
    }
  }

  private static QuiverException failed(IOException e) {
    return new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "the sort could not spill to " + JoinSpill.directory()
        + " (--spill-dir): " + e.getMessage());
  }

  /** The runs written. */
  int runs() {
    return runs.size();
  }

  /** Bytes written to disk. */
  long bytes() {
    return bytes;
  }

  /**
   * Writes rows {@code order} (references into {@code batches}, see {@link Rows}) as a new run, {@code batchRows}
   * rows a batch; {@code check} runs between batches (cancellation).
   */
  void writeRun(List<VectorSchemaRoot> batches, long[] order, int batchRows, Runnable check) {
    Path file = dir.resolve("run-" + runs.size() + ".arrows");
    runs.add(file);
    runRows.add((long) order.length);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        VectorSchemaRoot sink = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(sink, null, Channels.newChannel(out))) {
      writer.start();
      for (int from = 0; from < order.length; from += batchRows) {
        check.run();
        int count = Math.min(batchRows, order.length - from);
        try (VectorSchemaRoot chunk = Rows.root(schema.getFields(),
            Rows.copy(batches, 0, schema.getFields(), order, from, count, allocator), count);
            ArrowRecordBatch rb = new VectorUnloader(chunk).getRecordBatch()) {
          new VectorLoader(sink).load(rb);
          writer.writeBatch();
        }
      }
      writer.end();
      bytes += writer.bytesWritten();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  /** A reader of run {@code r}: its batches in order, each handed over to the caller, then null. */
  Run open(int r) {
    return new Run(r);
  }

  /** One run read back. */
  final class Run implements AutoCloseable {
    private final int r;
    private InputStream in;
    private ArrowStreamReader reader;

    private Run(int r) {
      this.r = r;
    }

    /** The run's next batch (owned by the caller), or null at its end. */
    VectorSchemaRoot next() {
      if (runRows.get(r) == 0) return null;
      try {
        if (reader == null) {
          in = new BufferedInputStream(Files.newInputStream(runs.get(r)), 1 << 16);
          reader = new ArrowStreamReader(in, allocator);
        }
        if (!reader.loadNextBatch()) return null;
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        int n = root.getRowCount();
        List<FieldVector> vectors = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
          FieldVector t = v.getField().createVector(allocator);
          v.makeTransferPair(t).transfer();
          vectors.add(t);
        }
        for (FieldVector v : vectors) v.setValueCount(n);
        return new VectorSchemaRoot(schema.getFields(), vectors, n);
      } catch (IOException e) {
        throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "the sort could not read back its spill file "
            + runs.get(r) + ": " + e.getMessage());
      }
    }

    @Override
    public void close() {
      try {
        if (reader != null) reader.close();
        if (in != null) in.close();
      } catch (IOException ignored) {
        // the file is deleted with the spill
      }
      reader = null;
      in = null;
    }
  }

  @Override
  public void close() {
    for (Path f : runs) {
      try {
        Files.deleteIfExists(f);
      } catch (IOException ignored) {
        // best effort: the directory is deleted below if it is empty
      }
    }
    try {
      Files.deleteIfExists(dir);
    } catch (IOException ignored) {
      // left behind only if a file could not be deleted
    }
  }
}
