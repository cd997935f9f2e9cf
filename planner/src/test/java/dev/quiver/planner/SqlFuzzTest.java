package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.sql.SqlLimits;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL fuzzer against the planner: every input of {@link SqlFuzzer} (and every case of {@code
 * fuzz-regressions.sql}) is prepared and executed over small tables ({@code t}, {@code bools} and TPC-H at a
 * tiny scale factor), each on a thread of its own with a time bound. It must succeed or fail with a {@link
 * QuiverException} that is not INTERNAL and whose message is a message: no other throwable
 * (NullPointerException, ClassCastException, StackOverflowError, ...), no hang, no buffer left allocated. A
 * query's memory limit ({@link OutOfMemoryException}: RESOURCE_EXHAUSTED at the server) is an answer too.
 *
 * <p>{@code -Dquiver.fuzz.seed=N -Dquiver.fuzz.inputs=M} runs another sequence; a failure prints the seed, the
 * input's index and the input, which then goes into {@code fuzz-regressions.sql}.
 */
class SqlFuzzTest {
  static final long SEED = Long.getLong("quiver.fuzz.seed", 20_240_611L);
  static final int INPUTS = Integer.getInteger("quiver.fuzz.inputs", 3_000);
  /** An input still running after this long is a hang. */
  static final long HANG_MS = 30_000;
  /** Queries are stopped through their cancellation (TIMED_OUT, a clean answer) after this long. */
  static final long RUN_MS = 1_000;
  /** A lower parse cost than the server's: a chain of subqueries nested at most 4 deep in expressions. */
  static final long PARSE_COST = 1 + 5 + 25 + 125 + 625;
  static final long QUERY_MEMORY = 256L << 20;
  static final double TPCH_SCALE = 0.0005;
  static final int WORKERS = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));

  @TempDir
  static Path dir;
  static QueryEngine engine;
  static BufferAllocator root;

  @BeforeAll
  static void setUp() throws Exception {
    engine = new QueryEngine(SqlFuzzer.writeTables(dir, TPCH_SCALE), QuerySettings.DEFAULT,
        SqlLimits.DEFAULT.withMaxParseCost(PARSE_COST));
    root = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    root.close(); // a query that leaked a buffer fails here too
  }

  /** What one input did, in how many milliseconds. */
  record Outcome(String sql, ErrorCode code, String message, Throwable failure, long millis) {}

  @Test
  void fuzzedStatementsFailCleanlyOrRun() throws InterruptedException {
    SqlFuzzer fuzzer = SqlFuzzer.standard();
    long start = System.nanoTime();
    List<Outcome> outcomes = runAll(INPUTS, i -> fuzzer.generate(SEED, i));
    List<String> failures = new ArrayList<>();
    Map<ErrorCode, Integer> codes = new EnumMap<>(ErrorCode.class);
    int ok = 0;
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome o = outcomes.get(i);
      if (o.failure() != null) failures.add("input " + i + " of seed " + SEED + ": " + describe(o));
      else if (o.code() == null) ok++;
      else codes.merge(o.code(), 1, Integer::sum);
    }
    System.out.printf("SqlFuzzTest: %d inputs (seed %d) on %d threads in %.1f s: %d ran, errors by code %s%n", INPUTS,
        SEED, WORKERS, (System.nanoTime() - start) / 1e9, ok, codes);
    outcomes.stream().sorted(Comparator.comparingLong(Outcome::millis).reversed()).limit(10).forEach(o ->
        System.out.println("  " + o.millis() + " ms  " + printable(cut(o.sql(), 150)) + " -> " + o.code() + " "
            + cut(String.valueOf(o.message()), 150)));
    failures.forEach(f -> System.out.println("FAILURE " + f));
    assertThat(failures).as("seed %d", SEED).isEmpty();
  }

  @Test
  void everyRegressionCaseFailsCleanlyOrRuns() throws InterruptedException {
    List<String> cases = SqlFuzzer.regressions();
    List<Outcome> outcomes = runAll(cases.size(), cases::get);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < outcomes.size(); i++) {
      if (outcomes.get(i).failure() != null) failures.add("regression case " + (i + 1) + ": " + describe(outcomes.get(i)));
    }
    assertThat(cases).hasSizeGreaterThan(10);
    assertThat(failures).isEmpty();
  }

  /**
   * Runs inputs {@code 0..n-1} on {@link #WORKERS} threads (with the default stack size, as the server's
   * request threads have). An input running longer than {@link #HANG_MS} is a hang: its thread is abandoned.
   */
  static List<Outcome> runAll(int n, java.util.function.IntFunction<String> input) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(WORKERS, r -> {
      Thread t = new Thread(r, "fuzz");
      t.setDaemon(true);
      return t;
    });
    AtomicLongArray started = new AtomicLongArray(n);
    List<Future<Outcome>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int index = i;
      futures.add(pool.submit(() -> {
        started.set(index, System.nanoTime());
        return run(input.apply(index));
      }));
    }
    List<Outcome> outcomes = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        Future<Outcome> f = futures.get(i);
        while (true) {
          try {
            outcomes.add(f.get(100, TimeUnit.MILLISECONDS));
            break;
          } catch (TimeoutException notYet) {
            long began = started.get(i);
            if (began != 0 && System.nanoTime() - began > HANG_MS * 1_000_000L) {
              f.cancel(true);
              outcomes.add(new Outcome(input.apply(i), null, null, notYet, HANG_MS));
              break;
            }
          } catch (ExecutionException e) {
            outcomes.add(new Outcome(input.apply(i), null, null, e.getCause(), 0));
            break;
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return outcomes;
  }

  /** Prepares and runs {@code sql} in an allocator of its own, draining the result; times the whole. */
  static Outcome run(String sql) {
    long t0 = System.nanoTime();
    BufferAllocator a = root.newChildAllocator("fuzz", 0, QUERY_MEMORY);
    Outcome o = runIn(sql, a);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    try {
      a.close(); // a buffer the query left behind, also on an error path, fails here
    } catch (IllegalStateException leak) {
      return new Outcome(sql, o.code(), o.message(), leak, ms);
    }
    return new Outcome(sql, o.code(), o.message(), o.failure(), ms);
  }

  private static Outcome runIn(String sql, BufferAllocator a) {
    try {
      long deadline = System.nanoTime() + RUN_MS * 1_000_000L;
      Cancellation stop = () -> {
        if (System.nanoTime() > deadline) throw new QuiverException(ErrorCode.TIMED_OUT, "fuzz time bound");
      };
      PreparedQuery q = engine.prepare(sql, a);
      try (QueryExecution ex = engine.execute(q, a, stop)) {
        VectorSchemaRoot b;
        while ((b = ex.next()) != null) {
          b.close();
          stop.check();
        }
      }
      return new Outcome(sql, null, null, null, 0);
    } catch (QuiverException e) {
      String problem = problem(e.code(), e.getMessage());
      return new Outcome(sql, e.code(), e.getMessage(), problem == null ? null : new AssertionError(problem, e), 0);
    } catch (OutOfMemoryException e) {
      return new Outcome(sql, ErrorCode.RESOURCE_EXHAUSTED, e.getMessage(), null, 0);
    } catch (Throwable t) {
      return new Outcome(sql, null, null, t, 0);
    }
  }

  /** Why an error with this code and message is not a proper answer, or null when it is one. */
  static String problem(ErrorCode code, String message) {
    if (code == ErrorCode.INTERNAL) return "INTERNAL error: " + message;
    return SqlFuzzer.messageProblem(message);
  }

  static String describe(Outcome o) {
    StringBuilder sb = new StringBuilder(printable(cut(o.sql(), 400))).append("\n    -> ");
    if (o.failure() instanceof TimeoutException) return sb.append("no answer after ").append(HANG_MS).append(" ms").toString();
    sb.append(o.failure());
    for (StackTraceElement e : o.failure().getStackTrace()) {
      if (e.getClassName().startsWith("dev.quiver")) {
        sb.append("\n       at ").append(e);
        break;
      }
    }
    return sb.toString();
  }

  static String cut(String s, int n) {
    return s.length() > n ? s.substring(0, n) + "… (" + s.length() + " chars)" : s;
  }

  /** {@code s} with control characters and line separators escaped, for a one-line report. */
  static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    s.codePoints().forEach(c -> {
      if (c < 0x20 || c == 0x2028 || c == 0x2029 || c == 0x85 || Character.isSurrogate((char) c)) {
        sb.append(String.format("\\u%04x", c));
      } else {
        sb.appendCodePoint(c);
      }
    });
    return sb.toString();
  }
}
