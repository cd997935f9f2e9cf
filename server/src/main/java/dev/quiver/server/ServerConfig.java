package dev.quiver.server;

import dev.quiver.planner.QuerySettings;
import java.nio.file.Path;

/**
 * How to run a server: what to serve, where, with which limits, settings, users and TLS material
 * ({@code tlsCert}/{@code tlsKey} PEM files, both or neither).
 */
public record ServerConfig(String data, String host, int port, long queryMemory, QuerySettings settings, Users users,
    Path tlsCert, Path tlsKey, Path tlsClientCa) {

  public ServerConfig(String data, String host, int port, long queryMemory, QuerySettings settings, Users users,
      Path tlsCert, Path tlsKey) {
    this(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, null);
  }

  /** Mutual TLS: clients must present a certificate signed by {@code ca} (null: not required). */
  public ServerConfig withClientCa(Path ca) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, tlsCert, tlsKey, ca);
  }

  public static ServerConfig of(String data, String host, int port) {
    return new ServerConfig(data, host, port, QuiverServer.DEFAULT_QUERY_MEMORY, QuerySettings.DEFAULT, Users.none(),
        null, null, null);
  }

  public ServerConfig withUsers(Users u) {
    return new ServerConfig(data, host, port, queryMemory, settings, u, tlsCert, tlsKey, tlsClientCa);
  }

  public ServerConfig withTls(Path cert, Path key) {
    return new ServerConfig(data, host, port, queryMemory, settings, users, cert, key, tlsClientCa);
  }

  public ServerConfig withQueryMemory(long bytes) {
    return new ServerConfig(data, host, port, bytes, settings, users, tlsCert, tlsKey, tlsClientCa);
  }

  public ServerConfig withSettings(QuerySettings s) {
    return new ServerConfig(data, host, port, queryMemory, s, users, tlsCert, tlsKey, tlsClientCa);
  }

  public boolean tls() {
    return tlsCert != null;
  }

  public boolean auth() {
    return !users.isEmpty();
  }
}
