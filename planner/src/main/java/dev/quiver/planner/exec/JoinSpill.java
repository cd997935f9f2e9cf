package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
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
 * A grace hash join's partitions on disk: the build and probe rows of one join split by a hash of their keys into
 * {@link #PARTITIONS} pairs of Arrow IPC stream files, in a directory of their own under {@link #directory()} (the
 * server's {@code --spill-dir}). Rows with equal keys land in the same partition on both sides (integer-like keys
 * hash by their long value, others by {@link Keys}), so each pair joins on its own; a row with a NULL key, which
 * matches nothing, goes to partition 0 so that outer and anti joins still emit it. The hash is salted by the
 * recursion level, so a partition spilled again splits differently. Closing deletes every file and the directory,
 * whether the join finished, failed or was cancelled.
 */
public final class JoinSpill implements AutoCloseable {
  static final int PARTITIONS = 16;
  private static volatile Path directory = Path.of(System.getProperty("java.io.tmpdir"));

  private final Path dir;
  private final int level;
  private final BufferAllocator allocator;
  private final Side build;
  private final Side probe;

  /** Where joins spill (the server's {@code --spill-dir}); created if missing. */
  public static void directory(Path d) {
    directory = d;
  }

  public static Path directory() {
    return directory;
  }

  JoinSpill(Schema buildSchema, Schema probeSchema, int level, BufferAllocator allocator) {
    this.level = level;
    this.allocator = allocator;
    try {
      Files.createDirectories(directory);
      this.dir = Files.createTempDirectory(directory, "quiver-spill-");
    } catch (IOException e) {
      throw failed(e);
    }
    this.build = new Side("build", buildSchema);
    this.probe = new Side("probe", probeSchema);
  }

