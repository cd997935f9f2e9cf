package dev.quiver.server;

import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Warms the per-query path of a freshly started server: a fresh JVM runs the code every query passes through
 * (gRPC and Netty, Flight, the producer, parsing, planning, the result stream) interpreted for its first few
 * thousand queries, which made the floor of a new server ({@code SELECT 1} through JDBC) about twice that of
 * one that had served a while. A background thread sends {@code SELECT 1}-like statements to the server over
 * loopback, as the JDBC driver (CreatePreparedStatement, GetFlightInfo, DoGet, ClosePreparedStatement) and
 * a plain Flight SQL client (GetFlightInfo, DoGet) do. With authentication or TLS there is no loopback
 * client: only the engine (parse, plan, run) is warmed. The warm-up reads no table, holds no session, runs at
 * the lowest thread priority, waits while a client's query streams, and stops for good at a client's first call
 * ({@link #yieldToClient()}, from {@link ClientArrival}) or at the server's close.
 *
 * <p>Every {@link #DATA_EVERY}th execution is followed by a real query over a small table of the warm-up's own
 * ({@link WarmUpData}: scans, filters, aggregations, a join, a sort, a window), at most {@link #MAX_DATA} of them, so
 * that decoding and the kernels are compiled before a newcomer's first query too.
 *
 * <p>Measured (2 cores, {@code SELECT 1} through pyarrow right after the banner, {@code bench/scripts/first_queries.py}):
 * with the warm-up running beside the client, queries 2 to 40 took 12.4–16.4 ms median; stopping it at the first call
 * brought them to 8.8–11.1 ms, and the first 400 queries from 4.3–5.2 s to 3.4–4.0 s.
 */
final class WarmUp {
  private static final Logger LOG = Logger.getLogger(WarmUp.class.getName());
  /** What is sent: constants and expressions only (no table is read, nothing a client could notice). */
  static final List<String> STATEMENTS = List.of("SELECT 1", "SELECT 1 + 1 AS two, 'a' || 'b' AS ab, CAST(2.5 AS DOUBLE) * 2 AS d");

  private final Thread thread;
  private volatile boolean stopped;
  private volatile boolean yielded;
  private final java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
  private final org.apache.arrow.flight.FlightClientMiddleware.Factory marker;

  private WarmUp(Runnable body, org.apache.arrow.flight.FlightClientMiddleware.Factory marker) {
    this.marker = marker;
    thread = new Thread(body, "quiver-warm-up");
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
  }

  /**
   * Starts warming {@code server} with {@code executions} executions of each kind in the background; over
   * loopback Flight if {@code loopback}, else through {@code engine} only.
   */
  static WarmUp start(QuiverServer server, dev.quiver.planner.QueryEngine engine, String host, boolean loopback,
      int executions, org.apache.arrow.flight.FlightClientMiddleware.Factory marker) {
    WarmUp[] self = new WarmUp[1];
    self[0] = new WarmUp(() -> {
      long t0 = System.nanoTime();
      try {
        if (loopback) self[0].flight(server, host, server.port(), executions);
        else self[0].engine(engine, executions);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (self[0].yielded) {
          LOG.fine(() -> "warm-up gave way to the first client after " + self[0].executions() + " executions, " + ms + " ms");
        } else {
          LOG.fine(() -> "warm-up done in " + ms + " ms");
        }
      } catch (Throwable t) {
        if (!self[0].stopped) LOG.log(Level.FINE, "warm-up stopped", t); // never fatal: only speed is at stake
      } finally {
        self[0].closeData();
      }
    }, marker);
    self[0].thread.start();
    return self[0];
  }

  /** Waits up to {@code ms} for the warm-up to end; whether it has. */
  boolean await(long ms) throws InterruptedException {
    thread.join(ms);
    return !thread.isAlive();
  }

  /** Executions completed so far. */
  int executions() {
    return done.get();
  }

  /** A real query over the warm-up's own table after every {@link #DATA_EVERY}th execution, at most this many. */
  static final int DATA_EVERY = 4;
  static final int MAX_DATA = 160;
  /**
   * The warm-up's table and engine, and the memory of its queries: made at the first real query's turn (a client
   * that comes at once never waits for the table to be written), closed when the warm-up ends; the warm-up's thread
   * alone uses them.
   */
  private WarmUpData data;
  private BufferAllocator dataMemory;
  private volatile int dataDone;
  private volatile Path dataDir;

  /** Real queries run so far (over the warm-up's own table). */
  int dataExecutions() {
    return dataDone;
  }

  /** Where the warm-up's table was written (deleted when the warm-up ends); null before. */
  Path dataDir() {
    return dataDir;
  }

  /** After execution {@code i}: the next real query, if it is its turn. */
  private void dataQuery(int i) throws java.io.IOException {
    if (i % DATA_EVERY != DATA_EVERY - 1 || dataDone >= MAX_DATA || stopped) return;
    if (data == null) {
      data = WarmUpData.create();
      dataDir = data.dir();
      dataMemory = new RootAllocator(256L << 20);
    }
    data.runNext(dataMemory);
    dataDone++;
  }

  /** Deletes the warm-up's table and closes its memory (nothing if no real query ran). */
  private void closeData() {
    if (data != null) data.close();
    if (dataMemory != null) dataMemory.close();
  }

  /** A client has come: the warm-up stops after the execution under way, without waiting for it. */
  void yieldToClient() {
    yielded = true;
    stopped = true;
  }

  /** Stops the warm-up and waits (briefly) for it to end. */
  void stop() throws InterruptedException {
    stopped = true;
    thread.join(5_000);
  }

  private void flight(QuiverServer server, String host, int port, int executions) throws Exception {
    String loop = host.equals("0.0.0.0") || host.equals("::") || host.isEmpty() ? "127.0.0.1" : host;
    try (BufferAllocator allocator = new RootAllocator(64L << 20);
        FlightClient client = FlightClient.builder(allocator, Location.forGrpcInsecure(loop, port)).intercept(marker)
            .build();
        FlightSqlClient sql = new FlightSqlClient(client)) {
      for (int i = 0; i < executions && !stopped; i++) {
        while (server.runningQueries() > 0 && !stopped) Thread.sleep(5); // clients first
        String statement = STATEMENTS.get(i % STATEMENTS.size());
        try (FlightSqlClient.PreparedStatement ps = sql.prepare(statement)) { // as the JDBC driver does
          drain(sql, ps.execute());
        }
        if (stopped) break;
        drain(sql, sql.execute(statement)); // as ADBC, pyarrow and FlightSqlClient do
        done.incrementAndGet();
        dataQuery(i);
      }
    }
  }

  private static void drain(FlightSqlClient sql, FlightInfo info) throws Exception {
    try (FlightStream s = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      while (s.next()) {
        // results are dropped
      }
    }
  }

  private void engine(dev.quiver.planner.QueryEngine engine, int executions) throws Exception {
    try (BufferAllocator allocator = new RootAllocator(64L << 20)) {
      for (int i = 0; i < executions && !stopped; i++) {
        dev.quiver.planner.PreparedQuery q = engine.prepare(STATEMENTS.get(i % STATEMENTS.size()), allocator);
        try (dev.quiver.planner.QueryExecution e = engine.execute(q, allocator)) {
          org.apache.arrow.vector.VectorSchemaRoot batch;
          while ((batch = e.next()) != null) batch.close();
        }
        done.incrementAndGet();
        dataQuery(i);
      }
    }
  }
}
