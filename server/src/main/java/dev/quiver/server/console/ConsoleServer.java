package dev.quiver.server.console;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.quiver.server.ConsoleQueries;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * The web console's HTTP(S) server: the page, its static files, the benchmark results and the JSON API
 * ({@link ConsoleApi}), on its own port ({@code --http-port}, loopback by default).
 *
 * <p>It is the JDK's own {@code com.sun.net.httpserver} ({@link HttpServer}, {@link HttpsServer}), no new
 * dependency: the console is a handful of read-only JSON calls and static files, with no sessions, cookies,
 * uploads, templates or websockets, so a servlet stack (Jetty, Tomcat, Undertow) would bring megabytes and a
 * second configuration surface for nothing. TLS is the same PEM certificate and key as Flight's, through an
 * {@link SSLContext} ({@link PemTls}). Requests run on a bounded pool of {@link #THREADS} threads (the JDK
 * server's default would be its single dispatcher thread); at most {@link #QUERY_THREADS} of them run queries
 * at once, so that a cancel, the page and the tables list are still answered while queries run.
 *
 * <p>Slow requests: the JDK server reads a request's headers on a pool thread, blocking, so connections that send
 * half a request and then nothing held all 16 threads and the console answered nobody for as long as they stayed
 * open. Now a request must arrive whole within {@link #REQUEST_SECONDS} s (the JDK server's {@code
 * sun.net.httpserver.maxReqTime}, checked every second; a connection over it is closed, which frees its thread),
 * the pool has {@link #THREADS} threads, so that dozens of such connections leave threads for everyone else until
 * they are dropped, and one client address may have at most {@link ConsoleApi#PER_CLIENT} requests in progress
 * (429 beyond). These JDK properties are JVM-wide and read once, when the first JDK HTTP server is made; a value
 * given with {@code -D} is kept.
 */
public final class ConsoleServer implements AutoCloseable {
  /** Seconds a request (its line, headers and body) may take to arrive. */
  static final int REQUEST_SECONDS = 10;

  static {
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_SECONDS));
    }
    if (System.getProperty("sun.net.httpserver.timerMillis") == null) {
      System.setProperty("sun.net.httpserver.timerMillis", "1000");
    }
  }

  /** Threads answering requests (and, as the JDK server works, reading their headers). */
  static final int THREADS = 64;
  /** Of those, how many may run a query (or wait for its user's turn) at once; more are refused with 429. */
  static final int QUERY_THREADS = 12;

  private final HttpServer server;
  private final ExecutorService executor;
  private final boolean tls;
  private final String host;

  private ConsoleServer(HttpServer server, ExecutorService executor, boolean tls, String host) {
    this.server = server;
    this.executor = executor;
    this.tls = tls;
    this.host = host;
  }

  /** The console's port could not be bound (in use, or no address of this machine). */
  public static final class BindException extends IOException {
    private static final long serialVersionUID = 1L;

    BindException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Starts the console on {@code host:port} (0: a free port) for the server behind {@code queries}; HTTPS
   * with {@code tlsCert}/{@code tlsKey} (PEM; both or neither), client certificates signed by {@code
   * clientCa} required when it is given.
   */
  public static ConsoleServer start(ConsoleQueries queries, String host, int port, Path tlsCert, Path tlsKey,
      Path clientCa) throws IOException {
    InetSocketAddress address = new InetSocketAddress(host, port);
    if (address.isUnresolved()) throw new BindException("cannot serve the console on " + host + ": unknown host", null);
    SSLContext ssl = tlsCert == null ? null : PemTls.context(tlsCert, tlsKey, clientCa);
    HttpServer server;
    try {
      if (ssl != null) {
        HttpsServer https = HttpsServer.create(address, 0);
        https.setHttpsConfigurator(new HttpsConfigurator(ssl) {
          @Override
          public void configure(HttpsParameters params) {
            javax.net.ssl.SSLParameters p = ssl.getDefaultSSLParameters();
            p.setNeedClientAuth(clientCa != null);
            params.setSSLParameters(p);
          }
        });
        server = https;
      } else {
        server = HttpServer.create(address, 0);
      }
    } catch (java.net.BindException e) {
      throw new BindException("cannot serve the console on " + host + ":" + port + ": " + e.getMessage()
          + " (--http-port N serves it on another port, --http-port -1 turns it off)", e);
    }
    AtomicInteger n = new AtomicInteger();
    String threads = "quiver-console-" + server.getAddress().getPort() + "-";
    ThreadPoolExecutor executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(1024), r -> {
          Thread t = new Thread(r, threads + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    executor.allowCoreThreadTimeOut(true);
    server.setExecutor(executor);
    ConsoleAuth auth = new ConsoleAuth(host, server.getAddress().getPort());
    server.createContext("/", new ConsoleApi(queries, auth, QUERY_THREADS));
    server.start();
    return new ConsoleServer(server, executor, ssl != null, host);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The console's address, e.g. {@code http://127.0.0.1:31338/}. */
  public String url() {
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return (tls ? "https" : "http") + "://" + h + ":" + port() + "/";
  }

  /** Stops accepting requests, gives running exchanges a second to finish, then stops the threads. */
  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
