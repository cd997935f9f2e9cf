package dev.quiver.it;

import java.io.FileWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A self-signed certificate for localhost / 127.0.0.1, written as PEM files (key in PKCS#8). */
record SelfSignedCertificate(Path cert, Path key) {
  static SelfSignedCertificate create(Path dir) throws Exception {
    long now = System.currentTimeMillis();
    return create(dir, new Date(now - 60_000), new Date(now + 86_400_000L));
  }

  /** One valid from {@code notBefore} to {@code notAfter} (expired or not yet valid, for tests of refusals). */
  static SelfSignedCertificate create(Path dir, Date notBefore, Date notAfter) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    KeyPair kp = g.generateKeyPair();
    X500Name name = new X500Name("CN=localhost");
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(System.nanoTime()),
        notBefore, notAfter, name, kp.getPublic());
    b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
    X509Certificate cert = new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    Path certFile = Files.createTempFile(dir, "cert", ".pem");
    Path keyFile = Files.createTempFile(dir, "key", ".pem");
    try (JcaPEMWriter w = new JcaPEMWriter(new FileWriter(certFile.toFile(), StandardCharsets.US_ASCII))) {
      w.writeObject(cert);
    }
    String pem = "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(kp.getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
    Files.writeString(keyFile, pem);
    return new SelfSignedCertificate(certFile, keyFile);
  }

  /** A CA valid now, and a localhost certificate it signed valid from {@code notBefore} to {@code notAfter}. */
  record Chain(Path caCert, Path cert, Path key) {}

  static Chain chain(Path dir, Date notBefore, Date notAfter) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    KeyPair caKeys = g.generateKeyPair();
    KeyPair leafKeys = g.generateKeyPair();
    long now = System.currentTimeMillis();
    X500Name caName = new X500Name("CN=Quiver Test CA");
    JcaX509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, BigInteger.valueOf(System.nanoTime()),
        new Date(now - 86_400_000L), new Date(now + 86_400_000L), caName, caKeys.getPublic());
    ca.addExtension(Extension.basicConstraints, true, new org.bouncycastle.asn1.x509.BasicConstraints(true));
    X509Certificate caCert = new JcaX509CertificateConverter()
        .getCertificate(ca.build(new JcaContentSignerBuilder("SHA256withRSA").build(caKeys.getPrivate())));
    JcaX509v3CertificateBuilder leaf = new JcaX509v3CertificateBuilder(caName, BigInteger.valueOf(System.nanoTime()),
        notBefore, notAfter, new X500Name("CN=localhost"), leafKeys.getPublic());
    leaf.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
    X509Certificate leafCert = new JcaX509CertificateConverter()
        .getCertificate(leaf.build(new JcaContentSignerBuilder("SHA256withRSA").build(caKeys.getPrivate())));
    Path caFile = Files.createTempFile(dir, "ca", ".pem");
    Path certFile = Files.createTempFile(dir, "leaf", ".pem");
    Path keyFile = Files.createTempFile(dir, "leafkey", ".pem");
    try (JcaPEMWriter w = new JcaPEMWriter(new FileWriter(caFile.toFile(), StandardCharsets.US_ASCII))) {
      w.writeObject(caCert);
    }
    try (JcaPEMWriter w = new JcaPEMWriter(new FileWriter(certFile.toFile(), StandardCharsets.US_ASCII))) {
      w.writeObject(leafCert);
    }
    Files.writeString(keyFile, "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(leafKeys.getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n");
    return new Chain(caFile, certFile, keyFile);
  }
}
