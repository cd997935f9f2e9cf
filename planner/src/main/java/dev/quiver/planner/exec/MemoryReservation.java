package dev.quiver.planner.exec;

import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import org.apache.arrow.memory.AllocationReservation;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Charges an operator's heap structures (hash tables, sort indexes) to the query's allocator without
 * allocating Arrow memory, so that the query's memory limit covers them too. Grows in 1 MiB steps; a
 * step over the limit fails the query with RESOURCE_EXHAUSTED.
 */
final class MemoryReservation implements AutoCloseable {
  private static final long STEP = 1 << 20;
  private final AllocationReservation reservation;
  private final String owner;
  private final long limit;
  private long used;
  private long reserved;

  MemoryReservation(BufferAllocator allocator, String owner) {
    this.reservation = allocator.newReservation();
    this.owner = owner;
    this.limit = allocator.getLimit();
  }

  void add(long bytes) {
    used += bytes;
    while (used > reserved) {
      if (!reservation.add(STEP)) {
        throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, owner + " needs more memory than the query's limit of "
            + (limit >> 20) + " MiB (--query-memory); " + (reserved >> 20) + " MiB of working memory were already reserved");
      }
      reserved += STEP;
    }
  }

  @Override
  public void close() {
    reservation.close();
  }
}
