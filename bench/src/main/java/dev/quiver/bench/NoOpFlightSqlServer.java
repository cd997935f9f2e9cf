package dev.quiver.bench;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import java.util.List;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The floor's baseline (issue 28, item 6): a Flight SQL server with no engine, which answers every statement, plain
 * or prepared, with one constant row ({@code 1} as INTEGER, as {@code SELECT 1}) — what the platform costs (gRPC,
 * Netty, Flight, Flight SQL's dispatch, the clients) when the server does nothing. {@code bench floor --baseline}
 * starts it in a process of its own, as Quiver's server runs, and measures it with the same clients in the same
 * rounds. {@code java -cp quiver-bench.jar dev.quiver.bench.NoOpFlightSqlServer PORT}; prints "listening PORT".
 */
final class NoOpFlightSqlServer extends NoOpFlightSqlProducer {
  static final Schema SCHEMA = new Schema(List.of(Field.nullable("1", new ArrowType.Int(32, true))));

  private final BufferAllocator allocator;

  private NoOpFlightSqlServer(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    try (BufferAllocator allocator = new RootAllocator();
        FlightServer server = FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", port),
            new NoOpFlightSqlServer(allocator)).build().start()) {
      System.out.println("listening " + server.getPort());
      System.out.flush();
      server.awaitTermination();
    }
  }

  @Override
  public void createPreparedStatement(FlightSql.ActionCreatePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    FlightSql.ActionCreatePreparedStatementResult result = FlightSql.ActionCreatePreparedStatementResult.newBuilder()
        .setPreparedStatementHandle(ByteString.copyFromUtf8(request.getQuery()))
        .setDatasetSchema(ByteString.copyFrom(SCHEMA.serializeAsMessage()))
        .build();
    listener.onNext(new Result(Any.pack(result).toByteArray()));
    listener.onCompleted();
  }

  @Override
  public void closePreparedStatement(FlightSql.ActionClosePreparedStatementRequest request, CallContext context,
      StreamListener<Result> listener) {
    listener.onCompleted();
  }

  @Override
  public FlightInfo getFlightInfoStatement(FlightSql.CommandStatementQuery command, CallContext context,
      FlightDescriptor descriptor) {
    FlightSql.TicketStatementQuery ticket = FlightSql.TicketStatementQuery.newBuilder()
        .setStatementHandle(command.getQueryBytes()).build();
    return info(descriptor, Any.pack(ticket).toByteArray());
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(FlightSql.CommandPreparedStatementQuery command,
      CallContext context, FlightDescriptor descriptor) {
    return info(descriptor, Any.pack(command).toByteArray());
  }

  private static FlightInfo info(FlightDescriptor descriptor, byte[] ticket) {
    return new FlightInfo(SCHEMA, descriptor, List.of(new FlightEndpoint(new Ticket(ticket))), -1, -1);
  }

  @Override
  public void getStreamStatement(FlightSql.TicketStatementQuery ticket, CallContext context,
      ServerStreamListener listener) {
    stream(listener);
  }

  @Override
  public void getStreamPreparedStatement(FlightSql.CommandPreparedStatementQuery command, CallContext context,
      ServerStreamListener listener) {
    stream(listener);
  }

  /** The one row. */
  private void stream(ServerStreamListener listener) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      IntVector v = (IntVector) root.getVector(0);
      v.allocateNew(1);
      v.set(0, 1);
      v.setValueCount(1);
      root.setRowCount(1);
      listener.start(root);
      listener.putNext();
      listener.completed();
    }
  }
}
