package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightStatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The server's own text handling holds up against hostile input: linear time, bounded messages, no internals. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileInputTest {
  @Test
  void setAndShowAreRecognizedInLinearTime() {
    // "SET x = a" + spaces + "y": the old pattern ended in (.+?)\s*;?\s*$ and took minutes for 10,000 spaces
    String spaces = " ".repeat(1_000_000);
    long start = System.nanoTime();
    assertThat(SessionSettings.parseShow("SHOW x" + spaces + "y")).isNull();
    assertThatThrownBy(() -> SessionSettings.parse("SET x = a" + spaces + "y "))
        .isInstanceOf(QuiverException.class).hasMessageStartingWith("unknown setting x (");
    assertThatThrownBy(() -> SessionSettings.parse("SET quiver.optimizer.simplify = " + "x".repeat(100_000)))
        .hasMessageContaining("… (100000 characters)");
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
    // what they recognized before, they still do
    assertThat(SessionSettings.parse("  set TIME ZONE  'Asia/Singapore' ;  ")).isEqualTo(
        new SessionSettings.Assignment(SessionSettings.TIMEZONE, "Asia/Singapore"));
    assertThat(SessionSettings.parse("SET quiver.statement_timeout_ms TO 5000;")).isEqualTo(
        new SessionSettings.Assignment(SessionSettings.TIMEOUT, "5000"));
    assertThat(SessionSettings.parseShow("show time zone;")).containsExactly(SessionSettings.TIMEZONE);
    assertThat(SessionSettings.parseShow("SHOW ALL")).isEqualTo(SessionSettings.ALL);
    assertThat(SessionSettings.parse("SELECT 1")).isNull();
  }

  @Test
  void metadataNameFiltersAreLinear() {
    // as java.util.regex, "%%%…x" was ".*.*.*…x": exponential backtracking on every table name
    long start = System.nanoTime();
    assertThat(QuiverProducer.like("%".repeat(200) + "x", "lineitem_lineitem_lineitem")).isFalse();
    assertThat(QuiverProducer.like("%_".repeat(200) + "%", "lineitem")).isFalse();
    assertThat(QuiverProducer.like("%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%b", "a".repeat(40))).isFalse();
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000);
  }

  @Test
  void statusDescriptionsFitAGrpcTrailer() {
    String huge = "cannot compare " + "é".repeat(20_000);
    var e = ErrorMapping.toFlight(new QuiverException(ErrorCode.INVALID_QUERY, huge));
    assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
    assertThat(e.status().description()).startsWith("cannot compare éé").endsWith("… (20015 characters)").hasSizeLessThan(1_000);
    assertThat(ErrorMapping.fit("short")).isEqualTo("short");
    assertThat(ErrorMapping.fit("x".repeat(10_000))).hasSizeLessThan(6_100);
  }

  @Test
  void internalErrorsShowNoJavaClassNames() {
    var e = ErrorMapping.toFlight(new IllegalStateException("Expected 3 but was null at index 7"));
    assertThat(e.status().code()).isEqualTo(FlightStatusCode.INTERNAL);
    assertThat(e.status().description()).matches("internal error [0-9a-f]+: a bug in Quiver \\(the server's log has the details\\)");
  }

  @Test
  void errorsNameFilesRelativeToTheDataDirectory(@TempDir Path dir) throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("t.parquet"), "not parquet");
    String abs = data.toAbsolutePath().toString();
    var corrupt = new QuiverException(ErrorCode.CORRUPT_FILE, "cannot read Parquet footer of file:" + abs
        + "/part=1/f.parquet: not a Parquet file (also " + data.toUri() + "g.parquet and " + abs + "/h.parquet)");
    var e = ErrorMapping.toFlight(corrupt, abs);
    assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNKNOWN);
    assertThat(e.status().description()).isEqualTo(
        "cannot read Parquet footer of part=1/f.parquet: not a Parquet file (also g.parquet and h.parquet)");
    // --data naming one file: its directory; a trailing slash; a file: URI
    assertThat(ErrorMapping.relativize(abs + "/t.parquet is bad", data.resolve("t.parquet").toString())).isEqualTo("t.parquet is bad");
    assertThat(ErrorMapping.relativize("file:" + abs + "/t.parquet", abs + "/")).isEqualTo("t.parquet");
    assertThat(ErrorMapping.relativize("file:" + abs + "/t.parquet", data.toUri().toString())).isEqualTo("t.parquet");
    // a Hadoop URI stays whole (operators look the file up by it); so does a location of "/"
    assertThat(ErrorMapping.relativize("hdfs://nn:8020/w/t.parquet", "hdfs://nn:8020/w")).isEqualTo("hdfs://nn:8020/w/t.parquet");
    assertThat(ErrorMapping.relativize("/etc/x", "/")).isEqualTo("/etc/x");
    assertThat(ErrorMapping.toFlight(corrupt, null).status().description()).contains(abs);
  }
}
