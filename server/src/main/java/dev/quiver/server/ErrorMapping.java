package dev.quiver.server;

import dev.quiver.common.QuiverException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.OutOfMemoryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place where Quiver's errors become Flight status codes. */
public final class ErrorMapping {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorMapping.class);

  private ErrorMapping() {}

  public static FlightRuntimeException toFlight(Throwable t) {
    if (t instanceof FlightRuntimeException f) return f;
    QuiverException q = find(t);
    if (q != null) {
      CallStatus status = switch (q.code()) {
        case SYNTAX_ERROR, INVALID_QUERY, DATA_ERROR -> CallStatus.INVALID_ARGUMENT;
        case NOT_FOUND -> CallStatus.NOT_FOUND;
        case UNSUPPORTED -> CallStatus.UNIMPLEMENTED;
        // no DATA_LOSS in Flight; INTERNAL is kept for Quiver's own bugs
        case CORRUPT_FILE -> CallStatus.UNKNOWN;
        // Flight has no ABORTED: UNAVAILABLE is its one status that tells a client to retry
        case FILE_CHANGED -> CallStatus.UNAVAILABLE;
        case RESOURCE_EXHAUSTED -> CallStatus.RESOURCE_EXHAUSTED;
        case CANCELLED -> CallStatus.CANCELLED;
        case TIMED_OUT -> CallStatus.TIMED_OUT;
        case INTERNAL -> CallStatus.INTERNAL;
      };
      // a file deleted since the catalog listed it (on any file system) is missing, not corrupt
      if (q.code() == dev.quiver.common.ErrorCode.CORRUPT_FILE && causedBy(q, java.io.FileNotFoundException.class)) {
        status = CallStatus.NOT_FOUND;
      }
      if (q.code() == dev.quiver.common.ErrorCode.INTERNAL) {
        LOG.warn("query failed: {}", q.getMessage(), q);
      } else if (q.code() == dev.quiver.common.ErrorCode.CORRUPT_FILE) {
        // one line per record (docs/operations.md), every query on a corrupt file: the message and its first cause
        Throwable root = q;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        LOG.warn("query failed: {}{}", q.getMessage(), root == q ? "" : " (" + oneLine(root.toString()) + ")");
      }
      String message = q.getMessage();
      if (status == CallStatus.RESOURCE_EXHAUSTED) message = serverLimit(t, message);
      return status.withDescription(fit(message)).withCause(q).toRuntimeException();
    }
    OutOfMemoryException oom = findOom(t);
    if (oom != null) {
      return CallStatus.RESOURCE_EXHAUSTED
          .withDescription(serverLimit(t, queryLimit(oom) + oom.getMessage())).withCause(oom)
          .toRuntimeException();
    }
    OutOfMemoryError heap = findHeapOom(t);
    if (heap != null) {
      // e.g. a corrupt page header declaring a page larger than an array can be: nothing was allocated
      LOG.warn("query ran out of Java heap", heap);
      return CallStatus.RESOURCE_EXHAUSTED
          .withDescription("query ran out of the server's Java heap: " + heap.getMessage()).withCause(heap).toRuntimeException();
    }
    if (causedBy(t, com.google.protobuf.InvalidProtocolBufferException.class)) {
      // a ticket, command or action body that is no message of Flight SQL: the client's error, not a bug
      return CallStatus.INVALID_ARGUMENT.withDescription("malformed request: not a Flight SQL message Quiver understands")
          .withCause(t).toRuntimeException();
    }
    // the client gets no Java class names or stack: the log has them, under an id the message gives
    String id = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 16);
    LOG.error("internal error {}", id, t);
    return CallStatus.INTERNAL.withDescription("internal error " + id + ": a bug in Quiver (the server's log has the details)")
        .withCause(t).toRuntimeException();
  }

  /**
   * The HTTP status of a Flight status, for the web console: its errors are {@link #toFlight} first, so a
   * console query fails with the status a JDBC client would get. CANCELLED is 499 (nginx's "client closed
   * request"): no standard code means "stopped on request".
   */
  public static int httpStatus(org.apache.arrow.flight.FlightStatusCode code) {
    return switch (code) {
      case OK -> 200;
      case INVALID_ARGUMENT -> 400;
      case UNAUTHENTICATED -> 401;
      case UNAUTHORIZED -> 403;
      case NOT_FOUND -> 404;
      case ALREADY_EXISTS -> 409;
      case RESOURCE_EXHAUSTED -> 429;
      case CANCELLED -> 499;
      case UNIMPLEMENTED -> 501;
      case UNAVAILABLE -> 503;
      case TIMED_OUT -> 504;
      case INTERNAL, UNKNOWN -> 500;
    };
  }

  /**
   * As {@link #toFlight(Throwable)}, with the data location left out of the message: a file under it is named
   * by its path relative to it ({@code cannot read Parquet footer of part=1/f.parquet}), so that errors do not
   * show clients where the server keeps its data.
   */
  public static FlightRuntimeException toFlight(Throwable t, String dataLocation) {
    FlightRuntimeException f = toFlight(t);
    String description = f.status().description();
    if (dataLocation == null || description == null) return f;
    String relative;
    try {
      relative = relativize(description, dataLocation);
    } catch (RuntimeException unusual) { // a location that is no path of this machine: leave the message
      return f;
    }
    return relative.equals(description) ? f
        : f.status().withDescription(relative).withCause(f.getCause()).toRuntimeException();
  }

  /**
   * {@code message} with every "{@code dir}/" of a local data location (as given, absolute, as a URI) removed.
   * A Hadoop URI ({@code hdfs://…}) is kept: there the full URI is how an operator finds the file.
   */
  static String relativize(String message, String dataLocation) {
    java.util.Set<String> prefixes = new java.util.LinkedHashSet<>();
    String loc = dataLocation.replaceAll("/+$", "");
    if (loc.isEmpty() || loc.contains("://") && !loc.startsWith("file:")) return message;
    if (loc.startsWith("file:")) loc = java.net.URI.create(loc).getPath().replaceAll("/+$", "");
    java.nio.file.Path p = java.nio.file.Path.of(loc).toAbsolutePath().normalize();
    // --data may name a single file: its directory is then the location
    java.nio.file.Path dir = java.nio.file.Files.isRegularFile(p) ? p.getParent() : p;
    if (dir == null) return message;
    String abs = dir.toString();
    prefixes.add(dir.toUri().toString()); // file:///tmp/data/
    prefixes.add("file:" + abs + "/");
    prefixes.add(abs + "/");
    prefixes.add(loc + "/");
    String out = message;
    for (String prefix : prefixes) out = out.replace(prefix, "");
    return out;
  }

  /**
   * {@code message} cut to fit a gRPC status: the description travels percent-encoded in a trailer, and a
   * client refuses trailers over 8 KiB (the error would reach it as a bare INTERNAL "HTTP/2 error").
   */
  static String fit(String message) {
    if (message == null) return null;
    int budget = 6_000; // encoded bytes: 1 for printable ASCII, 3 for each UTF-8 byte otherwise
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      budget -= c >= ' ' && c < 0x7f && c != '%' ? 1 : c < 0x80 ? 3 : 9;
      if (budget < 0) {
        int end = i > 0 && Character.isHighSurrogate(message.charAt(i - 1)) ? i - 1 : i;
        return message.substring(0, end) + "… (" + message.length() + " characters)";
      }
    }
    return message;
  }

  /**
   * {@code message}, prefixed with the server-wide limit when the allocation that failed was refused by the
   * root allocator ({@code --server-memory}: the other queries hold the memory), not by the query's own.
   */
  private static String serverLimit(Throwable t, String message) {
    OutOfMemoryException oom = findOom(t);
    if (oom == null || message.contains("--server-memory")) return message;
    org.apache.arrow.memory.BufferAllocator failed = oom.getOutcomeDetails()
        .map(org.apache.arrow.memory.AllocationOutcomeDetails::getFailedAllocator).orElse(null);
    if (failed == null || failed.getParentAllocator() != null) return message;
    return "the server's memory limit of " + (failed.getLimit() >> 20) + " MiB (--server-memory) is reached: "
        + (failed.getAllocatedMemory() >> 20) + " MiB are held by running queries; " + message;
  }

  /**
   * The start of the message for an allocation the query's own allocator refused: the limit it hit, named as the
   * flag that sets it, as {@code MemoryReservation} names it when working memory is refused.
   */
  private static String queryLimit(OutOfMemoryException oom) {
    org.apache.arrow.memory.BufferAllocator failed = oom.getOutcomeDetails()
        .map(org.apache.arrow.memory.AllocationOutcomeDetails::getFailedAllocator).orElse(null);
    if (failed == null || failed.getParentAllocator() == null) return "query exceeded its memory limit: ";
    return "query exceeded its memory limit of " + (failed.getLimit() >> 20) + " MiB (--query-memory): ";
  }

  private static QuiverException find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof QuiverException q) return q;
    }
    return null;
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) return true;
    }
    return false;
  }

  private static OutOfMemoryError findHeapOom(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof OutOfMemoryError o) return o;
    }
    return null;
  }

  private static OutOfMemoryException findOom(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof OutOfMemoryException o) return o;
    }
    return null;
  }

  /** {@code text} on one line, at most 300 characters. */
  static String oneLine(String text) {
    String t = text.replaceAll("\\s*\\R\\s*", " | ");
    return t.length() > 300 ? t.substring(0, 300) + "…" : t;
  }
}
