package dev.quiver.bench.jmh;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The machine's memory-copy bandwidth, measured in the same run as the other benchmarks so that their
 * bytes per second read as a fraction of it: copying 64 MiB (far beyond the caches) from one heap
 * {@code byte[]} to another and from one direct buffer to another. The score is bytes copied per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class MemoryCopyBenchmark {
  public static final int BYTES = 64 << 20;

  byte[] srcArray;
  byte[] dstArray;
  ByteBuffer srcDirect;
  ByteBuffer dstDirect;

  @Setup(Level.Trial)
  public void setup() {
    srcArray = new byte[BYTES];
    dstArray = new byte[BYTES];
    new java.util.Random(42).nextBytes(srcArray);
    srcDirect = ByteBuffer.allocateDirect(BYTES);
    dstDirect = ByteBuffer.allocateDirect(BYTES);
    srcDirect.put(0, srcArray);
    dstDirect.put(0, dstArray); // touch every page of the destination
  }

  @Benchmark
  @OperationsPerInvocation(BYTES)
  public byte copyByteArray() {
    System.arraycopy(srcArray, 0, dstArray, 0, BYTES);
    return dstArray[BYTES - 1];
  }

  @Benchmark
  @OperationsPerInvocation(BYTES)
  public byte copyDirectBuffer() {
    dstDirect.put(0, srcDirect, 0, BYTES);
    return dstDirect.get(BYTES - 1);
  }
}
