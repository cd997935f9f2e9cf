package dev.quiver.spark;

import java.net.URI;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * DoGet of one endpoint on an executor. Each batch wraps the stream's root vectors in {@link ArrowColumnVector}s,
 * no copy; the stream loads the next batch into the same vectors, which Spark allows (a batch is valid until the next
 * {@code next()}). Closing closes the stream, the client and the allocator.
 */
final class QuiverPartitionReader implements PartitionReader<ColumnarBatch> {
  private final BufferAllocator allocator;
  private final FlightClient client;
  private final FlightStream stream;
  private final int columns;
  private ColumnarBatch batch;

  QuiverPartitionReader(QuiverOptions options, String authorization, int columns, QuiverPartition p) {
    this.columns = columns;
    this.allocator = new RootAllocator();
    URI target = p.locations().length == 0 ? options.uri() : URI.create(p.locations()[0]);
    FlightClient c = null;
    try {
      QuiverClients.TokenCapture capture = new QuiverClients.TokenCapture();
      c = QuiverClients.client(allocator, options, target, false, capture);
      FlightStream s;
      CallOption[] auth = QuiverClients.auth(authorization);
      try {
        s = c.getStream(new Ticket(p.ticket()), auth);
        s.getRoot(); // waits for the schema: fails here if the token is not accepted
      } catch (FlightRuntimeException e) {
        if (e.status().code() != FlightStatusCode.UNAUTHENTICATED || options.user() == null) throw e;
        // a replica that does not know the driver's token: log in there
        s = c.getStream(new Ticket(p.ticket()), QuiverClients.auth(QuiverClients.authenticate(c, options, capture)));
      }
      this.client = c;
      this.stream = s;
    } catch (RuntimeException e) {
      try {
        if (c != null) c.close();
      } catch (Exception ignored) {
        // already failing
      }
      allocator.close();
      throw e;
    }
  }

  @Override
  public boolean next() {
    if (!stream.next()) return false;
    VectorSchemaRoot root = stream.getRoot();
    ColumnVector[] vectors = new ColumnVector[columns];
    for (int i = 0; i < columns; i++) vectors[i] = new ArrowColumnVector(root.getVector(i));
    batch = new ColumnarBatch(vectors, root.getRowCount());
    return true;
  }

  @Override
  public ColumnarBatch get() {
    return batch;
  }

  @Override
  public void close() {
    try {
      stream.close();
      client.close();
    } catch (Exception e) {
      throw new IllegalStateException("quiver: closing the stream failed", e);
    } finally {
      allocator.close();
    }
  }
}
