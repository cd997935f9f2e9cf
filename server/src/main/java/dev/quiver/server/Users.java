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

  @Override
  public CallHeaderAuthenticator.AuthResult validate(String username, String password) {
    if (!verify(username, password)) {
      throw CallStatus.UNAUTHENTICATED.withDescription("invalid user name or password").toRuntimeException();
    }
    return () -> username;
  }
}
