package dev.quiver.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256 signatures of statement handles, fragment tickets and replica tokens, and the keys they use. */
final class Signing {
  private Signing() {}

  /** A key from a shared secret: SHA-256 of {@code purpose} (UTF-8) followed by {@code secret}. */
  static byte[] deriveKey(String purpose, byte[] secret) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(purpose.getBytes(StandardCharsets.UTF_8));
      return d.digest(secret);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] hmac(byte[] key, byte[] body) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      return m.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
