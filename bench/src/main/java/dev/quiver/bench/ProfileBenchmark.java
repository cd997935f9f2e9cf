package dev.quiver.bench;

import dev.quiver.server.QuiverServer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a full-scan query's CPU time goes: the query runs in a server in this process, read through JDBC, warmed up
 * to its steady state, then {@code runs} more times under a JFR method-sampling recording (every
 * {@value #SAMPLE_MS} ms). Each sample is charged to the first frame, from the top of its stack, that belongs to a
 * category (decompress, page read, decode, filter, expressions, aggregate, transport, planning); the process's CPU
 * time that Java samples do not cover — native code (zstd-jni decompression, system calls), the JIT and the
 * garbage collector — is reported beside it, with the JIT and GC parts measured by their MXBeans.
 */
public final class ProfileBenchmark {
  static final int SAMPLE_MS = 10;
  static final String[] CATEGORIES = {"decompress", "page read", "decode", "filter", "expressions", "aggregate",
      "transport", "planning", "other Java"};

  private ProfileBenchmark() {}

  public static void main(String[] args) throws Exception {
    double sf = 1;
    String layout = "shuffled";
    int runs = 20;
    Path out = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sf" -> sf = Double.parseDouble(args[++i]);
        case "--layout" -> layout = args[++i];
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Path data = PruningBenchmark.ensureFiles(sf, List.of(layout));
    String table = "lineitem_" + layout;
    Map<String, String> queries = new LinkedHashMap<>();
    for (PruningBenchmark.Query q : PruningBenchmark.queries(sf)) {
      if (q.name().startsWith("Q6") || q.name().startsWith("Q1") || q.name().startsWith("control")) {
        queries.put(q.name(), String.format(Locale.ROOT, q.sql(), table, q.where()));
      }
    }
    queries.put("TPC-H Q1 (grouped)", "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), "
        + "sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), "
        + "avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM " + table
        + " WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus");
    StringBuilder md = new StringBuilder("# Where the time goes (full-scan queries)\n\n")
        .append("TPC-H lineitem SF ").append(sf).append(", ").append(layout).append(" layout (the pruning benchmark's ")
        .append("file), a server in the benchmark's process read through the Flight SQL JDBC driver (so `transport` ")
        .append("holds both ends), each query warmed up to its steady state and then run ").append(runs)
        .append(" times under JFR method sampling every ").append(SAMPLE_MS).append(" ms. CPU ms per query: Java ")
        .append("samples × period, charged to the innermost frame of a category; `native, JIT, GC` = the process's ")
        .append("CPU time minus the Java samples (native code is zstd-jni decompression and system calls; JIT and GC ")
        .append("measured apart). `cores` = CPU time / wall time. Made by `java -jar bench/target/quiver-bench.jar ")
        .append("profile`.\n\n| query | wall ms | CPU ms | cores |");
    for (String c : CATEGORIES) md.append(' ').append(c).append(" |");
    md.append(" native, JIT, GC | of which JIT | of which GC |\n|---|").append("---:|".repeat(CATEGORIES.length + 6))
        .append('\n');
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    // one recording for the whole run, started before any query: starting JFR retransforms classes and throws
    // away compiled code, which made a recording started after the warm-up measure the JIT, not the query
    try (Recording r = new Recording();
        QuiverServer server = QuiverServer.start(data.toString(), "127.0.0.1", 0, 8L << 30);
        Connection c = DriverManager.getConnection(server.jdbcUrl())) {
      r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(SAMPLE_MS));
      r.start();
      for (Map.Entry<String, String> q : queries.entrySet()) {
        Timing.measure(() -> PruningBenchmark.first(c, q.getValue()), 3);
        Path jfr = Files.createTempFile("quiver-profile", ".jfr");
        long jit0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        long gc0 = gcMillis();
        java.time.Instant from = java.time.Instant.now();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < runs; i++) PruningBenchmark.first(c, q.getValue());
        long wall = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        java.time.Instant to = java.time.Instant.now();
        r.dump(jfr);
        double jit = ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jit0;
        double gc = gcMillis() - gc0;
        Map<String, Long> samples = classify(jfr, from, to);
        Files.deleteIfExists(jfr);
        double perRunCpu = cpu / 1e6 / runs;
        double javaMs = 0;
        StringBuilder cells = new StringBuilder();
        for (String cat : CATEGORIES) {
          double ms = samples.getOrDefault(cat, 0L) * (double) SAMPLE_MS / runs;
          javaMs += ms;
          cells.append(String.format(Locale.ROOT, " %.0f |", ms));
        }
        String line = String.format(Locale.ROOT, "| %s | %.1f | %.0f | %.2f |%s %.0f | %.0f | %.0f |", q.getKey(),
            wall / 1e6 / runs, perRunCpu, cpu / (double) wall, cells, Math.max(0, perRunCpu - javaMs), jit / runs,
            gc / runs);
        System.out.println(line);
        md.append(line).append('\n');
      }
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("profile.md"), md.toString());
    System.out.println("wrote " + out.resolve("profile.md"));
  }

  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) ms += Math.max(0, b.getCollectionTime());
    return ms;
  }

  /** Sample counts per category, of the samples taken between {@code from} and {@code to}. */
  static Map<String, Long> classify(Path jfr, java.time.Instant from, java.time.Instant to) throws java.io.IOException {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) continue;
      if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to)) continue;
      String category = "other Java";
      for (RecordedFrame f : e.getStackTrace().getFrames()) {
        if (f.getMethod() == null || f.getMethod().getType() == null) continue;
        String c = category(f.getMethod().getType().getName(), f.getMethod().getName());
        if (c != null) {
          category = c;
          break;
        }
      }
      counts.merge(category, 1L, Long::sum);
    }
    return counts;
  }

  /** The category of a frame, or null to look further down the stack. */
  static String category(String type, String method) {
    if (type.startsWith("com.github.luben.zstd") || type.startsWith("org.xerial.snappy")
        || type.startsWith("io.airlift.compress") || type.contains("Decompress") || type.contains("Snappy")
        || type.contains("Zstd") || type.endsWith("PageCodecs") || type.startsWith("org.apache.parquet.hadoop.codec")) {
      return "decompress";
    }
    if (type.startsWith("org.apache.parquet.hadoop.ParquetFileReader") || type.startsWith("org.apache.hadoop.fs")
        || type.startsWith("org.apache.parquet.format") || type.startsWith("shaded.parquet")
        || type.startsWith("org.apache.parquet.bytes") || type.startsWith("sun.nio.ch.FileChannel")) {
      return "page read";
    }
    if (type.endsWith("ScanFilter") || type.endsWith("FilterExec")) return "filter";
    if (type.startsWith("dev.quiver.scan.read") || type.startsWith("org.apache.parquet.column")) return "decode";
    if (type.endsWith("AggregateExec") || type.contains("Accumulator") || type.endsWith("GroupTable")
        || type.endsWith("LongIntMap") || type.endsWith(".Keys") || type.endsWith("PartialAggregate")) {
      return "aggregate";
    }
    // the kernels are charged to the operator that runs them (a filter's IN, a projection's arithmetic)
    if (type.startsWith("dev.quiver.planner.kernel") || type.startsWith("dev.quiver.planner.expr")) return null;
    if (type.endsWith("ProjectExec") || type.endsWith("ScanPipeline")) return "expressions";
    if (type.startsWith("org.apache.arrow.flight") || type.startsWith("io.grpc") || type.startsWith("io.netty")
        || type.startsWith("org.apache.arrow.driver") || type.startsWith("org.apache.arrow.vector.ipc")
        || type.startsWith("dev.quiver.server") || type.startsWith("org.apache.calcite.avatica")) {
      return "transport";
    }
    if (type.startsWith("dev.quiver.planner.sql") || type.startsWith("dev.quiver.planner.optimizer")
        || type.startsWith("net.sf.jsqlparser")) {
      return "planning";
    }
    return null;
  }
}
