package dev.quiver.server;

import dev.quiver.sample.SampleData;
import java.nio.file.Path;

/** {@code java -jar quiver-server.jar [--data DIR] [--host HOST] [--port PORT] [--query-memory BYTES]}. */
public final class Main {
  /** SELECT 1 executions a started server sends itself to warm its per-query path ({@code --warm-up N}). */
  static final int DEFAULT_WARM_UP = 2000;

  private Main() {}

  public static void main(String[] args) throws Exception {
    try {
      serve(args);
    } catch (NumberFormatException e) { // a port, count or duration that is no number
      System.err.println("quiver: not a number: " + e.getMessage().replace("For input string: ", ""));
      System.exit(2);
    } catch (java.io.IOException | dev.quiver.common.QuiverException e) { // a users file that is missing or wrong
      System.err.println("quiver: " + (e instanceof java.nio.file.NoSuchFileException ? "no such file: " : "")
          + e.getMessage());
      System.exit(2);
    }
  }

  private static void serve(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("sql")) {
      int quiet = Launcher.relaunchQuietly(args);
      System.exit(quiet >= 0 ? quiet : Shell.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
      return;
    }
    Logging.serverProcess();
    AllocatorTuning.apply();
    if (args.length > 0 && args[0].equals("hash-password")) {
      hashPassword(args);
      return;
    }
    String data = null;
    Users users = Users.none();
    java.nio.file.Path tlsCert = null;
    java.nio.file.Path tlsKey = null;
    java.nio.file.Path tlsClientCa = null;
    String host = "127.0.0.1";
    int port = 31337;
    long memory = QuiverServer.DEFAULT_QUERY_MEMORY;
    long serverMemory = QuiverServer.defaultServerMemory();
    int maxQueriesPerUser = ServerConfig.DEFAULT_MAX_QUERIES_PER_USER;
    long queueTimeoutMs = ServerConfig.DEFAULT_QUEUE_TIMEOUT_MS;
    int maxQueuedPerUser = ServerConfig.DEFAULT_MAX_QUEUED_PER_USER;
    long maxStatementBytes = dev.quiver.planner.sql.SqlLimits.DEFAULT_MAX_STATEMENT_BYTES;
    boolean insecure = false;
    String httpHost = ServerConfig.DEFAULT_HTTP_HOST;
    int httpPort = ServerConfig.DEFAULT_HTTP_PORT;
    int warmUp = DEFAULT_WARM_UP;
    dev.quiver.planner.QuerySettings settings = dev.quiver.planner.QuerySettings.DEFAULT;
    int maxEndpoints = DEFAULT_MAX_ENDPOINTS;
    java.util.List<org.apache.arrow.flight.Location> peers = java.util.List.of();
    org.apache.arrow.flight.Location advertise = null;
    byte[] tokenSecret = null;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      try {
        switch (args[i]) {
          case "--data" -> data = value(args, ++i);
          case "--host" -> host = value(args, ++i);
          case "--port" -> port = Integer.parseInt(value(args, ++i));
          case "--query-memory" -> memory = bytes(value(args, ++i));
          case "--server-memory" -> serverMemory = bytes(value(args, ++i));
          case "--spill-dir" -> dev.quiver.planner.SpillDirectory.set(java.nio.file.Path.of(value(args, ++i)));
          case "--metadata-cache" -> dev.quiver.scan.table.Catalog.defaultMetadataCache(bytes(value(args, ++i)));
          case "--max-queries-per-user" -> maxQueriesPerUser = Integer.parseInt(value(args, ++i));
          case "--query-queue-timeout-ms" -> queueTimeoutMs = Long.parseLong(value(args, ++i));
          case "--max-queued-per-user" -> maxQueuedPerUser = Integer.parseInt(value(args, ++i));
          case "--max-statement-bytes" -> maxStatementBytes = bytes(value(args, ++i));
          case "--insecure" -> insecure = true;
          case "--max-endpoints" -> maxEndpoints = Integer.parseInt(value(args, ++i));
          case "--peers" -> peers = locations(value(args, ++i));
          case "--advertise" -> advertise = locations(value(args, ++i)).get(0);
          case "--token-secret-file" -> tokenSecret = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(value(args, ++i)));
          case "--http-port" -> httpPort = Integer.parseInt(value(args, ++i));
          case "--http-host" -> httpHost = value(args, ++i);
          case "--no-console" -> httpPort = -1;
          case "--warm-up" -> warmUp = Integer.parseInt(value(args, ++i));
          case "--no-simplify" -> settings = settings.withSimplify(false);
          case "--statement-timeout-ms" -> settings = settings.withStatementTimeoutMs(Long.parseLong(value(args, ++i)));
          case "--users" -> users.load(java.nio.file.Path.of(value(args, ++i)));
          case "--user" -> {
            String spec = value(args, ++i);
            int colon = spec.indexOf(':');
            if (colon <= 0) {
              System.err.println("quiver: --user takes NAME:PASSWORD");
              System.exit(2);
            }
            users.with(spec.substring(0, colon), spec.substring(colon + 1));
          }
          case "--tls-cert" -> tlsCert = java.nio.file.Path.of(value(args, ++i));
          case "--tls-client-ca" -> tlsClientCa = java.nio.file.Path.of(value(args, ++i));
          case "--tls-key" -> tlsKey = java.nio.file.Path.of(value(args, ++i));
          case "-h", "--help" -> {
            shortUsage();
            return;
          }
          case "--help-all" -> {
            usage();
            return;
          }
          default -> {
            System.err.println("quiver: unknown option " + args[i] + " (--help lists the options)");
            System.exit(2);
          }
        }
      } catch (NumberFormatException e) { // a port, count or duration that is no number
        System.err.println("quiver: " + option + " takes a number, not '" + args[i] + "'");
        System.exit(2);
      }
    }
    if (serverMemory <= 0 || memory <= 0 || maxQueriesPerUser < 1 || queueTimeoutMs < 0 || maxStatementBytes <= 0
        || maxQueuedPerUser < 0 || warmUp < 0) {
      System.err.println("quiver: --query-memory, --server-memory and --max-statement-bytes must be positive, "
          + "--max-queries-per-user at least 1, --query-queue-timeout-ms, --max-queued-per-user and --warm-up at least 0");
      System.exit(2);
    }
    if ((tlsCert == null) != (tlsKey == null)) {
      System.err.println("quiver: --tls-cert and --tls-key go together");
      System.exit(2);
    }
    if (!isLoopback(host) && users.isEmpty() && !insecure) {
      System.err.println("quiver: refusing to listen on " + host + " without authentication: give --users FILE or --user "
          + "NAME:PASSWORD, or pass --insecure to serve a non-loopback address anyway");
      System.exit(2);
    }
    if (httpPort < -1 || httpPort > 65535) {
      System.err.println("quiver: --http-port takes a port (0: a free one; -1: no console), not " + httpPort);
      System.exit(2);
    }
    if (httpPort >= 0 && !isLoopback(httpHost) && users.isEmpty() && !insecure) {
      System.err.println("quiver: refusing to serve the console on " + httpHost + " without authentication: give --users FILE or"
          + " --user NAME:PASSWORD, or pass --insecure to serve a non-loopback address anyway");
      System.exit(2);
    }
    QuiverServer.ScaleOut scaleOut;
    try {
      scaleOut = new QuiverServer.ScaleOut(maxEndpoints, peers, advertise, tokenSecret);
    } catch (IllegalArgumentException e) {
      System.err.println("quiver: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (Launcher.shouldRelaunch()) { // a JVM sized from --server-memory runs the server
      System.exit(Launcher.relaunch(args, serverMemory));
      return;
    }
    Launcher.watchLauncher();
    if (data == null) {
      Path dir = SampleData.cacheRoot().resolve("sample-" + SampleData.VERSION);
      boolean ready = java.nio.file.Files.exists(dir.resolve("_COMPLETE"));
      System.out.println("No --data given: serving the bundled sample data from " + dir
          + (ready ? "" : " (generating it first, once: about 10 s on an idle machine, longer on a busy one)..."));
      data = SampleData.ensure(dir).toString();
    }
    if (tlsCert != null) {
      try { // clients refuse such a certificate with messages of their own: say so where the operator looks
        for (String problem : CertificateDates.problems(tlsCert, java.time.Instant.now())) {
          System.err.println("quiver: warning: " + problem + " (--tls-cert): clients will refuse it");
        }
      } catch (java.io.IOException e) {
        System.err.println("quiver: " + e.getMessage() + " (--tls-cert)");
        System.exit(2);
        return;
      }
    }
    QuiverServer server;
    try {
      server = QuiverServer.start(new ServerConfig(data, host, port, memory, settings, users, tlsCert, tlsKey)
          .withClientCa(tlsClientCa).withServerMemory(serverMemory).withMaxQueriesPerUser(maxQueriesPerUser, queueTimeoutMs)
          .withMaxQueuedPerUser(maxQueuedPerUser).withMaxStatementBytes(maxStatementBytes).withConsole(httpHost, httpPort));
    } catch (dev.quiver.server.console.ConsoleServer.BindException e) { // the console's port is taken
      System.err.println("quiver: " + e.getMessage());
      System.exit(2);
      return;
    } catch (dev.quiver.common.QuiverException e) { // no data directory, an unreadable users file, ...
      System.err.println("quiver: " + e.getMessage());
      System.exit(2);
      return;
    } catch (java.io.IOException e) { // the port is taken, the address is not ours, TLS files unreadable
      System.err.println("quiver: cannot serve on " + host + ":" + port + ": " + rootMessage(e));
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (Exception ignored) {
        // shutting down
      }
    }));
    server.scaleOut(scaleOut);
    server.warmUp(warmUp);
    System.out.println("Quiver is serving " + data + " on " + host + ":" + server.port());
    System.out.println("JDBC URL: " + server.jdbcUrl() + (users.isEmpty() ? "" : "&user=NAME&password=PASSWORD")
        + (tlsCert == null ? "" : "&tlsRootCerts=" + tlsCert));
    System.out.println("Shell:    java -jar server/target/quiver-server.jar sql --port " + server.port()
        + (tlsCert == null ? "" : " --tls --tls-ca " + tlsCert) + (users.isEmpty() ? "" : " --user NAME --password PASSWORD"));
    if (server.consoleUrl() != null) System.out.println("Console: " + server.consoleUrl());
    System.out.println(Launcher.memoryLine(serverMemory));
    server.awaitTermination();
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }

  /** {@code hash-password NAME}: reads a password from standard input, prints a users-file line. */
  private static void hashPassword(String[] args) throws java.io.IOException {
    if (args.length != 2) {
      System.err.println("usage: java -jar server/target/quiver-server.jar hash-password NAME < password");
      System.exit(2);
    }
    String password = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
    if (password == null || password.isEmpty()) {
      System.err.println("no password on standard input");
      System.exit(2);
    }
    System.out.println(args[1] + ":" + Users.hash(password, Users.ITERATIONS));
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      System.err.println("option " + args[i - 1] + " needs a value");
      System.exit(2);
    }
    return args[i];
  }

  /** A byte count: digits, optionally with a binary suffix k, m, g or t ({@code 512m}, {@code 8g}). */
  static long bytes(String s) {
    String t = s.trim().toLowerCase(java.util.Locale.ROOT);
    if (t.endsWith("b")) t = t.substring(0, t.length() - 1);
    if (t.endsWith("i")) t = t.substring(0, t.length() - 1);
    int shift = 0;
    if (!t.isEmpty()) {
      switch (t.charAt(t.length() - 1)) {
        case 'k' -> shift = 10;
        case 'm' -> shift = 20;
        case 'g' -> shift = 30;
        case 't' -> shift = 40;
        default -> shift = 0;
      }
    }
    if (shift > 0) t = t.substring(0, t.length() - 1);
    try {
      return Math.multiplyExact(Long.parseLong(t.trim()), 1L << shift);
    } catch (ArithmeticException | NumberFormatException e) {
      System.err.println("not a byte count: " + s + " (give bytes, or e.g. 512m, 8g)");
      System.exit(2);
      return 0;
    }
  }

  /**
   * Endpoints per FlightInfo unless a session sets {@code quiver.max_endpoints}: 1, one endpoint as before. ADBC Java
   * 0.20 and clients that read only the first endpoint would silently lose rows otherwise; splitting is for clients
   * that read every endpoint (JDBC, pyarrow loops, Spark), which opt in.
   */
  static final int DEFAULT_MAX_ENDPOINTS = 1;

  /** {@code grpc://host:port,grpc+tls://host:port,…} as Flight locations. */
  static java.util.List<org.apache.arrow.flight.Location> locations(String list) {
    java.util.List<org.apache.arrow.flight.Location> out = new java.util.ArrayList<>();
    for (String s : list.split(",")) {
      if (s.isBlank()) continue;
      try {
        out.add(new org.apache.arrow.flight.Location(s.strip()));
      } catch (java.net.URISyntaxException e) {
        out.clear();
        break;
      }
      String scheme = out.get(out.size() - 1).getUri().getScheme();
      if (scheme == null || !scheme.matches("grpc|grpc\\+tcp|grpc\\+tls") || out.get(out.size() - 1).getUri().getPort() < 0) {
        out.clear();
        break;
      }
    }
    if (out.isEmpty()) {
      System.err.println("quiver: not a list of Flight locations (grpc://host:port or grpc+tls://host:port, comma-"
          + "separated): " + list);
      System.exit(2);
    }
    return out;
  }

  private static boolean isLoopback(String host) {
    return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
  }

  /** {@code --help}: what a newcomer needs, on one screen. */
  private static void shortUsage() {
    String jar = "java -jar server/target/quiver-server.jar";
    System.out.println("Quiver, an Arrow Flight SQL server over Parquet files.");
    System.out.println();
    System.out.println("usage: " + jar + " [--data DIR] [--port PORT] [options]   serve DIR");
    System.out.println("       " + jar + " sql [--port PORT] [-e SQL]               the SQL shell");
    System.out.println();
    System.out.println("  --data DIR        each *.parquet file and each directory of them is a table (default: the sample data)");
    System.out.println("  --host HOST       address to listen on (default 127.0.0.1)");
    System.out.println("  --port PORT       Flight SQL port (default 31337)");
    System.out.println("  --http-port PORT  the web console's port (default " + ServerConfig.DEFAULT_HTTP_PORT
        + "; --no-console: off)");
    System.out.println("  --users FILE      require logins (make entries with: " + jar + " hash-password NAME)");
    System.out.println("  --tls-cert PEM --tls-key PEM   serve TLS");
    System.out.println("  --query-memory BYTES, --server-memory BYTES   memory limits (default 2g per query)");
    System.out.println();
    System.out.println("--help-all lists every option; docs/operations.md explains them.");
  }

  /** {@code --help-all}: every option. */
  private static void usage() {
    System.out.println("usage: java -jar server/target/quiver-server.jar [--data DIR] [--host HOST] [--port PORT]"
        + " [--query-memory BYTES] [--server-memory BYTES] [--max-queries-per-user N] [--query-queue-timeout-ms MS]"
        + " [--max-queued-per-user N] [--max-statement-bytes BYTES] [--warm-up N]"
        + " [--no-simplify] [--statement-timeout-ms MS] [--users FILE] [--user NAME:PASSWORD] [--tls-cert PEM --tls-key PEM"
        + " [--tls-client-ca PEM]] [--http-port PORT | --no-console] [--http-host HOST] [--insecure]"
        + " [--max-endpoints N] [--peers grpc://HOST:PORT,... --token-secret-file FILE [--advertise grpc://HOST:PORT]]");
    System.out.println("       java -jar server/target/quiver-server.jar sql [--host HOST] [--port PORT]"
        + " [--tls [--tls-ca PEM | --tls-insecure]] [--user NAME --password PASSWORD] [-e SQL]");
    System.out.println("       java -jar server/target/quiver-server.jar hash-password NAME < password");
    System.out.println("  --data DIR   serve DIR: each *.parquet file and each directory of Parquet files is a table");
    System.out.println("               (default: the bundled sample data, generated once into ~/.cache/quiver)");
    System.out.println("  --host HOST  address to listen on (default 127.0.0.1)");
    System.out.println("  --port PORT  port to listen on (default 31337)");
    System.out.println("  --query-memory BYTES   memory limit of one query (default 2g; k/m/g suffixes)");
    System.out.println("  --server-memory BYTES  memory limit of all queries together (default 8g, or a quarter of the"
        + " machine's memory if less); without -Xmx the server runs in a JVM sized from it: heap and direct memory"
        + " each this + 256m");
    System.out.println("  --metadata-cache BYTES  dictionaries, bloom filters and page indexes kept across queries to prune"
        + " with, by file version (default 256m; 0: none); EXPLAIN ANALYZE shows metadata_cache_hits/_misses");
    System.out.println("  --spill-dir DIR  where a hash join's build side, a sort's rows, an aggregation's groups or a window's input that outgrow"
        + " the query's memory are written (default: the system's temp directory); deleted when the query ends");
    System.out.println("  --max-queries-per-user N  running queries per user (default " + ServerConfig.DEFAULT_MAX_QUERIES_PER_USER
        + ": 8 or twice the cores; without --users all clients are one user); more wait");
    System.out.println("  --max-queued-per-user N  queries of one user that may wait (default 1024); more are refused");
    System.out.println("  --query-queue-timeout-ms MS  how long such a query waits before RESOURCE_EXHAUSTED (default"
        + " 120000; 0: refuse at once)");
    System.out.println("  --max-statement-bytes BYTES  longest SQL statement accepted, in UTF-8 bytes (default 1m)");
    System.out.println("  --warm-up N  after the start, send the server N SELECT 1 executions over loopback in the background,");
    System.out.println("               and real queries over a small table of its own, so that the first queries do not run");
    System.out.println("               interpreted code (default " + DEFAULT_WARM_UP + "; 0: none)");
    System.out.println("  --http-port PORT  the web console's port (default " + ServerConfig.DEFAULT_HTTP_PORT
        + "; 0: a free one; -1 or --no-console: off); HTTPS with --tls-cert/--tls-key");
    System.out.println("  --http-host HOST  the console's address (default 127.0.0.1, whatever --host is; another needs"
        + " users or --insecure)");
    System.out.println("  --max-endpoints N  split scan/filter/project results into up to N endpoints (default "
        + DEFAULT_MAX_ENDPOINTS + ": one; sessions: SET quiver.max_endpoints = N)");
    System.out.println("  --peers LOCATIONS  other replicas serving the same data (grpc://host:port or grpc+tls://, comma-"
        + "separated): endpoints are spread over this server and them; needs --token-secret-file");
    System.out.println("  --token-secret-file FILE  signs statement handles and endpoint tickets: the same file on every replica");
    System.out.println("  --advertise LOCATION  this server's own location in endpoints (default grpc[+tls]://HOST:PORT)");
    System.out.println("  --no-simplify  plan without the expression simplifier (sessions: SET quiver.optimizer.simplify = true)");
  }
}
