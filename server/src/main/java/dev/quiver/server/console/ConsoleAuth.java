package dev.quiver.server.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The console's request checks. <b>CSRF</b>: every {@code /api/} call carries header {@code X-Quiver-Csrf} with a
 * random token made at each server start and written into {@code index.html} (a page of another site cannot read
 * it, nor send a custom header without a CORS preflight, which the console never answers). <b>DNS rebinding</b>:
 * the {@code Host} header must be the console's own address or loopback, with its port (bound to a wildcard
 * address: any address or host name of this machine). <b>Users</b>: a login
 * (the same password check as Flight) gets a random bearer token, kept in memory only, valid for {@link
 * #TOKEN_LIFETIME}; a restart forgets all tokens. No cookies are used at all.
 */
final class ConsoleAuth {
  /** How long a login's token is valid: a working day. Then the console asks for the password again. */
  static final Duration TOKEN_LIFETIME = Duration.ofHours(8);
  /** Tokens kept at most; the oldest are dropped beyond (a flood of logins cannot fill the heap). */
  static final int MAX_TOKENS = 10_000;
  static final String CSRF_HEADER = "X-Quiver-Csrf";

  private final SecureRandom random = new SecureRandom();
  private final String csrf = newToken();
  private final Set<String> allowedHosts;
  private final Map<String, Session> tokens = new ConcurrentHashMap<>();

  private record Session(String user, long expiresNanos, long createdNanos) {}

  /** @param host the address the console listens on, @param port its port */
  ConsoleAuth(String host, int port) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.contains(":") && !h.startsWith("[")) h = "[" + h + "]"; // an IPv6 literal in a Host header
    java.util.Set<String> names = new java.util.HashSet<>(java.util.List.of(h, "localhost", "127.0.0.1", "[::1]"));
    if (wildcard(host)) names.addAll(localNames()); // 0.0.0.0: any address or name of this machine
    java.util.Set<String> hosts = new java.util.HashSet<>();
    for (String n : names) hosts.add(n + ":" + port);
    allowedHosts = Set.copyOf(hosts);
  }

  private static boolean wildcard(String host) {
    try {
      return java.net.InetAddress.getByName(host).isAnyLocalAddress();
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /** The addresses of this machine's interfaces (IPv6 in brackets) and its host names, lower case. */
  private static java.util.Set<String> localNames() {
    java.util.Set<String> names = new java.util.HashSet<>();
    try {
      for (java.net.NetworkInterface i : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
        for (java.net.InetAddress a : java.util.Collections.list(i.getInetAddresses())) {
          String ip = a.getHostAddress();
          int scope = ip.indexOf('%');
          if (scope >= 0) ip = ip.substring(0, scope);
          names.add(a instanceof java.net.Inet6Address ? "[" + ip + "]" : ip);
        }
      }
      java.net.InetAddress local = java.net.InetAddress.getLocalHost();
      names.add(local.getHostName().toLowerCase(Locale.ROOT));
      names.add(local.getCanonicalHostName().toLowerCase(Locale.ROOT));
    } catch (java.io.IOException e) {
      // no interfaces or no name: loopback and the bound address still work
    }
    return names;
  }

  /** The CSRF token of this server start. */
  String csrf() {
    return csrf;
  }

  /** Whether {@code host} (a Host header) names this console: its own address or loopback, with its port. */
  boolean hostAllowed(String host) {
    return host != null && allowedHosts.contains(host.strip().toLowerCase(Locale.ROOT));
  }

  boolean csrfValid(String header) {
    return header != null && MessageDigest.isEqual(header.getBytes(StandardCharsets.UTF_8),
        csrf.getBytes(StandardCharsets.UTF_8));
  }

  /** A new token for {@code user}, valid for {@link #TOKEN_LIFETIME}. */
  String issue(String user) {
    long now = System.nanoTime();
    tokens.values().removeIf(s -> now - s.expiresNanos() > 0);
    while (tokens.size() >= MAX_TOKENS) { // drop the oldest
      Iterator<Map.Entry<String, Session>> oldest = tokens.entrySet().stream()
          .sorted((a, b) -> Long.compare(a.getValue().createdNanos(), b.getValue().createdNanos())).iterator();
      if (!oldest.hasNext()) break;
      tokens.remove(oldest.next().getKey());
    }
    String token = newToken();
    tokens.put(token, new Session(user, now + TOKEN_LIFETIME.toNanos(), now));
    return token;
  }

  /** The user of an {@code Authorization: Bearer} header's token; null if absent, unknown or expired. */
  String user(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) return null;
    String token = authorization.substring(7).strip();
    Session s = tokens.get(token);
    if (s == null) return null;
    if (System.nanoTime() - s.expiresNanos() > 0) {
      tokens.remove(token);
      return null;
    }
    return s.user();
  }

  private String newToken() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
