package dev.quiver.planner.exec;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import org.apache.arrow.memory.AllocationReservation;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Charges an operator's heap structures (hash tables, sort indexes) to the query's allocator without
 * allocating Arrow memory, so that the query's memory limit covers them too. Grows in steps of 1/64 of the limit (1 KiB to 1 MiB); a
 * step over the limit fails the query with RESOURCE_EXHAUSTED.
 */
final class MemoryReservation implements AutoCloseable {
  private final BufferAllocator allocator;
  private AllocationReservation reservation;
  private final String owner;
  private final long limit;
  /** Reserved at a time: 1/64 of the limit, between 1 KiB and 1 MiB. */
  private final long step;
  private long used;
  private long reserved;

  MemoryReservation(BufferAllocator allocator, String owner) {
    this.allocator = allocator;
    this.reservation = allocator.newReservation();
    this.owner = owner;
    this.limit = allocator.getLimit();
    this.step = Math.max(1 << 10, Math.min(1 << 20, limit / 64));
  }

  void add(long bytes) {
    used += bytes;
    while (used > reserved) {
      if (!reservation.add(step)) {
        BufferAllocator root = allocator;
        while (root.getParentAllocator() != null) root = root.getParentAllocator();
        // the server's limit is to blame only if the root has no room for a step (the query's own allocations can
        // fall between the refusal and this check, as its scan tasks release batches, so the query's room says little)
        if (root != allocator && root.getLimit() - root.getAllocatedMemory() < step) {
          // the query had room left: the server-wide limit refused (the other queries hold the memory)
          throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, owner + " needs more memory: the server's memory limit of "
              + (root.getLimit() >> 20) + " MiB (--server-memory) is reached: " + (root.getAllocatedMemory() >> 20)
              + " MiB are held by running queries");
        }
        throw new QuiverException(ErrorCode.RESOURCE_EXHAUSTED, owner + " needs more memory than the query's limit of "
            + (limit >> 20) + " MiB (--query-memory); " + (reserved >> 20) + " MiB of working memory were already reserved");
      }
      reserved += step;
    }
  }

  /**
   * The query's memory in use past which a sort or an aggregation spills: all of {@code limit} but a headroom for the
   * rest of the query (the scan decoding row groups, the tasks' tables) of half the limit, at most 256 MiB. A small
   * limit spills at half; 2 GiB at 1.75 GiB, so an aggregation that fits in memory is not spilled for nothing (H2O's
   * q10 at 2 GiB, spilling at half, took 9.3 s instead of 6.1 s).
   */
  static long spillAt(long limit) {
    return limit - Math.min(limit / 2, 256L << 20);
  }

  /** Bytes charged so far. */
  long used() {
    return used;
  }

  /** Gives back everything reserved (the structures it covered were dropped), and starts again from nothing. */
  void reset() {
    reservation.close();
    reservation = allocator.newReservation();
    used = 0;
    reserved = 0;
  }

  @Override
  public void close() {
    reservation.close();
  }
}
