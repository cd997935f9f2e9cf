package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.Kernels;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * approx_count_distinct's sketch: the number of distinct 64-bit hashes added, exact while there are at most
 * {@link #EXACT_LIMIT} (kept in a small open-addressing set), then a HyperLogLog estimate over 2^14 registers
 * (standard error 1.04 / sqrt(2^14) ≈ 0.8%) with Ertl's improved estimator ("New cardinality estimation algorithms
 * for HyperLogLog sketches", 2017: no bias tables, accurate from small to very large counts). The register state is
 * 16 KiB; the exact phase is at most 8 KiB. Equal SQL values hash equally (-0.0 is 0.0, every NaN one NaN, as
 * {@link Keys} has it); distinct values collide with probability about n^2 / 2^65.
 */
final class HyperLogLog {
  static final int P = 14;
  static final int M = 1 << P;
  /** Rank bits: a register holds 0 (empty) to Q + 1. */
  private static final int Q = 64 - P;
  /** Distinct hashes counted exactly, in a set of at most 1024 slots (75% full). */
  static final int EXACT_LIMIT = 768;

  /** The exact phase: hashes in open addressing, 0 marking an empty slot (hash 0 itself is {@link #zero}). */
  private long[] set = new long[16];
  private int setCount;
  private boolean zero;
  /** The estimating phase, once the exact one overflows. */
  private byte[] registers;

  /** Adds a hash. Returns the bytes of heap the sketch grew by (0 mostly). */
  long add(long hash) {
    if (registers != null) {
      addToRegisters(hash);
      return 0;
    }
    if (hash == 0) {
      zero = true;
      return 0;
    }
    int mask = set.length - 1;
    int slot = (int) mix(hash) & mask;
    while (set[slot] != 0) {
      if (set[slot] == hash) return 0;
      slot = (slot + 1) & mask;
    }
    set[slot] = hash;
    setCount++;
    if (setCount + (zero ? 1 : 0) > EXACT_LIMIT) return toRegisters();
    if (4 * setCount > 3 * set.length) {
      long[] old = set;
      set = new long[old.length * 2];
      setCount = 0;
      for (long h : old) if (h != 0) add(h);
      return 8L * (set.length - old.length);
    }
    return 0;
  }

  private long toRegisters() {
    long before = 8L * set.length;
    registers = new byte[M];
    for (long h : set) if (h != 0) addToRegisters(h);
    if (zero) addToRegisters(0);
    set = null;
    return M - before;
  }

  private void addToRegisters(long hash) {
    int index = (int) (hash >>> Q);
    // the rank: 1 + the leading zeros of the remaining Q bits (a sentinel bit caps it at Q + 1)
    int rank = Long.numberOfLeadingZeros((hash << P) | (1L << (P - 1))) + 1;
    if (rank > registers[index]) registers[index] = (byte) rank;
  }

  /** The number of distinct hashes added: exact in the first phase, estimated in the second. */
  long estimate() {
    if (registers == null) return setCount + (zero ? 1 : 0);
    int[] c = new int[Q + 2];
    for (byte r : registers) c[r]++;
    double z = M * tau(1.0 - (double) c[Q + 1] / M);
    for (int k = Q; k >= 1; k--) z = 0.5 * (z + c[k]);
    z += M * sigma((double) c[0] / M);
    return Math.round(M / (2 * Math.log(2)) * M / z);
  }

  /**
   * The sketch as bytes, a partial aggregation's state: 0, the zero flag, then the hashes (8 bytes each, little
   * endian) while counting exactly; 1, then the registers. {@link #merge} of every task's state gives the sketch of
   * all their values, as if one sketch had seen them: the same set of hashes, the same registers (a maximum).
   */
  byte[] serialize() {
    if (registers != null) {
      byte[] b = new byte[1 + M];
      b[0] = 1;
      System.arraycopy(registers, 0, b, 1, M);
      return b;
    }
    ByteBuffer b = ByteBuffer.allocate(2 + 8 * setCount).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0).put((byte) (zero ? 1 : 0));
    for (long h : set) if (h != 0) b.putLong(h);
    return b.array();
  }

  /** Adds the values of a {@link #serialize serialized} sketch. Returns the bytes of heap the sketch grew by. */
  long merge(byte[] state) {
    long grew = 0;
    if (state[0] == 0) {
      if (state[1] != 0) grew += add(0);
      ByteBuffer b = ByteBuffer.wrap(state, 2, state.length - 2).order(ByteOrder.LITTLE_ENDIAN);
      while (b.remaining() >= 8) grew += add(b.getLong());
      return grew;
    }
    if (registers == null) grew += toRegisters();
    for (int i = 0; i < M; i++) if (state[1 + i] > registers[i]) registers[i] = state[1 + i];
    return grew;
  }

  /** Heap bytes held. */
  long bytes() {
    return 48 + (registers != null ? registers.length : 8L * set.length);
  }

  private static double sigma(double x) {
    if (x == 1) return Double.POSITIVE_INFINITY;
    double y = 1;
    double z = x;
    while (true) {
      x *= x;
      double before = z;
      z += x * y;
      y += y;
      if (before == z) return z;
    }
  }

  private static double tau(double x) {
    if (x == 0 || x == 1) return 0;
    double y = 1;
    double z = 1 - x;
    while (true) {
      x = Math.sqrt(x);
      double before = z;
      y *= 0.5;
      z -= (1 - x) * (1 - x) * y;
      if (before == z) return z / 3;
    }
  }

  /**
   * A 64-bit hash of a long: SplitMix64's output for the state {@code (x + c) * golden} — consecutive values are
   * consecutive states of that generator, whose outputs pass the statistical tests of random numbers.
   */
  static long mix(long x) {
    long z = (x + 0x632BE59BD9B4E019L) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A 64-bit hash of bytes: eight at a time mixed into the state, then the length and a final mix. */
  static long hash(byte[] b) {
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    long h = 0x27D4EB2F165667C5L;
    int i = 0;
    for (; i + 8 <= b.length; i += 8) h = Long.rotateLeft(h ^ mix(buf.getLong(i)), 27) * 0x9E3779B185EBCA87L;
    long tail = 0;
    for (int k = b.length - 1; k >= i; k--) tail = (tail << 8) | (b[k] & 0xFF);
    h = Long.rotateLeft(h ^ mix(tail), 27) * 0x9E3779B185EBCA87L;
    return mix(h ^ b.length);
  }

  /** The hash of row {@code i} (non-NULL) of {@code v}, of family {@code f}: equal SQL values hash equally. */
  static long hash(ColumnValues v, int i, Kernels.Family f) {
    return switch (f) {
      case LONG, ULONG -> mix(v.getLong(i));
      case DOUBLE -> {
        double d = v.getDouble(i);
        yield mix(d == 0 ? 0L : Double.isNaN(d) ? 0x7FF8000000000000L : Double.doubleToRawLongBits(d));
      }
      case DECIMAL -> {
        // one column has one scale: equal values have equal unscaled values
        try {
          yield mix(v.getUnscaledLong(i));
        } catch (ArithmeticException wide) {
          BigDecimal d = v.getDecimal(i);
          yield hash(d.unscaledValue().toByteArray());
        }
      }
      case BYTES -> hash(v.getBytes(i));
      case BOOL -> mix(v.getBool(i) ? 1 : 0);
      case NULL -> 0;
    };
  }

  /** approx_count_distinct(x): the sketch of the non-NULL values' hashes; 0 over none. */
  static final class Count extends Accumulator {
    private final HyperLogLog sketch = new HyperLogLog();
    private final Kernels.Family family;
    private final MemoryReservation memory;

    Count(Kernels.Family family, MemoryReservation memory) {
      this.family = family;
      this.memory = memory;
    }

    @Override
    void add(ColumnValues v, int i) {
      if (v.isNull(i)) return;
      long grew = sketch.add(hash(v, i, family));
      if (grew != 0) memory.add(grew);
    }

    @Override
    long size() {
      return 16 + sketch.bytes();
    }

    /** The sketch's state ({@link HyperLogLog#serialize}). */
    byte[] state() {
      return sketch.serialize();
    }

    /** Adds a partial aggregation's state ({@link #state}). */
    void merge(byte[] state) {
      long grew = sketch.merge(state);
      if (grew != 0) memory.add(grew);
    }

    @Override
    Object result() {
      return sketch.estimate();
    }
  }
}
