package dev.quiver.server;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What the server and the shell log through {@code java.util.logging} (gRPC, Netty, the JDBC driver, jline
 * and the Arrow allocator use it; Quiver's own code and Hadoop log through slf4j-simple). A person should see
 * one clear line per problem:
 * <ul>
 *   <li>the server's lines are one line each ({@code 2026-01-31 12:00:00 WARNING logger: message});
 *   <li>gRPC's reports of a client going away — a client that closed its connection or stream while the server
 *       wrote (a cancelled query, a killed client), a plain TCP connect and close (a health check), an HTTP/1
 *       request or a non-TLS client on a TLS port — are one line at FINE (hidden at the default level), not a
 *       35-line stack trace at INFO/WARNING. Anything else gRPC reports keeps its level and stack trace;
 *   <li>the shell shows no library logging at all unless asked ({@code --verbose=true}).
 * </ul>
 */
final class Logging {
  /** The loggers whose records are filtered: held here, as {@code java.util.logging} holds loggers weakly. */
  private static final List<Logger> FILTERED = new ArrayList<>();
  private static final String[] TRANSPORT_LOGGERS = {"io.grpc.netty.NettyServerTransport.connections",
      "io.grpc.netty.NettyServerTransport", "io.grpc.netty.NettyServerHandler"};

  private Logging() {}

  /** For the server process: one line per record. Call first thing, before any logging. */
  static void serverProcess() {
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT %4$s %3$s: %5$s%6$s%n");
    }
    for (Handler h : Logger.getLogger("").getHandlers()) {
      if (h.getFormatter() instanceof java.util.logging.SimpleFormatter) h.setFormatter(new java.util.logging.SimpleFormatter());
    }
    quietDisconnects();
  }

  /** Client disconnects are one line at FINE (idempotent; also for servers embedded in other programs). */
  static synchronized void quietDisconnects() {
    if (!FILTERED.isEmpty()) return;
    for (String name : TRANSPORT_LOGGERS) {
      Logger l = Logger.getLogger(name);
      l.setFilter(Logging::demoteDisconnect);
      FILTERED.add(l);
    }
  }

  /** For the shell: no library logging (jline's dumb terminal, the driver's allocator and retries), unless verbose. */
  static void shellProcess(boolean verbose) {
    Logger root = Logger.getLogger("");
    Level level = verbose ? Level.INFO : Level.OFF;
    root.setLevel(level);
    for (Handler h : root.getHandlers()) h.setLevel(level);
    FILTERED.add(root);
  }

  /** Rewrites a benign client disconnect into one line at FINE; passes anything else unchanged. */
  static boolean demoteDisconnect(LogRecord r) {
    Throwable t = r.getThrown();
    if (t == null || !clientWentAway(t)) return true;
    r.setLevel(Level.FINE);
    r.setThrown(null);
    r.setParameters(null);
    r.setMessage("a client's connection or stream ended: " + describe(t));
    return true;
  }

  /**
   * The client's doing, not the server's: the transport read a request that was no gRPC (HTTP/1, no TLS on a
   * TLS port, a TLS handshake cut short), or the client closed or reset its connection or stream.
   */
  static boolean clientWentAway(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      String name = c.getClass().getName();
      String message = String.valueOf(c.getMessage());
      if (c instanceof Error) return false; // out of memory and the like: never hidden
      if (name.endsWith("Http2Exception$StreamException") && (message.contains("Stream closed before write")
          || message.contains("Received RST_STREAM") || message.contains("stream closed"))) {
        return true;
      }
      if (name.endsWith("Http2Exception") && (message.startsWith("Unexpected HTTP/1.x request")
          || message.contains("HTTP/2 client preface string missing or corrupt"))) {
        return true;
      }
      if (name.endsWith("NotSslRecordException") || c instanceof javax.net.ssl.SSLException) return true;
      if (c instanceof java.nio.channels.ClosedChannelException) return true;
      if (c instanceof java.io.IOException && (message.contains("Connection reset") || message.contains("Broken pipe")
          || message.contains("connection was aborted"))) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    m = m.replaceAll("\\s+", " ").trim();
    return m.length() > 200 ? m.substring(0, 200) + "…" : m;
  }
}
