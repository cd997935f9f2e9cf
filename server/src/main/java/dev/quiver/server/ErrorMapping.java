package dev.quiver.server;

import dev.quiver.scan.QuiverException;
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
        case RESOURCE_EXHAUSTED -> CallStatus.RESOURCE_EXHAUSTED;
        case CANCELLED -> CallStatus.CANCELLED;
        case TIMED_OUT -> CallStatus.TIMED_OUT;
        case INTERNAL -> CallStatus.INTERNAL;
      };
      // a file deleted since the catalog listed it (on any file system) is missing, not corrupt
      if (q.code() == dev.quiver.scan.ErrorCode.CORRUPT_FILE && causedBy(q, java.io.FileNotFoundException.class)) {
        status = CallStatus.NOT_FOUND;
      }
      if (q.code() == dev.quiver.scan.ErrorCode.INTERNAL || q.code() == dev.quiver.scan.ErrorCode.CORRUPT_FILE) {
        LOG.warn("query failed: {}", q.getMessage(), q);
      }
      String message = q.getMessage();
      if (status == CallStatus.RESOURCE_EXHAUSTED) message = serverLimit(t, message);
      return status.withDescription(message).withCause(q).toRuntimeException();
    }
    OutOfMemoryException oom = findOom(t);
    if (oom != null) {
      return CallStatus.RESOURCE_EXHAUSTED
          .withDescription(serverLimit(t, "query exceeded its memory limit: " + oom.getMessage())).withCause(oom)
          .toRuntimeException();
    }
    OutOfMemoryError heap = findHeapOom(t);
    if (heap != null) {
      // e.g. a corrupt page header declaring a page larger than an array can be: nothing was allocated
      LOG.warn("query ran out of Java heap", heap);
      return CallStatus.RESOURCE_EXHAUSTED
          .withDescription("query ran out of the server's Java heap: " + heap.getMessage()).withCause(heap).toRuntimeException();
    }
    LOG.error("internal error", t);
    return CallStatus.INTERNAL.withDescription("internal error: " + t).withCause(t).toRuntimeException();
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
}
