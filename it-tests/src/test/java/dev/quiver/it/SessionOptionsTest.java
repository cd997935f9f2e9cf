package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Flight session options set Quiver's settings directly, validated as SET validates them. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionOptionsTest {
  @TempDir
  Path dir;

  @Test
  void optionsAreValidatedAndSet() throws Exception {
    try (TestServer server = TestServer.start(dir); BufferAllocator allocator = new RootAllocator();
        FlightSqlClient sql = server.flightSqlSession(allocator)) {
      SetSessionOptionsResult ok = sql.setSessionOptions(new SetSessionOptionsRequest(Map.of(
          "quiver.batch_rows", SessionOptionValueFactory.makeSessionOptionValue("7"),
          "TimeZone", SessionOptionValueFactory.makeSessionOptionValue("Europe/Berlin"))));
      assertThat(ok.getErrors()).isEmpty();
      Map<String, SessionOptionValue> now = sql.getSessionOptions(new GetSessionOptionsRequest()).getSessionOptions();
      assertThat(text(now.get("quiver.batch_rows"))).isEqualTo("7");
      assertThat(text(now.get("timezone"))).isEqualTo("Europe/Berlin");

      SetSessionOptionsResult bad = sql.setSessionOptions(new SetSessionOptionsRequest(Map.of(
          "quiver.batch_rows", SessionOptionValueFactory.makeSessionOptionValue("0"),
          "quiver.optimizer.simplify", SessionOptionValueFactory.makeSessionOptionValue("maybe"),
          "no.such.setting", SessionOptionValueFactory.makeSessionOptionValue("1"))));
      assertThat(bad.getErrors()).hasSize(3);
      assertThat(bad.getErrors().get("quiver.batch_rows").value).isEqualTo(SetSessionOptionsResult.ErrorValue.INVALID_VALUE);
      assertThat(bad.getErrors().get("quiver.optimizer.simplify").value)
          .isEqualTo(SetSessionOptionsResult.ErrorValue.INVALID_VALUE);
      assertThat(bad.getErrors().get("no.such.setting").value).isEqualTo(SetSessionOptionsResult.ErrorValue.INVALID_NAME);
      now = sql.getSessionOptions(new GetSessionOptionsRequest()).getSessionOptions();
      assertThat(text(now.get("quiver.batch_rows"))).isEqualTo("7"); // unchanged
    }
  }

  private static String text(SessionOptionValue v) {
    return v.acceptVisitor(new org.apache.arrow.flight.NoOpSessionOptionValueVisitor<String>() {
      @Override
      public String visit(String value) {
        return value;
      }

      @Override
      public String visit(boolean value) {
        return Boolean.toString(value);
      }
    });
  }
}
