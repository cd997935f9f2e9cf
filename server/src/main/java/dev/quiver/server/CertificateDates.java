package dev.quiver.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The validity dates of the certificates in a PEM file. Java's trust check does not look at a trust anchor's own
 * dates, so a self-signed certificate given as the shell's {@code --tls-ca} (the README's recipe) was accepted when
 * expired, where pyarrow and curl refuse it; the shell refuses it, and the server warns at start about its own.
 */
final class CertificateDates {
  private CertificateDates() {}

  /** One line per certificate of {@code pem} that is expired or not yet valid at {@code now}; none if all are valid. */
  static List<String> problems(Path pem, Instant now) throws IOException {
    List<String> out = new ArrayList<>();
    try (InputStream in = Files.newInputStream(pem)) {
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        if (!(c instanceof X509Certificate x)) continue;
        String who = x.getSubjectX500Principal().getName();
        if (x.getNotAfter().toInstant().isBefore(now)) {
          out.add("the certificate " + who + " in " + pem.getFileName() + " expired on " + x.getNotAfter().toInstant());
        } else if (x.getNotBefore().toInstant().isAfter(now)) {
          out.add("the certificate " + who + " in " + pem.getFileName() + " is not valid before " + x.getNotBefore().toInstant());
        }
      }
    } catch (CertificateException e) {
      throw new IOException("cannot read the certificates in " + pem.getFileName() + ": " + e.getMessage(), e);
    }
    return out;
  }
}
