package dev.quiver.server;

import java.util.Locale;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * Gives Arrow's authenticators' bare UNAUTHENTICATED errors (no message at all for a call without
 * credentials or with an unknown bearer token) a message saying what is missing and what to send.
 */
final class AuthMessages implements CallHeaderAuthenticator {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AuthMessages.class);
  private final CallHeaderAuthenticator delegate;

  AuthMessages(CallHeaderAuthenticator delegate) {
    this.delegate = delegate;
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    String authorization = headers.get("authorization");
    if (authorization != null && authorization.regionMatches(true, 0, "Basic ", 0, 6) && !wellFormedBasic(authorization)) {
      // Arrow's Basic parser logs such a header ("Basic !!!!") as an ERROR with a 20-line stack trace, per request
      LOG.warn("login failed: malformed Basic credentials");
      throw CallStatus.UNAUTHENTICATED.withDescription("malformed credentials: 'Authorization: Basic' needs the Base64 of"
          + " user:password").toRuntimeException();
    }
    try {
      return delegate.authenticate(headers);
    } catch (FlightRuntimeException e) {
      String description = e.status().description();
      if (e.status().code() != FlightStatusCode.UNAUTHENTICATED || description != null && !description.isBlank()) throw e;
      throw CallStatus.UNAUTHENTICATED.withDescription(explain(headers.get("authorization"))).withCause(e)
          .toRuntimeException();
    }
  }

  /** Whether {@code Basic <Base64 of user:password>}. */
  static boolean wellFormedBasic(String authorization) {
    try {
      byte[] decoded = java.util.Base64.getDecoder().decode(authorization.substring(6).strip());
      return new String(decoded, java.nio.charset.StandardCharsets.UTF_8).indexOf(':') >= 0;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  static String explain(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      return "authentication required: this server has users; send a user name and password (HTTP Basic, e.g. the JDBC"
          + " driver's user= and password=) or the bearer token a handshake returned";
    }
    if (authorization.toLowerCase(Locale.ROOT).startsWith("bearer ")) {
      return "unknown or expired bearer token: authenticate again with a user name and password";
    }
    return "authentication failed: send credentials as 'Authorization: Basic …' (user name and password) or"
        + " 'Authorization: Bearer …' (a token from a handshake)";
  }
}
