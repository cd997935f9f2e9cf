package dev.quiver.server;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.QuerySettings;
import dev.quiver.scan.read.ScanOptions;
import dev.quiver.scan.table.Catalog;
import java.io.IOException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** A running Quiver server: owns the root allocator, the Flight server and the catalog. */
public final class QuiverServer implements AutoCloseable {
  public static final long DEFAULT_QUERY_MEMORY = 2L << 30;
  /** The server-wide memory limit's ceiling when none is given: 8 GiB (or a quarter of the machine's memory if less). */
  public static final long MAX_DEFAULT_SERVER_MEMORY = 8L << 30;

  private final BufferAllocator allocator;
  private final FlightServer server;
  private QuiverProducer producer;
  private ScanOptions scanOptions;
  private dev.quiver.scan.table.FileSystems fileSystems;
  private final String host;
  private final boolean tls;
  private boolean auth;
  /** Bearer tokens (null without users). */
  private ReplicaTokens tokens;
  private int maxQueriesPerUser;
  private WarmUp warmUp;
  private ClientArrival arrival;
  /** The web console, or null when it is off. */
  private dev.quiver.server.console.ConsoleServer console;
  private ConsoleQueries consoleQueries;

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
    if (config.serverMemory() <= 0) throw new IllegalArgumentException("--server-memory must be positive");
    Logging.quietDisconnects(); // a client going away is one line at FINE, not a stack trace
    Catalog catalog = Catalog.open(config.data());
    BufferAllocator allocator = new RootAllocator(config.serverMemory());
    // the scans' options and reader pool: owned by this server, shut down by close()
    ScanOptions scanOptions = ScanOptions.fromSystemProperties();
    try {
      QuiverProducer producer = new QuiverProducer(new QueryEngine(catalog, config.settings(),
          dev.quiver.planner.sql.SqlLimits.DEFAULT.withMaxStatementBytes(config.maxStatementBytes()), scanOptions), allocator,
          config.queryMemory(), config.maxQueriesPerUser(), config.maxQueuedPerUser(), config.queueTimeoutMs());
      ReplicaTokens tokens = null;
      Location location = config.tls() ? Location.forGrpcTls(config.host(), config.port())
          : Location.forGrpcInsecure(config.host(), config.port());
      producer.dataLocation(config.data());
      ClientArrival arrival = new ClientArrival();
      FlightServer.Builder builder = FlightServer.builder(allocator, location, producer)
          .middleware(ClientArrival.KEY, arrival)
          .middleware(QuiverProducer.SESSION,
              new org.apache.arrow.flight.ServerSessionMiddleware.Factory(() -> java.util.UUID.randomUUID().toString()));
      if (config.auth()) {
        tokens = new ReplicaTokens(config.users()); // Arrow's tokens, or signed ones once replicas share a secret
        builder.headerAuthenticator(new AuthMessages(tokens));
      }
      if (config.tls()) builder.useTls(config.tlsCert().toFile(), config.tlsKey().toFile());
      if (config.tls() && config.tlsClientCa() != null) builder.useMTlsClientVerification(config.tlsClientCa().toFile());
      FlightServer server = builder.build();
      server.start();
      ConsoleQueries consoleQueries = new ConsoleQueries(producer, config.users(), arrival::arrived);
      dev.quiver.server.console.ConsoleServer console = null;
      if (config.console()) {
        try {
          console = dev.quiver.server.console.ConsoleServer.start(consoleQueries, config.httpHost(), config.httpPort(),
              config.tlsCert(), config.tlsKey(), config.tlsClientCa());
        } catch (IOException | RuntimeException e) {
          server.shutdown();
          try {
            server.close();
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
          throw e;
        }
      }
      QuiverServer q = new QuiverServer(allocator, server, config.host(), config.tls());
      q.console = console;
      q.consoleQueries = consoleQueries;
      q.arrival = arrival;
      q.producer = producer;
      q.scanOptions = scanOptions;
      q.fileSystems = catalog.fileSystems();
      q.auth = config.auth();
      q.tokens = tokens;
      q.maxQueriesPerUser = config.maxQueriesPerUser();
      return q;
    } catch (IOException | RuntimeException e) {
      scanOptions.close();
      allocator.close();
      throw e;
    }
  }

