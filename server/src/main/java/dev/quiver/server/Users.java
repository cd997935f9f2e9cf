package dev.quiver.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.auth2.BasicCallHeaderAuthenticator;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * The users allowed to connect, with PBKDF2-SHA256 password hashes. A users file has one line per user,
 * {@code name:pbkdf2-sha256:iterations:salt:hash} (Base64), as {@code quiver-server.jar hash-password}
 * prints; blank lines and {@code #} comments are ignored.
 */
public final class Users implements BasicCallHeaderAuthenticator.CredentialValidator {
  static final int ITERATIONS = 210_000;
  private final Map<String, String> hashes = new LinkedHashMap<>();

  public static Users none() {
    return new Users();
  }

  /** Whether {@code name} is a user. */
  public boolean has(String name) {
    return hashes.containsKey(name);
  }

  public boolean isEmpty() {
    return hashes.isEmpty();
  }

  /** Adds {@code name} with a plain password (hashed here; for flags and tests). */
  public Users with(String name, String password) {
    hashes.put(name, hash(password, ITERATIONS));
    return this;
  }

  public Users load(Path file) throws IOException {
    int n = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      n++;
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) continue;
      int colon = l.indexOf(':');
      if (colon <= 0 || !l.substring(colon + 1).startsWith("pbkdf2-sha256:")) {
        throw new IOException(file + ":" + n + ": expected name:pbkdf2-sha256:iterations:salt:hash");
      }
      hashes.put(l.substring(0, colon), l.substring(colon + 1));
    }
    return this;
  }

  /** A stored form of {@code password}: {@code pbkdf2-sha256:iterations:salt:hash}. */
  public static String hash(String password, int iterations) {
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    return "pbkdf2-sha256:" + iterations + ":" + Base64.getEncoder().encodeToString(salt) + ":"
        + Base64.getEncoder().encodeToString(derive(password, salt, iterations));
  }

  private static byte[] derive(String password, byte[] salt, int iterations) {
    try {
      PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  boolean verify(String name, String password) {
    String stored = hashes.get(name);
    if (stored == null || password == null) return false;
    String[] p = stored.split(":");
    if (p.length != 4) return false;
    byte[] salt = Base64.getDecoder().decode(p[2]);
    byte[] expected = Base64.getDecoder().decode(p[3]);
    return MessageDigest.isEqual(expected, derive(password, salt, Integer.parseInt(p[1])));
  }

  /** Failed logins of one user name allowed before it is locked out. */
  static final int FREE_FAILURES = 5;
  /** The longest lockout: each failure over {@link #FREE_FAILURES} doubles it, from one second. */
  static final long MAX_LOCKOUT_MS = 60_000;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Users.class);
  /** Per user name: failures in a row, and until when (epoch ms) it is locked. */
  private final java.util.concurrent.ConcurrentHashMap<String, long[]> failures = new java.util.concurrent.ConcurrentHashMap<>();
  /**
   * One PBKDF2 check at a time (210,000 iterations, about 0.1 s of a core): 32 clients sending wrong passwords
   * took every core and slowed an authenticated user's query from 21 ms to 637 ms.
   */
  private final java.util.concurrent.Semaphore hashing = new java.util.concurrent.Semaphore(1, true);

  /**
   * Checks a password; throttled per user name: after {@link #FREE_FAILURES} failures in a row the name is locked
   * for 1, 2, 4 … up to {@link #MAX_LOCKOUT_MS / 1000} s (answered at once, without checking the password, so that
   * guessing is slow and costs the server nothing); a success clears it. Each failure is logged on one line.
   */
  @Override
  public CallHeaderAuthenticator.AuthResult validate(String username, String password) {
    long now = System.currentTimeMillis();
    long[] f = username == null ? null : failures.get(username);
    if (f != null) {
      synchronized (f) {
        if (f[1] > now) {
          LOG.warn("login refused for user '{}': locked for {} ms after {} failed logins", printable(username), f[1] - now, f[0]);
          throw CallStatus.UNAUTHENTICATED.withDescription("too many failed logins for this user: try again in "
              + Math.max(1, (f[1] - now + 999) / 1000) + " s").toRuntimeException();
        }
      }
    }
    boolean ok;
    try {
      hashing.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallStatus.UNAVAILABLE.withDescription("the server is stopping").toRuntimeException();
    }
    try {
      ok = verify(username, password);
    } finally {
      hashing.release();
    }
    if (!ok) {
      if (username != null && (has(username) || failures.size() < 10_000)) { // unknown names: bounded memory
        long[] mine = failures.computeIfAbsent(username, k -> new long[2]);
        synchronized (mine) {
          mine[0]++;
          if (mine[0] >= FREE_FAILURES) {
            mine[1] = now + Math.min(MAX_LOCKOUT_MS, 1000L << Math.min(16, mine[0] - FREE_FAILURES));
          }
        }
      }
      LOG.warn("login failed for user '{}'", printable(username));
      throw CallStatus.UNAUTHENTICATED.withDescription("invalid user name or password").toRuntimeException();
    }
    failures.remove(username);
    return () -> username;
  }

  /** A user name as logged: at most 64 characters, control characters escaped (no forged log lines). */
  static String printable(String name) {
    if (name == null) return "";
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < name.length() && i < 64; i++) {
      char c = name.charAt(i);
      b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return name.length() > 64 ? b + "…" : b.toString();
  }
}
