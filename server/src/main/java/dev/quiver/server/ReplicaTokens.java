package dev.quiver.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * Bearer tokens that every replica accepts. Without a shared secret, tokens are Arrow's (random, remembered by the
 * server that issued them). With one ({@code --token-secret-file}), a password handshake returns a token signed with
 * a key derived from the secret: {@code user.expiry.hmac}; any replica with the same secret verifies it without
 * state, so a client (ADBC sends the token of its first server to every endpoint location) is accepted by the
 * peers. A token lives {@link #LIFETIME_MS} and is renewed in the response of a call made in its second half (clients
 * take the new token from the response header), so a connection in use never expires; the user must still be in
 * the replica's users, but a token cannot be revoked otherwise before it expires.
 */
final class ReplicaTokens implements CallHeaderAuthenticator {
  static final long LIFETIME_MS = 2 * 3600_000L;
  private static final String PREFIX = "q1.";

  private final CallHeaderAuthenticator generated;
  private final CallHeaderAuthenticator basic;
  private final Users users;
  private volatile byte[] key;

  ReplicaTokens(Users users) {
    this.users = users;
    this.basic = new org.apache.arrow.flight.auth2.BasicCallHeaderAuthenticator(users);
    this.generated = new org.apache.arrow.flight.auth2.GeneratedBearerTokenAuthenticator(basic);
  }

  /** From now on, issue and accept tokens signed with a key from {@code secret}. */
  void useSecret(byte[] secret) {
    key = Signing.deriveKey("quiver bearer tokens\n", secret);
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    byte[] k = key;
    String auth = headers.get(Auth2Constants.AUTHORIZATION_HEADER);
    if (k == null) return generated.authenticate(headers);
    if (auth != null && auth.startsWith(Auth2Constants.BEARER_PREFIX)) {
      String token = auth.substring(Auth2Constants.BEARER_PREFIX.length()).strip();
      if (!token.startsWith(PREFIX)) return generated.authenticate(headers); // issued before the secret was set
      Verified v = verify(k, token);
      if (v == null) throw CallStatus.UNAUTHENTICATED.toRuntimeException(); // AuthMessages says what to do
      boolean renew = v.expiry() - System.currentTimeMillis() < LIFETIME_MS / 2;
      return result(v.user(), renew ? issue(k, v.user()) : null);
    }
    AuthResult r = basic.authenticate(headers); // a password: fails if wrong
    return result(r.getPeerIdentity(), issue(k, r.getPeerIdentity()));
  }

  private static AuthResult result(String user, String token) {
    return new AuthResult() {
      @Override
      public String getPeerIdentity() {
        return user;
      }

      @Override
      public void appendToOutgoingHeaders(CallHeaders outgoing) {
        if (token != null && !outgoing.containsKey(Auth2Constants.AUTHORIZATION_HEADER)) {
          outgoing.insert(Auth2Constants.AUTHORIZATION_HEADER, Auth2Constants.BEARER_PREFIX + token);
        }
      }
    };
  }

  static String issue(byte[] key, String user) {
    String body = PREFIX + b64(user.getBytes(StandardCharsets.UTF_8)) + "." + (System.currentTimeMillis() + LIFETIME_MS);
    return body + "." + b64(mac(key, body));
  }

  private record Verified(String user, long expiry) {}

  /** The user and expiry of a genuine, unexpired token of a user this replica knows, else null. */
  private Verified verify(byte[] key, String token) {
    int last = token.lastIndexOf('.');
    if (last < 0) return null;
    String body = token.substring(0, last);
    byte[] mac;
    try {
      mac = Base64.getUrlDecoder().decode(token.substring(last + 1));
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (!MessageDigest.isEqual(mac, mac(key, body))) return null;
    String[] parts = body.split("\\.");
    if (parts.length != 3) return null;
    try {
      long expiry = Long.parseLong(parts[2]);
      if (expiry < System.currentTimeMillis()) return null;
      String user = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
      return users.has(user) ? new Verified(user, expiry) : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String b64(byte[] b) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private static byte[] mac(byte[] key, String body) {
    return Signing.hmac(key, body.getBytes(StandardCharsets.UTF_8));
  }
}