  /**
   * The default server-wide memory limit: {@link #MAX_DEFAULT_SERVER_MEMORY}, or a quarter of the machine's (or
   * container's) physical memory if that is less. A quarter, as the launcher sizes both the Java heap and the
   * direct memory from it ({@link Launcher}): the whole process then stays near half of the machine.
   */
  public static long defaultServerMemory() {
    long physical = -1;
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      physical = os.getTotalMemorySize();
    }
    return physical > 0 ? Math.min(MAX_DEFAULT_SERVER_MEMORY, physical / 4) : MAX_DEFAULT_SERVER_MEMORY;
  }

  /**
   * Scale-out settings: at most {@code maxEndpoints} endpoints per FlightInfo by default (sessions may change it with
   * {@code SET quiver.max_endpoints}); {@code peers}, other replicas serving the same data, and this server's own
   * {@code self} location (null: as started, see {@link #location()}) get the endpoints round-robin (no peers:
   * endpoints carry no location, clients read them over their connection); {@code secret} (null: this run's random
   * key) signs statement handles and endpoint tickets, so replicas given the same secret accept each other's tickets.
   * Call before serving clients (a test may call it once every replica's port is known).
   */
  public record ScaleOut(int maxEndpoints, java.util.List<Location> peers, Location self, byte[] secret) {
    public ScaleOut {
      if (maxEndpoints < 1) throw new IllegalArgumentException("--max-endpoints must be at least 1, not " + maxEndpoints);
      peers = java.util.List.copyOf(peers);
      if (!peers.isEmpty() && secret == null) {
        throw new IllegalArgumentException("--peers needs --token-secret-file (the same secret on every replica):"
            + " replicas accept each other's endpoint tickets only when they sign them with the same key");
      }
    }
  }

  public void scaleOut(ScaleOut s) {
    if (tokens != null && s.secret() != null) tokens.useSecret(s.secret());
    producer.scaleOut(s.maxEndpoints(), s.peers().isEmpty() ? java.util.List.of()
        : java.util.stream.Stream.concat(java.util.stream.Stream.of(s.self() != null ? s.self() : location()),
            s.peers().stream()).toList(), s.secret());
  }

  /** Where clients reach this server: grpc(+tls)://host:port, the host as started (a wildcard: this machine's name). */
  public Location location() {
    String h = host;
    if (h.equals("0.0.0.0") || h.equals("::") || h.isEmpty()) {
      try {
        h = java.net.InetAddress.getLocalHost().getCanonicalHostName();
      } catch (java.net.UnknownHostException e) {
        h = "localhost";
      }
    }
    return tls ? Location.forGrpcTls(h, port()) : Location.forGrpcInsecure(h, port());
  }

  /** The Hadoop configuration this server reaches its data through (its catalog's, not a process-wide one). */
  public dev.quiver.scan.table.FileSystems fileSystems() {
    return fileSystems;
  }

  /** How this server's scans read: threads, own decoders and codecs, and the reader pool it owns. */
  public ScanOptions scanOptions() {
    return scanOptions;
  }

  /** Bytes of Arrow memory the server's queries (and transfers) hold now: 0 when idle, else a leak. */
  public long allocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  /** The server-wide memory limit ({@code --server-memory}). */
  public long serverMemoryLimit() {
    return allocator.getLimit();
  }

  /** Queries streaming right now, or waiting for their user's turn ({@code --max-queries-per-user}). */
  public int runningQueries() {
    return producer.runningQueries();
  }

  /** Statements parsed, analyzed and optimized since the start (a test hook: plan once per execution). */
  public long plansBuilt() {
    return producer.plansBuilt();
  }

  /**
   * Warms the per-query path in the background with {@code executions} {@code SELECT 1}-like executions
   * (JDBC's four calls, then a plain Flight SQL client's two), sent over loopback; with authentication or TLS,
   * or with {@code --max-queries-per-user 1} (a client's query must never wait for the warm-up's), through the
   * engine only. A fresh JVM runs that path interpreted for its first few thousand queries. The warm-up runs at
   * the lowest thread priority, sends nothing while a client's query streams, and stops for good at a client's
   * first call (Flight or console): from then on the client's own queries warm the path, and a newcomer's first
   * query never shares the two cores with it. It ends by itself, at the first client, or at {@link #close()}.
   */
  public synchronized void warmUp(int executions) {
    if (executions <= 0 || warmUp != null || arrival.hasArrived()) return;
    WarmUp w = WarmUp.start(this, producer.engine(), host, !auth && !tls && maxQueriesPerUser > 1, executions,
        arrival.warmUpClient());
    warmUp = w;
    arrival.onFirst(w::yieldToClient);
  }

  /** Executions the warm-up has completed so far (0 without one). For tests. */
  synchronized int warmUpExecutions() {
    return warmUp == null ? 0 : warmUp.executions();
  }

  /** Real queries the warm-up has run over its own table (0 without one). For tests. */
  synchronized int warmUpDataExecutions() {
    return warmUp == null ? 0 : warmUp.dataExecutions();
  }

  /** Where the warm-up wrote its table (null before it did, or without a warm-up). For tests. */
  synchronized java.nio.file.Path warmUpDataDir() {
    return warmUp == null ? null : warmUp.dataDir();
  }

  /** Waits up to {@code ms} for the warm-up to end; true if it has (or none was started). For tests. */
  boolean awaitWarmUp(long ms) throws InterruptedException {
    WarmUp w;
    synchronized (this) {
      w = warmUp;
    }
    return w == null || w.await(ms);
  }

  public int port() {
    return server.getPort();
  }

  /** The web console's URL ({@code http://127.0.0.1:31338/}), or null when the console is off. */
  public String consoleUrl() {
    return console == null ? null : console.url();
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
    synchronized (this) {
      if (warmUp != null) warmUp.stop();
    }
    try {
      if (consoleQueries != null) consoleQueries.close(); // running console queries stop at their next batch
      if (console != null) console.close();
      server.shutdown();
      server.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
      server.close();
    } finally {
      try {
        if (producer != null) producer.running().cancelAll();
        awaitQueriesReleased();
        if (scanOptions != null) scanOptions.close(); // stops the scan pool's threads
      } finally {
        allocator.close();
      }
    }
  }

  /**
   * Waits (up to 10 s) until every query has closed its allocator. A call can end for gRPC (a client that
   * cancelled or went away) while the query's thread still stops at its next batch and releases what it holds;
   * closing the root before then would report that memory as leaked. A real leak still fails the close.
   */
  private void awaitQueriesReleased() throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline
        && allocator.getChildAllocators().stream().anyMatch(a -> a.getName().startsWith("query-"))) {
      Thread.sleep(5);
    }
  }
}
