package dev.quiver.bench;

import java.util.Arrays;

/**
 * How the benchmarks time one query on one connection: the <em>first run</em> (the query's first execution
 * on this server: planning and kernels may still run interpreted) reported apart from the <em>steady
 * state</em>, reached by warming up until the median stops moving — runs in groups of {@value #GROUP}
 * until a group's median is no longer {@value #IMPROVEMENT_PERCENT}% faster than the previous group's (at
 * most {@value #MAX_WARM_UP} warm-up runs) — and then timing {@code runs} more.
 */
final class Timing {
  static final int GROUP = 3;
  static final int IMPROVEMENT_PERCENT = 5;
  static final int MAX_WARM_UP = 15;

  /** One query's times in ms: its first run, the number of warm-up runs after it, and the sorted steady runs. */
  record Measured(double firstMs, int warmUpRuns, double[] steadyMs) {
    double median() {
      return steadyMs[steadyMs.length / 2];
    }

    double min() {
      return steadyMs[0];
    }

    /** The first run over the steady median. */
    double firstOverSteady() {
      return firstMs / median();
    }
  }

  /** One execution of the query, every row read. */
  @FunctionalInterface
  interface Run {
    void run() throws Exception;
  }

  private Timing() {}

  static Measured measure(Run query, int runs) throws Exception {
    return measure(query, runs, MAX_WARM_UP);
  }

  /** As {@link #measure(Run, int)} with at most {@code maxWarmUp} warm-up runs (0: none, for a quick check). */
  static Measured measure(Run query, int runs, int maxWarmUp) throws Exception {
    double first = once(query);
    int warm = 0;
    double previous = Double.MAX_VALUE;
    while (warm < maxWarmUp) {
      double[] group = new double[GROUP];
      for (int i = 0; i < GROUP; i++) group[i] = once(query);
      warm += GROUP;
      Arrays.sort(group);
      double median = group[GROUP / 2];
      if (median > previous * (1 - IMPROVEMENT_PERCENT / 100.0)) break;
      previous = median;
    }
    double[] ms = new double[runs];
    for (int i = 0; i < runs; i++) ms[i] = once(query);
    Arrays.sort(ms);
    return new Measured(first, warm, ms);
  }

  static double once(Run query) throws Exception {
    long t0 = System.nanoTime();
    query.run();
    return (System.nanoTime() - t0) / 1e6;
  }
}
