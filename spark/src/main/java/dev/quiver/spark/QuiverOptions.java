package dev.quiver.spark;

import java.io.Serializable;
import java.net.URI;
import java.util.Locale;
import java.util.Map;

/**
 * The connector's options, the same for the {@code quiver} format ({@code .option(...)}) and the catalog
 * ({@code spark.sql.catalog.<name>.<option>}); keys are case-insensitive.
 *
 * @param url                  {@code grpc://host:port} or {@code grpc+tls://host:port}
 * @param user                 user name for basic authentication (then a bearer token), or null
 * @param password             its password
 * @param tls                  TLS even if the url says {@code grpc://}
 * @param trustedCertificates  a PEM file of CA certificates to trust (on the driver and every executor)
 * @param disableCertificateVerification accept any server certificate (testing only)
 * @param clientCertificate    PEM client certificate for mutual TLS, with {@code clientKey}
 * @param clientKey            its PEM private key
 * @param maxEndpoints         if &gt; 0, {@code SET quiver.max_endpoints = N} in the session before planning
 */
public record QuiverOptions(String url, String user, String password, boolean tls, String trustedCertificates,
    boolean disableCertificateVerification, String clientCertificate, String clientKey, int maxEndpoints)
    implements Serializable {

  public static QuiverOptions from(Map<String, String> options) {
    Map<String, String> o = new java.util.HashMap<>();
    options.forEach((k, v) -> o.put(k.toLowerCase(Locale.ROOT), v));
    String url = o.get("url");
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("quiver: option 'url' is required, e.g. grpc://127.0.0.1:31337");
    }
    URI u = URI.create(url);
    if (u.getHost() == null || u.getPort() < 0) {
      throw new IllegalArgumentException("quiver: option 'url' must be grpc://host:port or grpc+tls://host:port, got " + url);
    }
    return new QuiverOptions(url, o.get("user"), o.get("password"),
        Boolean.parseBoolean(o.getOrDefault("tls", "false")) || url.startsWith("grpc+tls:"),
        o.get("trustedcertificates"), Boolean.parseBoolean(o.getOrDefault("disablecertificateverification", "false")),
        o.get("clientcertificate"), o.get("clientkey"), Integer.parseInt(o.getOrDefault("maxendpoints", "0")));
  }

  URI uri() {
    return URI.create(url);
  }

  @Override
  public String toString() {
    return "QuiverOptions[url=" + url + ", user=" + user + ", tls=" + tls + "]";
  }
}
