package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import dev.quiver.server.QuiverServer;
import dev.quiver.server.ServerConfig;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server and the shell as a person runs them: {@code Main} (what {@code java -jar quiver-server.jar}
 * runs) in its own JVM, its output read as text. One clear line per problem, no stack traces, and a server
 * process whose memory is bounded by {@code --server-memory}.
 */
class CommandLineTest {
  @TempDir
  Path dir;

  /** A JVM running {@code dev.quiver.server.Main args} on this test's class path; output and errors to {@code log}. */
  static Process main(Path log, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        "dev.quiver.server.Main"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
  }

  /** A new data directory {@code name} holding the sample's {@code nation.parquet}. */
  private Path dataWithNation(String name) throws IOException {
    Path data = Files.createDirectories(dir.resolve(name));
    Files.copy(SampleData.ensure().resolve("nation.parquet"), data.resolve("nation.parquet"));
    return data;
  }

  /** Runs to the end (at most two minutes): the exit status and the non-empty lines printed. */
  record Run(int status, List<String> lines) {}

  Run run(String... args) throws Exception {
    Path log = Files.createTempFile(dir, "run", ".log");
    Process p = main(log, args);
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("still running after 2 minutes: " + String.join(" ", args));
    }
    return new Run(p.exitValue(), lines(log));
  }

  static List<String> lines(Path log) throws IOException {
    return Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank()).toList();
  }

  /** A server process: started, its port read from its banner. Closing stops it (SIGTERM to the launcher). */
  static final class ServerProcess implements AutoCloseable {
    final Process process;
    final Path log;
    final int port;

    ServerProcess(Path log, String... args) throws Exception {
      this.log = log;
      // the web console on a free port unless the test says otherwise: servers started together must not collide
      List<String> all = new ArrayList<>(List.of(args));
      if (!all.contains("--http-port") && !all.contains("--no-console")) all.addAll(List.of("--http-port", "0"));
      this.process = main(log, all.toArray(new String[0]));
      Pattern serving = Pattern.compile("Quiver is serving .* on 127\\.0\\.0\\.1:(\\d+)");
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (true) {
        String text = Files.readString(log);
        Matcher m = serving.matcher(text);
        if (m.find() && text.contains("Shell:")) { // the banner's last lines
          port = Integer.parseInt(m.group(1));
          Thread.sleep(300);
          break;
        }
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new AssertionError("the server did not start:\n" + text);
        }
        Thread.sleep(100);
      }
    }

    /** The JVM that serves: the launcher's child if it started one, else the launcher itself. */
    ProcessHandle serving() {
      return process.descendants().filter(h -> h.info().command().orElse("").endsWith("java")).findFirst()
          .orElse(process.toHandle());
    }

    List<String> lines() throws IOException {
      return CommandLineTest.lines(log);
    }

    @Override
    public void close() throws Exception {
      List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
      for (ProcessHandle h : all) { // the launcher stops its child on SIGTERM
        h.onExit().get(30, TimeUnit.SECONDS);
      }
    }
  }

  static long rssBytes(ProcessHandle h) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + h.pid() + "/status"))) {
      if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", "")) << 10;
    }
    throw new AssertionError("no VmRSS for " + h.pid());
  }

  // ---- the server -------------------------------------------------------------------------------

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void slowRequestsNeitherStopTheConsoleNorStayOpen() throws Exception {
    // 40 connections that send a request line and one header, then nothing: they held all the console's threads
    // and it answered nobody for as long as they stayed open (checked to 200 s)
    try (ServerProcess server = new ServerProcess(dir.resolve("slow.log"), "--data", SampleData.ensure().toString(),
        "--port", "0", "--server-memory", "256m", "--warm-up", "0")) {
      Matcher m = Pattern.compile("Console: http://127\\.0\\.0\\.1:(\\d+)/").matcher(String.join("\n", server.lines()));
      assertThat(m.find()).isTrue();
      int port = Integer.parseInt(m.group(1));
      List<java.net.Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < 40; i++) {
          java.net.Socket s = new java.net.Socket("127.0.0.1", port);
          s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n").getBytes(StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          slow.add(s);
        }
        Thread.sleep(500); // the server has read what they sent
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
            .connectTimeout(java.time.Duration.ofSeconds(5)).build();
        java.net.http.HttpResponse<String> page = http.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + port + "/")).timeout(java.time.Duration.ofSeconds(5)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        // and each slow connection is closed by the server once its request is overdue (10 s): read ends
        for (java.net.Socket s : slow) {
          s.setSoTimeout(60_000); // a SocketTimeoutException here: the server kept it open
          String answer;
          try {
            answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
          } catch (java.net.SocketException reset) {
            answer = "";
          }
          assertThat(answer).as("a slow request's connection is closed, not answered").doesNotContain(" 200 ");
        }
      } finally {
        for (java.net.Socket s : slow) s.close();
      }
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theServerAndTheShellStartQuietlyOnThisJava() throws Exception {
    // .ci/run runs this class on Java 17 and again on Java 25, where Hadoop 3.4 could not start the server
    // (getSubject is not supported) and the shell printed 8 WARNING lines (native access, sun.misc.Unsafe)
    try (ServerProcess server = new ServerProcess(dir.resolve("quiet.log"), "--data", SampleData.ensure().toString(),
        "--port", "0", "--server-memory", "256m", "--warm-up", "0")) {
      assertThat(server.lines()).as("java " + Runtime.version()).noneMatch(l -> l.startsWith("WARNING"))
          .anyMatch(l -> l.startsWith("Quiver is serving "));
      Run shell = run("sql", "--port", String.valueOf(server.port), "-e", "SELECT count(*) AS n FROM nation");
      assertThat(shell.lines()).as("java " + Runtime.version()).noneMatch(l -> l.startsWith("WARNING"))
          .anyMatch(l -> l.matches("\\|\\s*25\\s*\\|"));
      assertThat(shell.status()).isZero();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theBannerPrintsTheConsolesUrlAndMinusOneTurnsItOff() throws Exception {
    try (ServerProcess on = new ServerProcess(dir.resolve("on.log"), "--data", SampleData.ensure().toString(),
            "--port", "0", "--server-memory", "256m", "--warm-up", "0");
        ServerProcess off = new ServerProcess(dir.resolve("off.log"), "--data", SampleData.ensure().toString(),
            "--port", "0", "--server-memory", "256m", "--warm-up", "0", "--http-port", "-1")) {
      List<String> banner = on.lines();
      String console = banner.stream().filter(l -> l.startsWith("Console: ")).findFirst()
          .orElseThrow(() -> new AssertionError("no Console: line in " + banner));
      Matcher m = Pattern.compile("Console: (http://127\\.0\\.0\\.1:(\\d+)/)$").matcher(console);
      assertThat(m.find()).as(console).isTrue();
      java.net.http.HttpResponse<String> page = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(m.group(1))).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("quiver-csrf");
      assertThat(off.lines()).noneMatch(l -> l.startsWith("Console"));
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aConsolePortInUseIsOneClearLine() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
      Run r = run("--data", SampleData.ensure().toString(), "--port", "0", "--server-memory", "256m", "--warm-up", "0",
          "--http-port", String.valueOf(taken.getLocalPort()));
      // (the test class path has two Arrow allocation managers: that warning is the test's, not the server's)
      assertThat(r.lines()).filteredOn(l -> !l.contains("CheckAllocator")).containsExactly(
          "quiver: cannot serve the console on 127.0.0.1:" + taken.getLocalPort()
          + ": Address already in use (--http-port N serves it on another port, --http-port -1 turns it off)");
      assertThat(r.status()).isEqualTo(2);
    }
    Run open = run("--data", SampleData.ensure().toString(), "--port", "0", "--http-host", "0.0.0.0");
    assertThat(open.lines()).containsExactly("quiver: refusing to serve the console on 0.0.0.0 without authentication: give"
        + " --users FILE or --user NAME:PASSWORD, or pass --insecure to serve a non-loopback address anyway");
    assertThat(open.status()).isEqualTo(2);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aQueryOnACorruptFileLogsOneLine() throws Exception {
    // every query on a corrupt file logged 22 to 50 lines (a WARN and its stack trace); docs/operations.md promises
    // one line per record
    Path data = dataWithNation("corrupt-data");
    byte[] bytes = Files.readAllBytes(data.resolve("nation.parquet"));
    for (int i = 4; i < bytes.length / 2; i++) bytes[i] = (byte) 0x5A; // pages garbled, footer intact
    Files.write(data.resolve("garbled.parquet"), bytes);
    try (ServerProcess server = new ServerProcess(dir.resolve("corrupt.log"), "--data", data.toString(),
        "--port", "0", "--server-memory", "256m", "--warm-up", "0")) {
      int before = server.lines().size();
      Run r = run("sql", "--port", String.valueOf(server.port), "-e", "SELECT sum(n_nationkey), max(n_comment) FROM garbled");
      assertThat(r.status()).isNotZero();
      Thread.sleep(300);
      List<String> logged = server.lines().subList(before, server.lines().size());
      assertThat(logged).as(String.join("\n", logged)).hasSize(1);
      assertThat(logged.get(0)).contains("query failed: ").contains("garbled.parquet");
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theShellPrintsExplainAnalyzeWhole() throws Exception {
    // its lines were cut at 200 characters: the scan's pruning counts, at their end, never showed
    try (ServerProcess server = new ServerProcess(dir.resolve("explain.log"), "--data", SampleData.ensure().toString(),
        "--port", "0", "--server-memory", "256m", "--warm-up", "0")) {
      Run r = run("sql", "--port", String.valueOf(server.port), "-e",
          "EXPLAIN ANALYZE SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'");
      assertThat(r.status()).isZero();
      assertThat(r.lines()).anyMatch(l -> l.matches("\\|\\s+plan\\s+\\|"));
      assertThat(r.lines()).anyMatch(l -> l.contains("ParquetScanExec: table=lineitem") && l.contains("row_groups_pruned=")
          && l.contains("pages_pruned=") && l.contains("rows_scanned=") && l.matches(".*elapsed_ms=[0-9.]+\\s*\\|"));
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void filesAndColumnsThatAreNotServedAreNamedAtStartUp() throws Exception {
    // a CSV and a notes.txt were ignored without a word, LIST/STRUCT columns vanished, a STRUCT was called "GROUP"
    // and a file that is not Parquet printed its first bytes as decimals
    Path data = dataWithNation("newcomer");
    Files.writeString(data.resolve("notes.txt"), "hello\n");
    Files.writeString(data.resolve("data.csv"), "a,b\n1,2\n");
    Files.writeString(data.resolve("fake.parquet"), "not parquet at all\n");
    Files.writeString(data.resolve(".hidden.txt"), "not listed\n");
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); java.sql.Statement st = duck.createStatement()) {
      st.execute("COPY (SELECT 1 AS id, [1, 2] AS tags, {'os': 'x'} AS dev) TO '" + data.resolve("events.parquet")
          + "' (FORMAT parquet)");
    }
    try (ServerProcess server = new ServerProcess(dir.resolve("newcomer.log"), "--data", data.toString(),
        "--port", "0", "--server-memory", "256m", "--warm-up", "0")) {
      List<String> log = server.lines();
      assertThat(log).as(String.join("\n", log))
          .anyMatch(l -> l.endsWith("table events: columns dev (nested type STRUCT), tags (nested type LIST) are not "
              + "supported; its other columns are served"))
          .anyMatch(l -> l.endsWith("not served: data.csv, notes.txt (only *.parquet files, and directories of them, "
              + "are tables)"))
          .anyMatch(l -> l.contains("table fake cannot be read") && l.contains("it does not start with PAR1 but with \"not \""))
          .noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
      Run r = run("sql", "--port", String.valueOf(server.port), "-e", "SELECT * FROM events");
      assertThat(r.status()).isZero();
      assertThat(r.lines()).anyMatch(l -> l.matches("\\|\\s*id\\s*\\|"));
      // and DESCRIBE and information_schema.columns list them, with the reason
      Run describe = run("sql", "--port", String.valueOf(server.port), "-e", "DESCRIBE events");
      assertThat(describe.lines()).as(String.join("\n", describe.lines()))
          .anyMatch(l -> l.matches("\\|\\s*dev\\s*\\|\\s*UNSUPPORTED \\(nested type STRUCT\\)\\s*\\|.*"))
          .anyMatch(l -> l.matches("\\|\\s*tags\\s*\\|\\s*UNSUPPORTED \\(nested type LIST\\)\\s*\\|.*"));
      Run columns = run("sql", "--port", String.valueOf(server.port), "-e", "SELECT column_name, data_type, comment "
          + "FROM information_schema.columns WHERE table_name = 'events' ORDER BY ordinal_position");
      assertThat(columns.lines()).as(String.join("\n", columns.lines()))
          .anyMatch(l -> l.matches("\\|\\s*id\\s*\\|\\s*INTEGER\\s*\\|\\s*(null)?\\s*\\|"))
          .anyMatch(l -> l.matches("\\|\\s*tags\\s*\\|\\s*UNSUPPORTED\\s*\\|\\s*not served: nested type LIST\\s*\\|"));
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void optionErrorsAreOneLineNamingTheOption() throws Exception {
    // "--prot 5" printed "unknown option: --prot" and 22 lines of usage; "--port abc" said "not a number: abc"
    Run typo = run("--prot", "5");
    assertThat(typo.lines()).containsExactly("quiver: unknown option --prot (--help lists the options)");
    assertThat(typo.status()).isEqualTo(2);
    Run port = run("--port", "abc");
    assertThat(port.lines()).containsExactly("quiver: --port takes a number, not 'abc'");
    assertThat(port.status()).isEqualTo(2);
    // --help fits a screen and names the full list; --help-all has every option
    Run help = run("--help");
    assertThat(help.status()).isZero();
    assertThat(help.lines()).hasSizeLessThanOrEqualTo(20).anyMatch(l -> l.contains("--data DIR"))
        .anyMatch(l -> l.contains("--help-all lists every option"));
    Run all = run("--help-all");
    assertThat(all.status()).isZero();
    assertThat(all.lines()).hasSizeGreaterThan(help.lines().size()).anyMatch(l -> l.contains("--max-endpoints N"))
        .anyMatch(l -> l.contains("--warm-up N"));
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aMissingDataDirectoryIsOneLineAndStatus2() throws Exception {
    Path missing = dir.resolve("no-such-dir");
    Run r = run("--data", missing.toString(), "--port", "0");
    assertThat(r.lines()).containsExactly("quiver: data directory " + missing + " does not exist");
    assertThat(r.status()).isEqualTo(2);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void serverMemoryBoundsTheHeapAndTheDirectMemoryOfTheServingJvm() throws Exception {
    try (ServerProcess server = new ServerProcess(dir.resolve("server.log"), "--data", SampleData.ensure().toString(),
        "--port", "0", "--server-memory", "256m")) {
      List<String> banner = server.lines();
      String memory = banner.stream().filter(l -> l.startsWith("Memory:")).findFirst()
          .orElseThrow(() -> new AssertionError("no Memory: line in\n" + String.join("\n", banner)));
      Matcher m = Pattern.compile("queries (\\d+) MiB .*Java heap (\\d+) MiB, direct (\\d+) MiB").matcher(memory);
      assertThat(m.find()).as(memory).isTrue();
      assertThat(Long.parseLong(m.group(1))).isEqualTo(256);
      // the heap holds up to all of the queries' memory (hash tables are reserved from it) plus the server's own
      assertThat(Long.parseLong(m.group(2))).as(memory).isBetween(256L, 600L);
      assertThat(Long.parseLong(m.group(3))).as(memory).isBetween(256L, 600L);
      ProcessHandle serving = server.serving();
      List<String> flags = List.of(Files.readString(Path.of("/proc/" + serving.pid() + "/cmdline")).split("\0"));
      assertThat(flags).as("the serving JVM's flags").anyMatch(a -> a.startsWith("-Xmx"));

      // some work: scans, aggregations, a join; the process stays far below a quarter of the machine
      long maxRss = 0;
      try (Connection c = DriverManager.getConnection("jdbc:arrow-flight-sql://127.0.0.1:" + server.port
          + "/?useEncryption=false")) {
        for (String q : List.of("q01", "q03", "q06", "q10", "q01", "q12")) {
          TestServer.rows(c, LoadTest.tpch(q));
          maxRss = Math.max(maxRss, rssBytes(serving));
        }
        assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM lineitem")).isEqualTo(600_572);
      }
      System.out.println("serving JVM: " + memory + "; RSS at most " + (maxRss >> 20) + " MiB");
      assertThat(maxRss).as("RSS of the serving JVM").isLessThan(1536L << 20);
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void clientsGoingAwayLeaveNoStackTraceInTheServerLog() throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create(dir);
    try (ServerProcess plain = new ServerProcess(dir.resolve("plain.log"), "--data", SampleData.ensure().toString(),
            "--port", "0", "--server-memory", "256m");
        ServerProcess tls = new ServerProcess(dir.resolve("tls.log"), "--data", SampleData.ensure().toString(),
            "--port", "0", "--server-memory", "256m", "--tls-cert", cert.cert().toString(), "--tls-key",
            cert.key().toString())) {
      int bannerPlain = plain.lines().size();
      int bannerTls = tls.lines().size();
      for (ServerProcess s : List.of(plain, tls)) {
        for (int i = 0; i < 3; i++) {
          try (Socket health = new Socket("127.0.0.1", s.port)) { // a health check: connect, close
            health.setSoLinger(i == 2, 0); // the last one resets the connection
          }
        }
        try (Socket http = new Socket("127.0.0.1", s.port)) { // a browser or an HTTP health check
          http.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          http.getInputStream().read();
        } catch (IOException closedByServer) {
          // fine
        }
      }
      // a client that dies while the server streams to it: a JVM that reads one batch and halts
      Path clientLog = dir.resolve("client.log");
      Process client = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
          AbruptClient.class.getName(), String.valueOf(plain.port)).redirectErrorStream(true)
          .redirectOutput(clientLog.toFile()).start();
      assertThat(client.waitFor(2, TimeUnit.MINUTES)).isTrue();
      assertThat(Files.readString(clientLog)).contains("read a batch");
      // and one that cancels mid-stream through JDBC
      try (Connection c = DriverManager.getConnection("jdbc:arrow-flight-sql://127.0.0.1:" + plain.port
          + "/?useEncryption=false"); java.sql.Statement st = c.createStatement()) {
        java.sql.ResultSet rs = st.executeQuery("SELECT * FROM lineitem");
        for (int i = 0; i < 100 && rs.next(); i++) {
          // read a little
        }
        st.cancel();
      } catch (java.sql.SQLException cancelled) {
        // the driver reports its own cancellation
      }
      Thread.sleep(2_000); // the server notices the connections' ends
      List<String> afterPlain = plain.lines().subList(bannerPlain, plain.lines().size());
      List<String> afterTls = tls.lines().subList(bannerTls, tls.lines().size());
      assertThat(afterPlain).as("what the plain server logged").noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
      assertThat(afterTls).as("what the TLS server logged").noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
      assertThat(afterPlain.size() + afterTls.size()).as(afterPlain + "\n" + afterTls).isLessThanOrEqualTo(4);
    }
  }

  /** Connects, starts a long result, reads one batch and halts: a client killed mid-stream. */
  public static final class AbruptClient {
    public static void main(String[] args) throws Exception {
      org.apache.arrow.memory.RootAllocator a = new org.apache.arrow.memory.RootAllocator();
      org.apache.arrow.flight.sql.FlightSqlClient c = new org.apache.arrow.flight.sql.FlightSqlClient(
          org.apache.arrow.flight.FlightClient.builder(a, org.apache.arrow.flight.Location.forGrpcInsecure("127.0.0.1",
              Integer.parseInt(args[0]))).build());
      org.apache.arrow.flight.FlightStream s = c.getStream(c.execute("SELECT * FROM lineitem").getEndpoints().get(0)
          .getTicket());
      s.next();
      System.out.println("read a batch of " + s.getRoot().getRowCount() + " rows");
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }
  }

  // ---- the shell --------------------------------------------------------------------------------

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theShellPrintsTheAnswerAndOneLinePerProblem() throws Exception {
    try (TestServer server = TestServer.start(SampleData.ensure())) {
      String port = String.valueOf(server.port());
      Run ok = run("sql", "--port", port, "-e", "SELECT count(*) AS n FROM region");
      assertThat(ok.lines()).as("the answer, and nothing else").hasSize(5).contains("| 5 |");
      assertThat(ok.status()).isZero();

      Run syntax = run("sql", "--port", port, "-e", "SELEC 1");
      assertThat(syntax.lines()).hasSize(1);
      assertThat(syntax.lines().get(0)).contains("syntax error at 1:1");
      assertThat(syntax.status()).isNotZero();
    }
    int unused;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      unused = s.getLocalPort();
    }
    Run down = run("sql", "--port", String.valueOf(unused), "-e", "SELECT 1");
    assertThat(down.lines()).containsExactly(
        "quiver sql: cannot connect to 127.0.0.1:" + unused + ": connection refused (is the server running?)");
    assertThat(down.status()).isNotZero();
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void expiredOrNotYetValidCertificatesAreRefusedByTheShellAndWarnedAboutByTheServer() throws Exception {
    long day = 86_400_000L;
    long now = System.currentTimeMillis();
    SelfSignedCertificate expired = SelfSignedCertificate.create(dir, new java.util.Date(now - 30 * day),
        new java.util.Date(now - day));
    SelfSignedCertificate early = SelfSignedCertificate.create(dir, new java.util.Date(now + day),
        new java.util.Date(now + 30 * day));
    for (SelfSignedCertificate cert : List.of(expired, early)) {
      try (ServerProcess server = new ServerProcess(dir.resolve("tls-" + System.nanoTime() + ".log"), "--data",
          SampleData.ensure().toString(), "--port", "0", "--server-memory", "256m", "--warm-up", "0",
          "--tls-cert", cert.cert().toString(), "--tls-key", cert.key().toString())) {
        // the server starts (an operator may be renewing it) but says so
        assertThat(server.lines()).anyMatch(l -> l.startsWith("quiver: warning: the certificate CN=localhost in ")
            && (l.contains(" expired on ") || l.contains(" is not valid before ")) && l.endsWith("clients will refuse it"));
        // the shell, given it as --tls-ca (the README's recipe), refuses it as pyarrow and curl do
        Run shell = run("sql", "--port", String.valueOf(server.port), "--tls", "--tls-ca", cert.cert().toString(),
            "-e", "SELECT 1 AS one");
        assertThat(shell.lines()).hasSize(1);
        assertThat(shell.lines().get(0)).startsWith("quiver sql: the certificate CN=localhost in ")
            .contains(cert == expired ? " expired on " : " is not valid before ").endsWith("--tls-insecure to skip verification");
        assertThat(shell.status()).isNotZero();
      }
    }
    // a CA-signed certificate that expired: the shell says "expired", not "not trusted"
    SelfSignedCertificate.Chain chain = SelfSignedCertificate.chain(dir, new java.util.Date(now - 30 * day),
        new java.util.Date(now - day));
    try (ServerProcess server = new ServerProcess(dir.resolve("tls-chain.log"), "--data",
        SampleData.ensure().toString(), "--port", "0", "--server-memory", "256m", "--warm-up", "0",
        "--tls-cert", chain.cert().toString(), "--tls-key", chain.key().toString())) {
      Run shell = run("sql", "--port", String.valueOf(server.port), "--tls", "--tls-ca", chain.caCert().toString(),
          "-e", "SELECT 1 AS one");
      assertThat(shell.lines()).hasSize(1);
      assertThat(shell.lines().get(0)).startsWith("quiver sql: cannot connect to 127.0.0.1:" + server.port)
          .contains("the server's certificate has expired");
      assertThat(shell.status()).isNotZero();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theShellVerifiesTheServersCertificateUnlessToldNotTo() throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create(dir);
    try (QuiverServer server = QuiverServer.start(ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0)
        .withTls(cert.cert(), cert.key()))) {
      String port = String.valueOf(server.port());
      Run untrusted = run("sql", "--port", port, "--tls", "-e", "SELECT 1 AS one");
      assertThat(untrusted.lines()).hasSize(1);
      assertThat(untrusted.lines().get(0)).startsWith("quiver sql: cannot connect to 127.0.0.1:" + port)
          .contains("certificate is not trusted");
      assertThat(untrusted.status()).isNotZero();

      Run trusted = run("sql", "--port", port, "--tls", "--tls-ca", cert.cert().toString(), "-e", "SELECT 1 AS one");
      assertThat(trusted.lines()).as(String.join("\n", trusted.lines())).contains("| 1   |");
      assertThat(trusted.status()).isZero();

      // without --tls at a TLS port: the connection is dropped without a word; the shell says what to try
      Run plain = run("sql", "--port", port, "-e", "SELECT 1 AS one");
      assertThat(plain.lines()).hasSize(1);
      assertThat(plain.lines().get(0)).startsWith("quiver sql: cannot connect to 127.0.0.1:" + port)
          .endsWith("(if the server uses TLS, give --tls)");
      assertThat(plain.status()).isNotZero();

      Run insecure = run("sql", "--port", port, "--tls", "--tls-insecure", "-e", "SELECT 1 AS one");
      assertThat(insecure.lines()).as(String.join("\n", insecure.lines())).contains("| 1   |");
      assertThat(insecure.status()).isZero();
    }
  }
}
