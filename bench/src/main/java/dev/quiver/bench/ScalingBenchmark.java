package dev.quiver.bench;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How time and memory grow with the data: the pruning benchmark's queries and layouts at two or more scale
 * factors (default SF 1 and 10, natural layout — the only one written without holding the table in memory),
 * each served by the server jar as a user starts it ({@code java -jar quiver-server.jar --server-memory M}: the
 * launcher's child JVM, its heap and direct memory bounded from {@code M}), read through JDBC, next to DuckDB (2
 * threads) in this process on the same files. Reports steady-state medians per scale factor, the growth from the
 * first scale factor, and the server process's peak resident set ({@code VmHWM}) against its limits.
 */
public final class ScalingBenchmark {
  private ScalingBenchmark() {}

  public static void main(String[] args) throws Exception {
    double[] sfs = {1, 10};
    List<String> layouts = List.of("natural");
    int runs = 3;
    String serverJar = "server/target/quiver-server.jar";
    String serverMemory = "4g";
    Path out = Path.of("bench/results");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sfs" -> sfs = Arrays.stream(args[++i].split(",")).mapToDouble(Double::parseDouble).toArray();
        case "--layouts" -> layouts = List.of(args[++i].split(","));
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--server-jar" -> serverJar = args[++i];
        case "--server-memory" -> serverMemory = args[++i];
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    // key: layout + query name; value: per scale factor {quiver median, duckdb median}
    Map<String, double[][]> times = new LinkedHashMap<>();
    List<String> memory = new ArrayList<>();
    for (int f = 0; f < sfs.length; f++) {
      double sf = sfs[f];
      Path data = PruningBenchmark.ensureFiles(sf, layouts);
      long fileBytes = 0;
      for (String layout : layouts) fileBytes += Files.size(data.resolve("lineitem_" + layout + ".parquet"));
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Process server = new ProcessBuilder("java", "-jar", serverJar, "--port", String.valueOf(port), "--data",
          data.toString(), "--server-memory", serverMemory, "--warm-up", "0", "--no-console")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      try {
        String url = "jdbc:arrow-flight-sql://127.0.0.1:" + port + "/?useEncryption=false";
        try (Connection quiver = connect(url, server); Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
          try (Statement s = duck.createStatement()) {
            s.execute("SET threads = 2");
            for (String layout : layouts) {
              s.execute("CREATE VIEW lineitem_" + layout + " AS SELECT * FROM read_parquet('"
                  + data.resolve("lineitem_" + layout + ".parquet") + "')");
            }
          }
          for (String layout : layouts) {
            for (PruningBenchmark.Query q : PruningBenchmark.queries(sf)) {
              String sql = String.format(Locale.ROOT, q.sql(), "lineitem_" + layout, q.where());
              double qm = Timing.measure(() -> PruningBenchmark.first(quiver, sql), runs).median();
              double dm = Timing.measure(() -> PruningBenchmark.first(duck, sql), runs).median();
              int count = sfs.length;
              times.computeIfAbsent(layout + " | " + q.name(), k -> new double[count][])[f] = new double[] {qm, dm};
              System.out.printf(Locale.ROOT, "SF %-5s %-9s %-22s quiver %9.1f ms  duckdb %9.1f ms%n", sf, layout,
                  q.name(), qm, dm);
            }
          }
        }
        long[] rss = peakRss(server);
        memory.add(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f |", sf, fileBytes / 1e6, rss[0] / 1048576.0,
            rss[1] / 1048576.0));
      } finally {
        server.descendants().forEach(ProcessHandle::destroy);
        server.destroy();
        server.waitFor();
      }
    }
    StringBuilder md = new StringBuilder("# Scaling: SF ");
    for (int f = 0; f < sfs.length; f++) md.append(f == 0 ? "" : " → ").append(sfs[f]);
    md.append("\n\nThe pruning benchmark's queries on lineitem (").append(String.join(", ", layouts))
        .append(" layout), each scale factor served by a fresh `java -jar quiver-server.jar --server-memory ")
        .append(serverMemory).append("` (the launcher's child JVM: heap and direct memory each bounded to ")
        .append("server memory + 256 MiB) and read through JDBC; DuckDB (2 threads) in the benchmark's process on the ")
        .append("same files. Steady-state medians (see `Timing`), ").append(runs).append(" runs, ms; growth = time at ")
        .append("the last scale factor / time at the first.\n\n| layout | query |");
    for (double sf : sfs) md.append(" Quiver SF ").append(sf).append(" |");
    md.append(" Quiver growth |");
    for (double sf : sfs) md.append(" DuckDB SF ").append(sf).append(" |");
    md.append(" DuckDB growth |\n|---|---|").append("---:|".repeat(2 * sfs.length + 2)).append('\n');
    int last = sfs.length - 1;
    for (Map.Entry<String, double[][]> e : times.entrySet()) {
      double[][] t = e.getValue();
      md.append("| ").append(e.getKey()).append(" |");
      for (double[] perSf : t) md.append(String.format(Locale.ROOT, " %.1f |", perSf[0]));
      md.append(String.format(Locale.ROOT, " %.2f× |", t[last][0] / t[0][0]));
      for (double[] perSf : t) md.append(String.format(Locale.ROOT, " %.1f |", perSf[1]));
      md.append(String.format(Locale.ROOT, " %.2f× |%n", t[last][1] / t[0][1]));
    }
    md.append("\nServer process memory (the child JVM that runs the server; its `-Xmx` and `-XX:MaxDirectMemorySize` ")
        .append("are each `--server-memory` + 256 MiB):\n\n| SF | file MB | peak RSS MiB (VmHWM) | RSS at the end MiB |\n")
        .append("|---|---:|---:|---:|\n");
    for (String m : memory) md.append(m).append('\n');
    Files.createDirectories(out);
    Files.writeString(out.resolve("scaling.md"), md.toString());
    System.out.println(md);
    System.out.println("wrote " + out.resolve("scaling.md"));
  }

  private static Connection connect(String url, Process server) throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (true) {
      try {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
          s.executeQuery("SELECT 1").close();
        }
        return c;
      } catch (SQLException e) {
        if (!server.isAlive() || System.nanoTime() > deadline) throw new IllegalStateException("server did not start", e);
        Thread.sleep(200);
      }
    }
  }

  /** The peak and current resident set in bytes of the process that runs the server (the launcher's child). */
  private static long[] peakRss(Process launcher) throws java.io.IOException {
    long[] best = {0, 0};
    List<ProcessHandle> all = new ArrayList<>(launcher.descendants().toList());
    all.add(launcher.toHandle());
    for (ProcessHandle h : all) {
      Path status = Path.of("/proc", String.valueOf(h.pid()), "status");
      if (!Files.exists(status)) continue;
      long hwm = 0;
      long rss = 0;
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith("VmHWM:")) hwm = kib(line);
        if (line.startsWith("VmRSS:")) rss = kib(line);
      }
      if (hwm > best[0]) best = new long[] {hwm, rss};
    }
    return best;
  }

  private static long kib(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
  }
}
