package dev.quiver.server;

/**
 * Arrow's netty allocator carves buffers out of pooled chunks (4 MiB by default) and destroys a chunk as
 * soon as it empties; the next allocation then creates and zeroes a new one. A scan's row group of batches
 * (several MiB) fills and empties chunks over and over, so the same scan took 0.3 s in one JVM and 1–2 s in
 * another. 16 MiB chunks ({@code io.netty.allocator.maxOrder=11}) hold a row group's batches, and the churn
 * stops. Must run before the first Arrow allocation in the process; an explicit setting wins.
 */
public final class AllocatorTuning {
  static final String MAX_ORDER = "io.netty.allocator.maxOrder";

  private AllocatorTuning() {}

  public static void apply() {
    if (System.getProperty(MAX_ORDER) == null) System.setProperty(MAX_ORDER, "11");
  }
}
