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
  private QuiverProducer producer;
  private final String host;
  private final boolean tls;

  private QuiverServer(BufferAllocator allocator, FlightServer server, String host, boolean tls) {
    this.allocator = allocator;
    this.server = server;
    this.host = host;
    this.tls = tls;
  }

  /** Starts serving {@code dataLocation} on {@code host:port} (port 0 picks a free one). */
  public static QuiverServer start(String dataLocation, String host, int port, long queryMemoryLimit) throws IOException {
    return start(ServerConfig.of(dataLocation, host, port).withQueryMemory(queryMemoryLimit));
  }

  /** Starts serving with {@code defaults} as every session's initial settings. */
  public static QuiverServer start(String dataLocation, String host, int port, long queryMemoryLimit,
      QuerySettings defaults) throws IOException {
    return start(ServerConfig.of(dataLocation, host, port).withQueryMemory(queryMemoryLimit).withSettings(defaults));
  }

  /** Starts a server as configured: users turn on Basic-then-Bearer authentication, cert and key TLS. */
  public static QuiverServer start(ServerConfig config) throws IOException {
    Catalog catalog = Catalog.open(config.data());
    BufferAllocator allocator = new RootAllocator(Long.MAX_VALUE);
    try {
      QuiverProducer producer = new QuiverProducer(new QueryEngine(catalog, config.settings()), allocator,
          config.queryMemory());
      Location location = config.tls() ? Location.forGrpcTls(config.host(), config.port())
          : Location.forGrpcInsecure(config.host(), config.port());
      FlightServer.Builder builder = FlightServer.builder(allocator, location, producer)
          .middleware(QuiverProducer.SESSION,
              new org.apache.arrow.flight.ServerSessionMiddleware.Factory(() -> java.util.UUID.randomUUID().toString()));
      if (config.auth()) {
        builder.headerAuthenticator(new org.apache.arrow.flight.auth2.GeneratedBearerTokenAuthenticator(
            new org.apache.arrow.flight.auth2.BasicCallHeaderAuthenticator(config.users())));
      }
      if (config.tls()) builder.useTls(config.tlsCert().toFile(), config.tlsKey().toFile());
      if (config.tls() && config.tlsClientCa() != null) builder.useMTlsClientVerification(config.tlsClientCa().toFile());
      FlightServer server = builder.build();
      server.start();
      QuiverServer q = new QuiverServer(allocator, server, config.host(), config.tls());
      q.producer = producer;
      return q;
    } catch (IOException | RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  /** Queries streaming right now. */
  public int runningQueries() {
    return producer.runningQueries();
  }

  public int port() {
    return server.getPort();
  }

  public String jdbcUrl() {
    return "jdbc:arrow-flight-sql://" + host + ":" + port() + "/?useEncryption=" + tls;
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
