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
 * One Arrow IPC stream file an operator spills to (sorted runs, aggregation partitions): batches appended by
 * {@link #write} (the file is made on the first), then, after {@link #finish}, read back in order by {@link #read},
 * each batch handed over to the caller. Closing closes the streams and deletes the file, whatever state it is in.
 * Errors are RESOURCE_EXHAUSTED naming {@code owner} and {@code --spill-dir}.
 */
final class SpillFile implements AutoCloseable {
  private final Path file;
  private final Schema schema;
  private final BufferAllocator allocator;
  private final String owner;
  private OutputStream out;
  private VectorSchemaRoot sink;
  private ArrowStreamWriter writer;
  private InputStream in;
  private ArrowStreamReader reader;
  private long rows;
  private long bytes;

  SpillFile(Path file, Schema schema, BufferAllocator allocator, String owner) {
    this.file = file;
    this.schema = schema;
    this.allocator = allocator;
    this.owner = owner;
  }

  /** A directory of its own under {@code --spill-dir} for {@code owner}'s files. */
  static Path directory(String prefix, String owner) {
    try {
      Files.createDirectories(JoinSpill.directory());
      return Files.createTempDirectory(JoinSpill.directory(), prefix);
    } catch (IOException e) {
      throw failed(owner, e);
    }
  }

  /** Deletes {@code dir} (best effort: left behind only if something in it could not be deleted). */
  static void deleteDirectory(Path dir) {
    try {
      Files.deleteIfExists(dir);
    } catch (IOException ignored) {
      // not empty: a file could not be deleted
    }
  }

  private static QuiverException failed(String owner, IOException e) {
    return new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, owner + " could not spill to " + JoinSpill.directory()
        + " (--spill-dir): " + e.getMessage());
  }

  /** Appends {@code batch} (not closed here; its schema must be this file's). */
  void write(VectorSchemaRoot batch) {
    try {
      if (writer == null) {
        out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        sink = VectorSchemaRoot.create(schema, allocator);
        writer = new ArrowStreamWriter(sink, null, Channels.newChannel(out));
        writer.start();
      }
      try (ArrowRecordBatch rb = new VectorUnloader(batch).getRecordBatch()) {
        new VectorLoader(sink).load(rb);
      }
      writer.writeBatch();
      rows += batch.getRowCount();
      bytes = writer.bytesWritten();
    } catch (IOException e) {
      throw failed(owner, e);
    }
  }

  /** Ends writing: the file can be read. */
  void finish() {
    if (writer == null) return;
    try {
      writer.end();
      bytes = writer.bytesWritten();
      writer.close();
      out.close();
    } catch (IOException e) {
      throw failed(owner, e);
    } finally {
      writer = null;
      out = null;
      sink.close();
      sink = null;
    }
  }

  long rows() {
    return rows;
  }

  long bytes() {
    return bytes;
  }

  /** The next batch (owned by the caller), or null at the end. */
  VectorSchemaRoot read() {
    if (rows == 0) return null;
    try {
      if (reader == null) {
        in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
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
      throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, owner + " could not read back its spill file " + file
          + ": " + e.getMessage());
    }
  }

  @Override
  public void close() {
    try {
      if (writer != null) writer.close();
      if (out != null) out.close();
      if (reader != null) reader.close();
      if (in != null) in.close();
    } catch (IOException | RuntimeException ignored) {
      // closing after a failure: the file is deleted next
    }
    if (sink != null) sink.close();
    writer = null;
    out = null;
    sink = null;
    reader = null;
    in = null;
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // the directory stays behind with it
    }
  }
}
