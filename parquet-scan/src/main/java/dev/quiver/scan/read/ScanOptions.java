package dev.quiver.scan.read;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How scans read: {@code threads} row groups read ahead concurrently per scan, Quiver's own page decoders
 * ({@code ownDecoders}) and page codecs ({@code ownCodecs}) or parquet-java's, and the {@code executor}
 * the row-group tasks run on. Built once by the owner (the server, a benchmark, a test) and passed to every
 * scan; whoever {@link #create creates} options owns their executor and {@link #close closes} it.
 *
 * <p>The {@code -D} properties {@value #THREADS}, {@value #DECODERS}{@code =parquet-java} and
 * {@value #CODECS}{@code =parquet-java} are read in one place, {@link #fromSystemProperties()}, which the
 * server uses for its defaults.
 */
public record ScanOptions(int threads, boolean ownDecoders, boolean ownCodecs, ExecutorService executor)
    implements AutoCloseable {
  /** Row groups read concurrently per scan (and the pool's size); default: the number of cores. */
  public static final String THREADS = "quiver.scan.threads";
  /** {@code parquet-java} reads pages with parquet-java's column readers instead of Quiver's decoders. */
  public static final String DECODERS = "quiver.scan.decoders";
  /** {@code parquet-java} decompresses pages with parquet-java's codec factory instead of Quiver's. */
  public static final String CODECS = "quiver.scan.codecs";

  private static final AtomicInteger POOLS = new AtomicInteger();

  public ScanOptions {
    if (threads < 1) throw new IllegalArgumentException("scan threads must be at least 1, not " + threads);
    if (executor == null) throw new IllegalArgumentException("scan options need an executor");
  }

  /**
   * Options with a new pool of {@code threads} daemon threads, which the caller owns and closes. Each thread
   * keeps its page decompression state (a zstd context) until the pool is shut down.
   */
  public static ScanOptions create(int threads, boolean ownDecoders, boolean ownCodecs) {
    int pool = POOLS.incrementAndGet();
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor = Executors.newFixedThreadPool(Math.max(1, threads), r -> {
      Thread t = new ScanWorker(r, "quiver-scan-" + pool + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    return new ScanOptions(threads, ownDecoders, ownCodecs, executor);
  }

  /**
   * Options from {@code -Dquiver.scan.threads} (default: the cores), {@code -Dquiver.scan.decoders} and
   * {@code -Dquiver.scan.codecs} (own unless {@code parquet-java}), with a new pool the caller owns.
   */
  public static ScanOptions fromSystemProperties() {
    int threads = Math.max(1, Integer.getInteger(THREADS, Runtime.getRuntime().availableProcessors()));
    return create(threads, !"parquet-java".equals(System.getProperty(DECODERS)),
        !"parquet-java".equals(System.getProperty(CODECS)));
  }

  /**
   * Options from the system properties over one pool for the whole JVM, never closed: for scans made
   * without options (embedded engines, tests, benchmarks). A server makes and closes its own.
   */
  public static ScanOptions shared() {
    return Shared.OPTIONS;
  }

  /** The same options and executor, reading {@code threads} row groups ahead per scan. */
  public ScanOptions withThreads(int threads) {
    return new ScanOptions(threads, ownDecoders, ownCodecs, executor);
  }

  public ScanOptions withOwnDecoders(boolean ownDecoders) {
    return new ScanOptions(threads, ownDecoders, ownCodecs, executor);
  }

  public ScanOptions withOwnCodecs(boolean ownCodecs) {
    return new ScanOptions(threads, ownDecoders, ownCodecs, executor);
  }

  /** Stops the executor: running tasks are interrupted and waited for (up to 10 s). */
  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class Shared {
    static final ScanOptions OPTIONS = fromSystemProperties();
  }
}
