package dev.quiver.server;

import dev.quiver.planner.QuerySettings;
import dev.quiver.planner.sql.SqlLimits;
import java.nio.file.Path;

/**
 * How to run a server: what to serve, where, with which limits, settings, users and TLS material
 * ({@code tlsCert}/{@code tlsKey} PEM files, both or neither). Limits: {@code queryMemory} per query,
 * {@code serverMemory} for all queries together (the root allocator's limit), {@code maxQueriesPerUser}
 * running queries per user, the others waiting at most {@code queueTimeoutMs} (0: refused at once), at most
 * {@code maxQueuedPerUser} of them; {@code maxStatementBytes} per SQL statement (UTF-8). The web console listens on
 * {@code httpHost:httpPort} (0: a free port; -1: no console, the default of {@link #of}).
 */
public record ServerConfig(String data, String host, int port, long queryMemory, QuerySettings settings, Users users,
    Path tlsCert, Path tlsKey, Path tlsClientCa, long serverMemory, int maxQueriesPerUser, long queueTimeoutMs,
    long maxStatementBytes, int maxQueuedPerUser, String httpHost, int httpPort) {
  /** The console's port when {@code --http-port} is not given (the programmatic default, {@link #of}, is off). */
  public static final int DEFAULT_HTTP_PORT = 31338;
  /** The console's address when {@code --http-host} is not given: loopback, whatever {@code --host} is. */
  public static final String DEFAULT_HTTP_HOST = "127.0.0.1";

  /**
   * Running queries per user: 8, or twice the processors if more. Without authentication all clients are one
   * user, so this is what runs at once; the rest wait in the queue.
   */
  public static final int DEFAULT_MAX_QUERIES_PER_USER = Math.max(8, 2 * Runtime.getRuntime().availableProcessors());
  /**
   * Queries of one user that may wait for a running slot: long enough for any connection pool (a waiting
   * query holds a parked thread, no memory).
   */
  public static final int DEFAULT_MAX_QUEUED_PER_USER = 1024;
  /** How long a query may wait for its user's turn: two minutes, longer than a busy minute of a BI dashboard. */
  public static final long DEFAULT_QUEUE_TIMEOUT_MS = 120_000;

  public ServerConfig(String data, String host, int port, long queryMemory, QuerySettings settings, Users users,
      Path tlsCert, Path tlsKey, Path tlsClientCa) {
    this(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, tlsClientCa, QuiverServer.defaultServerMemory(),
        DEFAULT_MAX_QUERIES_PER_USER, DEFAULT_QUEUE_TIMEOUT_MS, SqlLimits.DEFAULT_MAX_STATEMENT_BYTES,
        DEFAULT_MAX_QUEUED_PER_USER);
  }

  public ServerConfig(String data, String host, int port, long queryMemory, QuerySettings settings, Users users,
      Path tlsCert, Path tlsKey) {
    this(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, null);
  }

  /** As the canonical constructor, without the console ({@code httpPort} -1). */
  public ServerConfig(String data, String host, int port, long queryMemory, QuerySettings settings, Users users,
      Path tlsCert, Path tlsKey, Path tlsClientCa, long serverMemory, int maxQueriesPerUser, long queueTimeoutMs,
      long maxStatementBytes, int maxQueuedPerUser) {
    this(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, tlsClientCa, serverMemory, maxQueriesPerUser,
        queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, DEFAULT_HTTP_HOST, -1);
  }

  /** The web console on {@code host:port} (0: a free port; -1: no console). */
  public ServerConfig withConsole(String host, int port) {
    return new ServerConfig(data, this.host, this.port, queryMemory, settings, users, tlsCert, tlsKey, tlsClientCa,
        serverMemory, maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, host, port);
  }

  /** Whether the web console is served ({@code httpPort} at least 0). */
  public boolean console() {
    return httpPort >= 0;
  }

  /** Mutual TLS: clients must present a certificate signed by {@code ca} (null: not required). */
  public ServerConfig withClientCa(Path ca) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, ca, serverMemory,
        maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, httpHost, httpPort);
  }

  /** All queries together may hold at most {@code bytes} of Arrow memory (the root allocator's limit). */
  public ServerConfig withServerMemory(long bytes) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, tlsClientCa, bytes,
        maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, httpHost, httpPort);
  }

  /** At most {@code n} running queries per user; the next ones wait up to {@code queueTimeoutMs}, then are refused. */
  public ServerConfig withMaxQueriesPerUser(int n, long queueTimeoutMs) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, tlsClientCa, serverMemory,
        n, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, httpHost, httpPort);
  }

  /** At most {@code n} queries of one user wait for a running slot; more are refused at once (0: none wait). */
  public ServerConfig withMaxQueuedPerUser(int n) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, tlsClientCa, serverMemory,
        maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, n, httpHost, httpPort);
  }

  /** SQL statements longer than {@code bytes} (UTF-8) are refused before they are parsed. */
  public ServerConfig withMaxStatementBytes(long bytes) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, tlsClientCa, serverMemory,
        maxQueriesPerUser, queueTimeoutMs, bytes, maxQueuedPerUser, httpHost, httpPort);
  }

  public static ServerConfig of(String data, String host, int port) {
    return new ServerConfig(data, host, port, QuiverServer.DEFAULT_QUERY_MEMORY, QuerySettings.DEFAULT, Users.none(),
        null, null, null);
  }

  public ServerConfig withUsers(Users u) {
    return new ServerConfig(data, host, port, queryMemory, settings, u, tlsCert, tlsKey, tlsClientCa, serverMemory,
        maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, httpHost, httpPort);
  }

  public ServerConfig withTls(Path cert, Path key) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, cert, key, tlsClientCa, serverMemory,
        maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, httpHost, httpPort);
  }

  public ServerConfig withQueryMemory(long bytes) {
    return new ServerConfig(data, host, port, bytes, settings, users, tlsCert, tlsKey, tlsClientCa, serverMemory,
        maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, httpHost, httpPort);
  }

  public ServerConfig withSettings(QuerySettings s) {
    return new ServerConfig(data, host, port, queryMemory, s, users, tlsCert, tlsKey, tlsClientCa, serverMemory,
        maxQueriesPerUser, queueTimeoutMs, maxStatementBytes, maxQueuedPerUser, httpHost, httpPort);
  }

  public boolean tls() {
    return tlsCert != null;
  }

  public boolean auth() {
    return !users.isEmpty();
  }
}
