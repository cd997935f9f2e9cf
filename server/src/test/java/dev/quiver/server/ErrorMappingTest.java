package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.OutOfMemoryException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ErrorMappingTest {
  @ParameterizedTest
  @CsvSource({
      "SYNTAX_ERROR, INVALID_ARGUMENT", "INVALID_QUERY, INVALID_ARGUMENT", "DATA_ERROR, INVALID_ARGUMENT",
      "NOT_FOUND, NOT_FOUND", "UNSUPPORTED, UNIMPLEMENTED", "CORRUPT_FILE, UNKNOWN",
      "RESOURCE_EXHAUSTED, RESOURCE_EXHAUSTED", "CANCELLED, CANCELLED", "TIMED_OUT, TIMED_OUT", "INTERNAL, INTERNAL"})
  void everyCodeHasOneStatus(ErrorCode code, FlightStatusCode status) {
    var e = ErrorMapping.toFlight(new RuntimeException("wrapped", new QuiverException(code, "the message")));
    assertThat(e.status().code()).isEqualTo(status);
    assertThat(e.getMessage()).contains("the message");
  }

  @Test
  void memoryLimitsAndBugs() {
    assertThat(ErrorMapping.toFlight(new OutOfMemoryException("Unable to allocate buffer")).status().code())
        .isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
    assertThat(ErrorMapping.toFlight(new NullPointerException("oops")).status().code()).isEqualTo(FlightStatusCode.INTERNAL);
  }

  @Test
  void metadataNameFiltersAreSqlLike() {
    assertThat(QuiverProducer.like("line%", "lineitem")).isTrue();
    assertThat(QuiverProducer.like("l_neitem", "lineitem")).isTrue();
    assertThat(QuiverProducer.like("LINEITEM", "lineitem")).isTrue();
    assertThat(QuiverProducer.like("a\\_b", "a_b")).isTrue();
    assertThat(QuiverProducer.like("a\\_b", "axb")).isFalse();
    assertThat(QuiverProducer.like("item", "lineitem")).isFalse();
    assertThat(QuiverProducer.like("(.*)", "anything")).isFalse();
  }
}
