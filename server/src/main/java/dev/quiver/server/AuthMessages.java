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
  private final CallHeaderAuthenticator delegate;

  AuthMessages(CallHeaderAuthenticator delegate) {
    this.delegate = delegate;
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    try {
      return delegate.authenticate(headers);
    } catch (FlightRuntimeException e) {
      String description = e.status().description();
      if (e.status().code() != FlightStatusCode.UNAUTHENTICATED || description != null && !description.isBlank()) throw e;
      throw CallStatus.UNAUTHENTICATED.withDescription(explain(headers.get("authorization"))).withCause(e)
          .toRuntimeException();
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
