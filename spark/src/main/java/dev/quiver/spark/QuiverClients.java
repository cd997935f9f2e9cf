package dev.quiver.spark;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Optional;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.memory.BufferAllocator;

/** Flight clients built from {@link QuiverOptions}: TLS, trust, client certificates, and basic auth → bearer. */
final class QuiverClients {
  private QuiverClients() {}

  /** A client to {@code target} ({@code grpc[+tls]://host:port}; TLS also when the options ask for it). */
  static FlightClient client(BufferAllocator allocator, QuiverOptions o, URI target, boolean cookies) {
    return client(allocator, o, target, cookies, null);
  }

  static FlightClient client(BufferAllocator allocator, QuiverOptions o, URI target, boolean cookies,
      TokenCapture capture) {
    boolean tls = o.tls() || "grpc+tls".equals(target.getScheme());
    Location location = tls ? Location.forGrpcTls(target.getHost(), target.getPort())
        : Location.forGrpcInsecure(target.getHost(), target.getPort());
    FlightClient.Builder b = FlightClient.builder(allocator, location);
    if (cookies) b.intercept(new ClientCookieMiddleware.Factory());
    if (capture != null) b.intercept(capture);
    if (tls) {
      if (o.disableCertificateVerification()) b.verifyServer(false);
      if (o.trustedCertificates() != null) b.trustedCertificates(read(o.trustedCertificates()));
      if (o.clientCertificate() != null) b.clientCertificate(read(o.clientCertificate()), read(o.clientKey()));
    }
    return b.build();
  }

  private static InputStream read(String path) {
    try (FileInputStream in = new FileInputStream(path)) {
      return new java.io.ByteArrayInputStream(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("quiver: cannot read " + path, e);
    }
  }

  /** The {@code authorization} header value (a bearer token) after basic authentication, or null without a user. */
  static String authenticate(FlightClient client, QuiverOptions o, TokenCapture capture) {
    if (o.user() == null) return null;
    Optional<CredentialCallOption> token = client.authenticateBasicToken(o.user(), o.password() == null ? "" : o.password());
    if (token.isEmpty()) return null;
    return capture.authorization;
  }

  /** Keeps the {@code authorization} header (the bearer token) the server answers a handshake with. */
  static final class TokenCapture implements FlightClientMiddleware.Factory {
    volatile String authorization;

    @Override
    public FlightClientMiddleware onCallStarted(CallInfo info) {
      return new FlightClientMiddleware() {
        @Override
        public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

        @Override
        public void onHeadersReceived(CallHeaders incomingHeaders) {
          String a = incomingHeaders.get("authorization");
          if (a != null && a.regionMatches(true, 0, "Bearer ", 0, 7)) authorization = a;
        }

        @Override
        public void onCallCompleted(CallStatus status) {}
      };
    }
  }

  /** Call options carrying {@code authorization} (none when null). */
  static CallOption[] auth(String authorization) {
    if (authorization == null) return new CallOption[0];
    CallHeaders h = new FlightCallHeaders();
    h.insert("authorization", authorization);
    return new CallOption[] {new HeaderCallOption(h)};
  }
}
