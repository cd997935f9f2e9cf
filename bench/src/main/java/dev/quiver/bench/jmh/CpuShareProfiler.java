package dev.quiver.bench.jmh;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * How much CPU the benchmark's JVM got per iteration: its process CPU time over the wall time, in
 * cores ({@code 1.0} = one core all the time; the JIT and GC threads count too). On a shared machine
 * a single-threaded benchmark that gets less than a core scores less than the code can do; {@link
 * JmhMain} reports the score per CPU-second next to the wall-clock score.
 */
public final class CpuShareProfiler implements InternalProfiler {
  public static final String LABEL = "cpu.share";

  private long cpu0;
  private long wall0;

  @Override
  public String getDescription() {
    return "process CPU time / wall time of each iteration (cores)";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpu0 = cpuNanos();
    wall0 = System.nanoTime();
  }

  @Override
  @SuppressWarnings("rawtypes") // JMH's signature
  public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
      IterationResult result) {
    double share = (cpuNanos() - cpu0) / (double) Math.max(1, System.nanoTime() - wall0);
    return List.of(new ScalarResult(LABEL, share, "cores", AggregationPolicy.AVG));
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
