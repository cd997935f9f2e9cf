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
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (floor --servers label=host:port[,…] [--rounds 200] [--warm 20] [--query SQL] [--out DIR])");
      }
    }
    if (labels.isEmpty()) throw new IllegalArgumentException("give --servers label=host:port[,label=host:port…]");
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
        + "warm-up queries per server and client (ms):%n%n| server | JDBC median | JDBC min | Flight median | Flight min |%n"
        + "|---|---|---|---|---|%n", sql, rounds, warm));
    for (int k = 0; k < n; k++) {
      Arrays.sort(jdbc[k]);
      Arrays.sort(flight[k]);
      String line = String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f |", labels.get(k), median(jdbc[k]), jdbc[k][0],
          median(flight[k]), flight[k][0]);
      md.append(line).append('\n');
      System.out.println(line);
    }
    md.append("\nJDBC: CreatePreparedStatement, GetFlightInfo, DoGet, ClosePreparedStatement; Flight: GetFlightInfo "
        + "(CommandStatementQuery) and DoGet through FlightSqlClient, over loopback gRPC.\n");
    if (out != null) {
      Files.createDirectories(out);
      Files.writeString(out.resolve("floor.md"), md.toString());
      System.out.println("wrote " + out.resolve("floor.md"));
    }
  }

  private static double median(double[] sorted) {
    return sorted[sorted.length / 2];
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
