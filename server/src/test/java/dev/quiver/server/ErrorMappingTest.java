package dev.quiver.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
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

  /** The web console's HTTP status of each error code: through its Flight status, as the contract lists them. */
  @ParameterizedTest
  @CsvSource({
      "SYNTAX_ERROR, 400", "INVALID_QUERY, 400", "DATA_ERROR, 400", "NOT_FOUND, 404", "UNSUPPORTED, 501",
      "CORRUPT_FILE, 500", "FILE_CHANGED, 503", "RESOURCE_EXHAUSTED, 429", "CANCELLED, 499", "TIMED_OUT, 504",
      "INTERNAL, 500"})
  void everyCodeHasOneHttpStatus(ErrorCode code, int http) {
    var e = ErrorMapping.toFlight(new QuiverException(code, "the message"));
    assertThat(ErrorMapping.httpStatus(e.status().code())).isEqualTo(http);
  }

  @Test
  void authenticationStatusesAreHttps() {
    assertThat(ErrorMapping.httpStatus(FlightStatusCode.UNAUTHENTICATED)).isEqualTo(401);
    assertThat(ErrorMapping.httpStatus(FlightStatusCode.UNAUTHORIZED)).isEqualTo(403);
  }

  @Test
  void aFileDeletedSinceListingIsNotFoundNotCorrupt() {
    var missing = new QuiverException(ErrorCode.CORRUPT_FILE, "cannot open Parquet file hdfs://nn/data/t.parquet",
        new java.io.FileNotFoundException("File does not exist: hdfs://nn/data/t.parquet"));
    var e = ErrorMapping.toFlight(missing);
    assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
    assertThat(e.getMessage()).contains("hdfs://nn/data/t.parquet");
    var corrupt = new QuiverException(ErrorCode.CORRUPT_FILE, "bad", new java.io.IOException("not a Parquet file"));
    assertThat(ErrorMapping.toFlight(corrupt).status().code()).isEqualTo(FlightStatusCode.UNKNOWN);
  }

  @Test
  void memoryLimitsAndBugs() {
    assertThat(ErrorMapping.toFlight(new OutOfMemoryException("Unable to allocate buffer")).status().code())
        .isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
    assertThat(ErrorMapping.toFlight(new OutOfMemoryError("Requested array size exceeds VM limit")).status().code())
        .isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
    assertThat(ErrorMapping.toFlight(new NullPointerException("oops")).status().code()).isEqualTo(FlightStatusCode.INTERNAL);
  }

  @Test
  void anAllocationTheServerRefusesNamesTheServerLimitOneTheQueryRefusesDoesNot() {
    try (var root = new org.apache.arrow.memory.RootAllocator(4L << 20);
        var held = root.newChildAllocator("other-query", 0, 8L << 20);
        var query = root.newChildAllocator("query", 0, 8L << 20);
        var buffer = held.buffer(2L << 20)) {
      OutOfMemoryException serverFull = org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryException.class,
          () -> query.buffer(3L << 20)); // 4 MiB rounded: the query has room, the server not
      var e = ErrorMapping.toFlight(new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, "query exceeded its memory limit", serverFull));
      assertThat(e.status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
      assertThat(e.getMessage()).contains("the server's memory limit of 4 MiB (--server-memory) is reached: 2 MiB are held");
      OutOfMemoryException queryFull = org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryException.class,
          () -> query.buffer(12L << 20)); // over the query's own 8 MiB
      assertThat(ErrorMapping.toFlight(queryFull).getMessage()).doesNotContain("--server-memory")
          .contains("query exceeded its memory limit of 8 MiB (--query-memory): ");
      try (var operator = query.newChildAllocator("operator", 0, Long.MAX_VALUE)) {
        OutOfMemoryException throughChild = org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryException.class,
            () -> operator.buffer(12L << 20)); // an operator's allocator without a limit of its own
        assertThat(ErrorMapping.toFlight(throughChild).getMessage()).contains("limit of 8 MiB (--query-memory)");
      }
    }
  }

  @Test
  void byteCountsTakeBinarySuffixes() {
    assertThat(Main.bytes("1048576")).isEqualTo(1L << 20);
    assertThat(Main.bytes("512m")).isEqualTo(512L << 20);
    assertThat(Main.bytes("8G")).isEqualTo(8L << 30);
    assertThat(Main.bytes("2GiB")).isEqualTo(2L << 30);
    assertThat(Main.bytes("64k")).isEqualTo(64L << 10);
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
