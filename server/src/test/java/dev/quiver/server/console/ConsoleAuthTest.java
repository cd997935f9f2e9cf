package dev.quiver.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class ConsoleAuthTest {
  @Test
  void onLoopbackOnlyLoopbackNamesWithThePortAreTheConsole() {
    ConsoleAuth a = new ConsoleAuth("127.0.0.1", 8080);
    assertThat(a.hostAllowed("127.0.0.1:8080")).isTrue();
    assertThat(a.hostAllowed("LOCALHOST:8080")).isTrue();
    assertThat(a.hostAllowed("[::1]:8080")).isTrue();
    assertThat(a.hostAllowed("127.0.0.1:8081")).isFalse();
    assertThat(a.hostAllowed("127.0.0.1")).isFalse();
    assertThat(a.hostAllowed("evil.example:8080")).isFalse();
    assertThat(a.hostAllowed(null)).isFalse();
  }

  @Test
  void onAWildcardAddressTheMachinesOwnNamesAreTheConsole() throws Exception {
    ConsoleAuth a = new ConsoleAuth("0.0.0.0", 8080);
    String name = InetAddress.getLocalHost().getHostName();
    assertThat(a.hostAllowed(name + ":8080")).isTrue();
    assertThat(a.hostAllowed("localhost:8080")).isTrue();
    assertThat(a.hostAllowed("evil.example:8080")).isFalse();
    assertThat(new ConsoleAuth("127.0.0.1", 8080).hostAllowed(name + ":8080"))
        .isEqualTo(name.equalsIgnoreCase("localhost"));
  }

  @Test
  void tokensNameTheirUserAndCsrfIsCompared() {
    ConsoleAuth a = new ConsoleAuth("127.0.0.1", 8080);
    String t = a.issue("alice");
    assertThat(a.user("Bearer " + t)).isEqualTo("alice");
    assertThat(a.user("bearer " + t)).isEqualTo("alice");
    assertThat(a.user("Bearer " + t + "x")).isNull();
    assertThat(a.user(t)).isNull();
    assertThat(a.user(null)).isNull();
    assertThat(a.issue("alice")).isNotEqualTo(t);
    assertThat(a.csrfValid(a.csrf())).isTrue();
    assertThat(a.csrfValid(a.csrf() + "x")).isFalse();
    assertThat(a.csrfValid(null)).isFalse();
    assertThat(new ConsoleAuth("127.0.0.1", 8080).csrf()).isNotEqualTo(a.csrf());
  }
}
