package dev.quiver.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The per-query floor of running servers side by side: {@code SELECT 1} through the JDBC driver (four calls:
 * CreatePreparedStatement, GetFlightInfo, DoGet, ClosePreparedStatement) and through a plain Flight SQL client
 * (GetFlightInfo of a CommandStatementQuery, then DoGet, as ADBC and pyarrow send it), in interleaved rounds so
 * that the machine's load falls on every server alike.
 *
 * <p>{@code floor --servers label=host:port[,label=host:port…] [--rounds 200] [--warm 20] [--query SQL] [--out DIR]}
 */
final class FloorBenchmark {
  private FloorBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> labels = new ArrayList<>();
    List<String> hosts = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    int rounds = 200;
    int warm = 20;
    String sql = "SELECT 1";
    Path out = null;
    boolean baseline = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--servers" -> {
          for (String s : args[++i].split(",")) {
            int eq = s.indexOf('=');
            int colon = s.lastIndexOf(':');
            if (eq <= 0 || colon < eq) throw new IllegalArgumentException("--servers takes label=host:port[,…], not " + s);
            labels.add(s.substring(0, eq));
            hosts.add(s.substring(eq + 1, colon));
            ports.add(Integer.parseInt(s.substring(colon + 1)));
          }
        }
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--warm" -> warm = Integer.parseInt(args[++i]);
        case "--query" -> sql = args[++i];
        case "--out" -> out = Path.of(args[++i]);
        case "--baseline" -> baseline = true;
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (floor --servers label=host:port[,…] [--baseline] [--rounds 200] [--warm 20] [--query SQL] [--out DIR])");
      }
    }
    if (labels.isEmpty() && !baseline) {
      throw new IllegalArgumentException("give --servers label=host:port[,label=host:port…] and/or --baseline");
    }
    Process noOp = null;
    if (baseline) { // the no-op Flight SQL server, in a process of its own as the servers measured are
      noOp = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
          NoOpFlightSqlServer.class.getName(), "0").redirectErrorStream(true).start();
      String line = new java.io.BufferedReader(new java.io.InputStreamReader(noOp.getInputStream())).readLine();
      if (line == null || !line.startsWith("listening ")) {
        noOp.destroyForcibly();
        throw new IllegalStateException("the no-op server did not start: " + line);
      }
      labels.add(BASELINE);
      hosts.add("127.0.0.1");
      ports.add(Integer.parseInt(line.substring("listening ".length()).trim()));
    }
    try {
      run(labels, hosts, ports, rounds, warm, sql, out);
    } finally {
      if (noOp != null) noOp.destroy();
    }
  }

  /** The label of the no-op server's rows. */
  static final String BASELINE = "no-op Flight SQL server";

  private static void run(List<String> labels, List<String> hosts, List<Integer> ports, int rounds, int warm,
      String sql, Path out) throws Exception {
    int n = labels.size();
    double[][] jdbc = new double[n][rounds];
    double[][] flight = new double[n][rounds];
    List<Connection> connections = new ArrayList<>();
    List<FlightSqlClient> clients = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      try {
        for (int k = 0; k < n; k++) {
          connections.add(DriverManager.getConnection("jdbc:arrow-flight-sql://" + hosts.get(k) + ":" + ports.get(k)
              + "/?useEncryption=false"));
          clients.add(new FlightSqlClient(FlightClient.builder(allocator,
              Location.forGrpcInsecure(hosts.get(k), ports.get(k))).build()));
        }
        for (int k = 0; k < n; k++) {
          for (int w = 0; w < warm; w++) {
            jdbc(connections.get(k), sql);
            flight(clients.get(k), sql);
          }
        }
        for (int r = 0; r < rounds; r++) {
          for (int k = 0; k < n; k++) {
            long t0 = System.nanoTime();
            jdbc(connections.get(k), sql);
            long t1 = System.nanoTime();
            flight(clients.get(k), sql);
            long t2 = System.nanoTime();
            jdbc[k][r] = (t1 - t0) / 1e6;
            flight[k][r] = (t2 - t1) / 1e6;
          }
        }
      } finally {
        for (Connection c : connections) c.close();
        for (FlightSqlClient c : clients) c.close();
      }
    }
    StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "Per-query floor, `%s`, %d interleaved rounds after %d "
        + "warm-up queries per server and client (ms):%n%n| server | JDBC median | JDBC p99 | JDBC min | Flight median "
        + "| Flight p99 | Flight min |%n|---|---|---|---|---|---|---|%n", sql, rounds, warm));
    for (int k = 0; k < n; k++) {
      Arrays.sort(jdbc[k]);
      Arrays.sort(flight[k]);
      String line = String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |", labels.get(k),
          median(jdbc[k]), p99(jdbc[k]), jdbc[k][0], median(flight[k]), p99(flight[k]), flight[k][0]);
      md.append(line).append('\n');
      System.out.println(line);
    }
    int base = labels.indexOf(BASELINE);
    if (base >= 0 && n > 1) {
      md.append(String.format(Locale.ROOT, "%n| server / no-op server | JDBC median | JDBC p99 | Flight median | Flight p99 |%n"
          + "|---|---|---|---|---|%n"));
      for (int k = 0; k < n; k++) {
        if (k == base) continue;
        String line = String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f |", labels.get(k),
            median(jdbc[k]) / median(jdbc[base]), p99(jdbc[k]) / p99(jdbc[base]),
            median(flight[k]) / median(flight[base]), p99(flight[k]) / p99(flight[base]));
        md.append(line).append('\n');
        System.out.println(line);
      }
    }
    md.append("\nJDBC: CreatePreparedStatement, GetFlightInfo, DoGet, ClosePreparedStatement; Flight: GetFlightInfo "
        + "(CommandStatementQuery) and DoGet through FlightSqlClient, over loopback gRPC. The no-op Flight SQL server "
        + "(`bench floor --baseline`, `NoOpFlightSqlServer`) answers every statement with one constant row and does "
        + "nothing else, in a process of its own.\n");
    if (out != null) {
      Files.createDirectories(out);
      Files.writeString(out.resolve("floor.md"), md.toString());
      System.out.println("wrote " + out.resolve("floor.md"));
    }
  }

  private static double median(double[] sorted) {
    return sorted[sorted.length / 2];
  }

  /** The 99th percentile (nearest rank). */
  private static double p99(double[] sorted) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(0.99 * sorted.length) - 1)];
  }

  private static void jdbc(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        rs.getObject(1);
      }
    }
  }

  private static void flight(FlightSqlClient client, String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (s.next()) {
        // drained
      }
    }
  }
}
