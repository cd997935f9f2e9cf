package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.junit.jupiter.api.Test;

/** Failed logins are throttled per user name and logged on one line; a malformed Basic header is a clear refusal. */
class LoginThrottleTest {
  private static FlightStatusCode code(Runnable r) {
    try {
      r.run();
      return FlightStatusCode.OK;
    } catch (FlightRuntimeException e) {
      return e.status().code();
    }
  }

  @Test
  void aUserNameIsLockedAfterFailuresAndASuccessClearsIt() throws Exception {
    Users users = Users.none().with("alice", "right").with("bob", "his");
    for (int i = 0; i < Users.FREE_FAILURES; i++) {
      assertThatThrownBy(() -> users.validate("alice", "wrong")).hasMessageContaining("invalid user name or password");
    }
    // locked: even the right password is refused, at once and without checking it
    assertThatThrownBy(() -> users.validate("alice", "right")).hasMessageContaining("too many failed logins for this user");
    // other users are not affected
    assertThat(users.validate("bob", "his").getPeerIdentity()).isEqualTo("bob");
    Thread.sleep(1_100); // the first lockout is one second
    assertThat(users.validate("alice", "right").getPeerIdentity()).isEqualTo("alice");
    // cleared by the success: the next failure is not locked out
    assertThatThrownBy(() -> users.validate("alice", "wrong")).hasMessageContaining("invalid user name or password");
    assertThat(users.validate("alice", "right").getPeerIdentity()).isEqualTo("alice");
  }

  @Test
  void malformedBasicCredentialsAreRefusedWithAMessage() {
    AuthMessages auth = new AuthMessages(new ReplicaTokens(Users.none().with("alice", "right")));
    for (String header : new String[] {"Basic !!!!", "Basic " + java.util.Base64.getEncoder().encodeToString("nocolon".getBytes())}) {
      CallHeaders h = new FlightCallHeaders();
      h.insert(org.apache.arrow.flight.auth2.Auth2Constants.AUTHORIZATION_HEADER, header);
      h.insert("authorization", header); // gRPC's headers are case-insensitive; these test headers are not
      assertThatThrownBy(() -> auth.authenticate(h)).isInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED))
          .satisfies(e -> assertThat(e.getMessage()).contains("malformed credentials"));
    }
    CallHeaders ok = new FlightCallHeaders();
    String basic = "Basic " + java.util.Base64.getEncoder().encodeToString("alice:right".getBytes());
    ok.insert(org.apache.arrow.flight.auth2.Auth2Constants.AUTHORIZATION_HEADER, basic);
    ok.insert("authorization", basic);
    assertThat(code(() -> auth.authenticate(ok))).isEqualTo(FlightStatusCode.OK);
  }
}
