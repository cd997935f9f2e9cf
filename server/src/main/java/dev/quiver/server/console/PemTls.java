package dev.quiver.server.console;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * An {@link SSLContext} from the same PEM files Flight serves TLS with ({@code --tls-cert}: the certificate
 * chain; {@code --tls-key}: the private key in PKCS#8, {@code BEGIN PRIVATE KEY}; {@code --tls-client-ca}: the
 * CA client certificates must be signed by, optional).
 */
final class PemTls {
  private PemTls() {}

  static SSLContext context(Path certFile, Path keyFile, Path clientCa) throws IOException {
    try {
      Collection<? extends Certificate> chain = certificates(certFile);
      if (chain.isEmpty()) throw new IOException("no certificate in " + certFile + " (--tls-cert)");
      PrivateKey key = privateKey(keyFile);
      char[] password = new char[0];
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry("console", key, password, chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, password);
      TrustManagerFactory tmf = null;
      if (clientCa != null) {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        int i = 0;
        for (Certificate c : certificates(clientCa)) trust.setCertificateEntry("ca" + i++, c);
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
      }
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), new SecureRandom());
      return ssl;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot use " + certFile + " and " + keyFile + " for the console's TLS: " + e.getMessage(), e);
    }
  }

  private static Collection<? extends Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      return CertificateFactory.getInstance("X.509").generateCertificates(in);
    }
  }

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < begin) {
      throw new IOException(file + " (--tls-key) holds no PKCS#8 private key (-----BEGIN PRIVATE KEY-----); convert"
          + " one with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    GeneralSecurityException last = null;
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "RSASSA-PSS"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new IOException(file + " (--tls-key): not an RSA, EC or Ed25519 key: " + last.getMessage(), last);
  }
}
