package dev.quiver.server;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QuerySettings;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** A running Quiver server: owns the root allocator, the Flight server and the catalog. */
public final class QuiverServer implements AutoCloseable {
  public static final long DEFAULT_QUERY_MEMORY = 2L << 30;

  private final BufferAllocator allocator;
  private final FlightServer server;
  private final String host;

  private QuiverServer(BufferAllocator allocator, FlightServer server, String host) {
    this.allocator = allocator;
    this.server = server;
    this.host = host;
  }

  /** Starts serving {@code dataLocation} on {@code host:port} (port 0 picks a free one). */
  public static QuiverServer start(String dataLocation, String host, int port, long queryMemoryLimit) throws IOException {
    return start(dataLocation, host, port, queryMemoryLimit, QuerySettings.DEFAULT);
  }

  /** Starts serving with {@code defaults} as every session's initial settings. */
  public static QuiverServer start(String dataLocation, String host, int port, long queryMemoryLimit,
      QuerySettings defaults) throws IOException {
    Catalog catalog = Catalog.open(dataLocation);
    BufferAllocator allocator = new RootAllocator(Long.MAX_VALUE);
    try {
      QuiverProducer producer = new QuiverProducer(new QueryEngine(catalog, defaults), allocator, queryMemoryLimit);
      FlightServer server = FlightServer.builder(allocator, Location.forGrpcInsecure(host, port), producer)
          .middleware(QuiverProducer.SESSION,
              new org.apache.arrow.flight.ServerSessionMiddleware.Factory(() -> java.util.UUID.randomUUID().toString()))
          .build();
      server.start();
      return new QuiverServer(allocator, server, host);
    } catch (IOException | RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  public int port() {
    return server.getPort();
  }

  public String jdbcUrl() {
    return "jdbc:arrow-flight-sql://" + host + ":" + port() + "/?useEncryption=false";
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** Stops the server and closes the root allocator; a query buffer still allocated fails the close. */
  @Override
  public void close() throws InterruptedException {
    try {
      server.shutdown();
      server.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
      server.close();
    } finally {
      allocator.close();
    }
  }
}