  private QuiverException failed(IOException e) {
    return new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "the hash join could not spill to " + directory
        + " (--spill-dir): " + e.getMessage());
  }

  void addBuild(VectorSchemaRoot batch, List<ColumnValues> keys, boolean[] nullSafe) {
    build.add(batch, keys, nullSafe);
  }

  void addProbe(VectorSchemaRoot batch, List<ColumnValues> keys, boolean[] nullSafe) {
    probe.add(batch, keys, nullSafe);
  }

  /** Closes the writers: the partitions can be read. */
  void finishWriting() {
    build.finish();
    probe.finish();
  }

  /** Whether partition {@code p} has rows on either side. */
  boolean hasRows(int p) {
    return build.rows[p] > 0 || probe.rows[p] > 0;
  }

  Operator buildReader(int p) {
    return new Reader(build, p);
  }

  Operator probeReader(int p) {
    return new Reader(probe, p);
  }

  /** Bytes written to disk, both sides. */
  long bytes() {
    long sum = 0;
    for (int p = 0; p < PARTITIONS; p++) sum += build.written[p] + probe.written[p];
    return sum;
  }

  private int partition(List<ColumnValues> keys, boolean[] nullSafe, int i) {
    if (Keys.anyNull(keys, nullSafe, i)) return 0;
    int h = 0x9E3779B9 * (level + 1);
    for (ColumnValues k : keys) {
      int v = k.isNull(i) ? 0x5bd1e995
          : Kernels.family(k.type()) == Kernels.Family.LONG ? Long.hashCode(k.getLong(i)) : Keys.of(k, i).hashCode();
      h = (h ^ v) * 0x85EBCA6B;
      h ^= h >>> 13;
    }
    h *= 0xC2B2AE35;
    h ^= h >>> 16;
    return h >>> (32 - 4); // PARTITIONS = 16
  }

  @Override
  public void close() {
    build.close();
    probe.close();
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) Files.deleteIfExists(f);
    } catch (IOException ignored) {
      // best effort: the directory is deleted below if it is empty
    }
    try {
      Files.deleteIfExists(dir);
    } catch (IOException ignored) {
      // left behind only if a file could not be deleted
    }
  }

  /** One side's partition files and their writers (opened on a partition's first rows). */
  private final class Side implements AutoCloseable {
    final String name;
    final Schema schema;
    final OutputStream[] out = new OutputStream[PARTITIONS];
    final ArrowStreamWriter[] writers = new ArrowStreamWriter[PARTITIONS];
    final VectorSchemaRoot[] sinks = new VectorSchemaRoot[PARTITIONS];
    final long[] rows = new long[PARTITIONS];
    final long[] written = new long[PARTITIONS];

    Side(String name, Schema schema) {
      this.name = name;
      this.schema = schema;
    }

    Path file(int p) {
      return dir.resolve(name + "-" + p + ".arrows");
    }

    void add(VectorSchemaRoot batch, List<ColumnValues> keys, boolean[] nullSafe) {
      int n = batch.getRowCount();
      int[] of = new int[n];
      int[] count = new int[PARTITIONS];
      for (int i = 0; i < n; i++) count[of[i] = partition(keys, nullSafe, i)]++;
      for (int p = 0; p < PARTITIONS; p++) {
        if (count[p] == 0) continue;
        int[] selected = new int[count[p]];
        int k = 0;
        for (int i = 0; i < n; i++) if (of[i] == p) selected[k++] = i;
        try (VectorSchemaRoot taken = FilterExec.take(batch, selected, k, allocator)) {
          write(p, taken);
        }
        rows[p] += k;
      }
    }

    private void write(int p, VectorSchemaRoot taken) {
      try {
        if (writers[p] == null) {
          out[p] = new BufferedOutputStream(Files.newOutputStream(file(p)), 1 << 16);
          sinks[p] = VectorSchemaRoot.create(schema, allocator);
          writers[p] = new ArrowStreamWriter(sinks[p], null, Channels.newChannel(out[p]));
          writers[p].start();
        }
        try (ArrowRecordBatch rb = new VectorUnloader(taken).getRecordBatch()) {
          new VectorLoader(sinks[p]).load(rb);
        }
        writers[p].writeBatch();
        written[p] = writers[p].bytesWritten();
      } catch (IOException e) {
        throw failed(e);
      }
    }

    void finish() {
      for (int p = 0; p < PARTITIONS; p++) {
        if (writers[p] == null) continue;
        try {
          writers[p].end();
          written[p] = writers[p].bytesWritten();
          writers[p].close();
          out[p].close();
        } catch (IOException e) {
          throw failed(e);
        } finally {
          writers[p] = null;
          sinks[p].close();
          sinks[p] = null;
        }
      }
    }

    @Override
    public void close() {
      for (int p = 0; p < PARTITIONS; p++) {
        try {
          if (writers[p] != null) writers[p].close();
          if (out[p] != null) out[p].close();
        } catch (IOException | RuntimeException ignored) {
          // closing after a failure: the files are deleted next
        }
        if (sinks[p] != null) sinks[p].close();
        writers[p] = null;
        sinks[p] = null;
      }
    }
  }

  /** Reads one partition file back, batch by batch (each batch handed over to the caller). */
  private final class Reader extends Operator {
    private final Side side;
    private final int p;
    private InputStream in;
    private ArrowStreamReader reader;

    Reader(Side side, int p) {
      this.side = side;
      this.p = p;
    }

    @Override public Schema schema() { return side.schema; }
    @Override public List<Operator> children() { return List.of(); }
    @Override public String describe() { return "SpillReader: " + side.name + " partition " + p; }

    @Override
    protected VectorSchemaRoot produce() {
      if (side.rows[p] == 0) return null;
      try {
        if (reader == null) {
          in = new BufferedInputStream(Files.newInputStream(side.file(p)), 1 << 16);
          reader = new ArrowStreamReader(in, allocator);
        }
        if (!reader.loadNextBatch()) return null;
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        List<FieldVector> vectors = new ArrayList<>();
        for (FieldVector v : root.getFieldVectors()) {
          FieldVector t = v.getField().createVector(allocator);
          v.makeTransferPair(t).transfer();
          vectors.add(t);
        }
        int n = root.getRowCount();
        VectorSchemaRoot out = new VectorSchemaRoot(side.schema.getFields(), vectors, n);
        for (FieldVector v : vectors) v.setValueCount(n);
        return out;
      } catch (IOException e) {
        throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "the hash join could not read back its spill file "
            + side.file(p) + ": " + e.getMessage());
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
}
