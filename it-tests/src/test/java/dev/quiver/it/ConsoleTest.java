package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.sample.SampleData;
import dev.quiver.server.ServerConfig;
import dev.quiver.server.Users;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console's HTTP side against a real server on loopback, through {@link HttpClient} (and raw sockets
 * where a browser could send what HttpClient will not: a foreign Host header, a path with dot segments): its
 * answers agree with JDBC's, its errors carry JDBC's status and {@code line:column}, and it is exactly as
 * limited (CSRF, Host, users, admission, body size) as the issue asks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConsoleTest {
  static final String PRUNING = "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'";
  /** A join whose count takes minutes: 150,000 orders joined on a three-valued column. */
  static final String LONG = "SELECT count(*) FROM orders a JOIN orders b ON a.o_orderstatus = b.o_orderstatus";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;
  TestServer server;
  Console console;

  @BeforeAll
  void start() throws Exception {
    server = TestServer.startWithConsole(SampleData.ensure());
    console = new Console(server.consoleUrl(), HttpClient.newHttpClient());
  }

  @AfterAll
  void stop() throws Exception {
    server.close(); // fails if a console query left a buffer behind
  }

  /** A console client: the base URL, the CSRF token read from the page, a bearer token once logged in. */
  static final class Console {
    final HttpClient http;
    final String base;
    final String csrf;
    String token;

    Console(String base, HttpClient http) throws Exception {
      this.http = http;
      this.base = base;
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      Matcher m = Pattern.compile("<meta name=\"quiver-csrf\" content=\"([^\"]+)\"").matcher(page.body());
      assertThat(m.find()).as("the page has its CSRF token: " + page.body()).isTrue();
      csrf = m.group(1);
      assertThat(csrf).doesNotContain("{{").hasSizeGreaterThan(20);
    }

    int port() {
      return URI.create(base).getPort();
    }

    HttpRequest.Builder request(String path) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base).resolve(path)).timeout(Duration.ofMinutes(2))
          .header("X-Quiver-Csrf", csrf);
      if (token != null) b.header("Authorization", "Bearer " + token);
      return b;
    }

    HttpResponse<String> get(String path) throws Exception {
      return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, Object body) throws Exception {
      return http.send(postRequest(path, body), HttpResponse.BodyHandlers.ofString());
    }

    HttpRequest postRequest(String path, Object body) throws Exception {
      return request(path).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build();
    }
  }

  static JsonNode json(HttpResponse<String> r) throws IOException {
    return JSON.readTree(r.body());
  }

  /** The status line and headers of a raw HTTP/1.1 request (what a browser or a script may send). */
  static String raw(int port, String method, String target, String host, String csrf) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write((method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\n"
          + (csrf == null ? "" : "X-Quiver-Csrf: " + csrf + "\r\n") + "Connection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Waits until {@code server} runs {@code n} queries (console queries count as Flight's do). */
  static void awaitRunning(TestServer server, int n) throws InterruptedException {
    long t0 = System.nanoTime();
    while (server.runningQueries() != n) {
      Thread.sleep(10);
      if (System.nanoTime() - t0 > 30_000_000_000L) {
        throw new AssertionError("expected " + n + " running queries, have " + server.runningQueries());
      }
    }
  }

  // ---- queries --------------------------------------------------------------------------------

  @Test
  void thePruningQueryAgreesWithJdbcAndShowsNineRowGroupsPrunedByStatistics() throws Exception {
    HttpResponse<String> r = console.post("/api/query", Map.of("sql", PRUNING, "queryId", "pruning"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode run = json(r);
    long expected;
    Map<String, Long> jdbcScan;
    try (Connection c = server.jdbc()) {
      expected = TestServer.scalarLong(c, PRUNING);
      jdbcScan = TestServer.scanMetrics(c, PRUNING);
    }
    assertThat(run.get("rowCount").asLong()).isEqualTo(1);
    assertThat(Long.parseLong(run.get("rows").get(0).get(0).asText())).isEqualTo(expected);
    JsonNode scans = run.get("profile").get("scans");
    assertThat(scans.size()).isEqualTo(1);
    int prunedByStatistics = 0;
    int pagesPruned = 0;
    for (JsonNode g : scans.get(0).get("rowGroups")) {
      if (g.get("outcome").asText().equals("PRUNED_STATISTICS")) prunedByStatistics++;
      if (g.get("outcome").asText().equals("READ_PAGES_PRUNED")) pagesPruned++;
    }
    assertThat(scans.get(0).get("rowGroups").size()).isEqualTo(10);
    assertThat(prunedByStatistics).isEqualTo(9);
    assertThat(pagesPruned).isEqualTo(1);
    // the same row-group counts as JDBC's EXPLAIN ANALYZE of the same query
    JsonNode metrics = scans.get(0).get("metrics");
    jdbcScan.forEach((k, v) -> {
      if (k.startsWith("row_groups")) assertThat(metrics.get(k).asLong()).as(k).isEqualTo(v);
    });
  }

  @Test
  void compareRunsTheQueryWithTheSimplifierOnAndOff() throws Exception {
    String sql = "SELECT count(*) FROM lineitem WHERE extract(year FROM l_shipdate) = 1998";
    HttpResponse<String> r = console.post("/api/compare", Map.of("sql", sql, "queryId", "compare"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode on = json(r).get("on");
    JsonNode off = json(r).get("off");
    assertThat(on.get("profile").get("simplified").asBoolean()).isTrue();
    assertThat(off.get("profile").get("simplified").asBoolean()).isFalse();
    assertThat(on.get("rows").size()).isZero();
    long onPruned = on.get("profile").get("scans").get(0).get("metrics").get("row_groups_pruned").asLong();
    long offPruned = off.get("profile").get("scans").get(0).get("metrics").get("row_groups_pruned").asLong();
    assertThat(onPruned).as("the simplified predicate prunes").isGreaterThan(offPruned);
  }

  @Test
  void aSyntaxErrorIs400WithTheLineAndColumnJdbcReports() throws Exception {
    String sql = "SELECT count(*)\nFROM lineitem\nWHERE l_shipdate <<< DATE '1992-03-01'";
    String jdbcMessage;
    try (Connection c = server.jdbc()) {
      Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> TestServer.rows(c, sql));
      assertThat(t).isInstanceOf(SQLException.class);
      jdbcMessage = t.getMessage();
    }
    Matcher m = Pattern.compile("at (\\d+):(\\d+)").matcher(jdbcMessage);
    assertThat(m.find()).as(jdbcMessage).isTrue();
    HttpResponse<String> r = console.post("/api/query", Map.of("sql", sql, "queryId", "bad"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    JsonNode e = json(r).get("error");
    assertThat(e.get("code").asText()).isEqualTo("SYNTAX_ERROR");
    assertThat(e.get("status").asText()).isEqualTo("INVALID_ARGUMENT");
    assertThat(jdbcMessage).contains(e.get("message").asText());
    assertThat(e.get("line").asInt()).isEqualTo(Integer.parseInt(m.group(1))).isEqualTo(3);
    assertThat(e.get("column").asInt()).isEqualTo(Integer.parseInt(m.group(2)));
  }

  @Test
  void anUnknownTableIs404() throws Exception {
    HttpResponse<String> r = console.post("/api/query", Map.of("sql", "SELECT * FROM no_such_table", "queryId", "t"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
    assertThat(json(r).get("error").get("code").asText()).isEqualTo("NOT_FOUND");
    assertThat(console.get("/api/tables/no_such_table").statusCode()).isEqualTo(404);
  }

  @Test
  void tablesAreListedAndDescribed() throws Exception {
    HttpResponse<String> r = console.get("/api/tables");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode lineitem = null;
    for (JsonNode t : json(r)) if (t.get("name").asText().equals("lineitem")) lineitem = t;
    assertThat(lineitem).isNotNull();
    long rows;
    try (Connection c = server.jdbc()) {
      rows = TestServer.scalarLong(c, "SELECT count(*) FROM lineitem");
    }
    assertThat(lineitem.get("rows").asLong()).isEqualTo(rows);
    HttpResponse<String> d = console.get("/api/tables/lineitem");
    assertThat(d.statusCode()).as(d.body()).isEqualTo(200);
    assertThat(json(d).get("columns").size()).isEqualTo(16);
  }

  @Test
  void anErrorMessageWithMarkupComesBackEscaped() throws Exception {
    String sql = "SELECT \"<script>alert(1)</script>\" FROM lineitem";
    HttpResponse<String> r = console.post("/api/query", Map.of("sql", sql, "queryId", "xss"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(404); // no such column, as JDBC's NOT_FOUND
    assertThat(r.body()).doesNotContain("<").doesNotContain(">");
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
    assertThat(json(r).get("error").get("message").asText()).contains("<script>alert(1)</script>");
  }

  @Test
  void aCancelStopsALongQueryAndTheServerKeepsServing() throws Exception {
    CompletableFuture<HttpResponse<String>> running = console.http.sendAsync(
        console.postRequest("/api/query", Map.of("sql", LONG, "queryId", "long-1")), HttpResponse.BodyHandlers.ofString());
    awaitRunning(server, 1);
    Thread.sleep(500);
    assertThat(running).isNotDone();
    assertThat(json(console.post("/api/cancel", Map.of("queryId", "other"))).get("cancelled").asBoolean()).isFalse();
    long t0 = System.nanoTime();
    HttpResponse<String> cancel = console.post("/api/cancel", Map.of("queryId", "long-1"));
    assertThat(json(cancel).get("cancelled").asBoolean()).isTrue();
    HttpResponse<String> r = running.get(20, TimeUnit.SECONDS);
    System.out.println("console query stopped " + (System.nanoTime() - t0) / 1_000_000 + " ms after /api/cancel");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(499);
    assertThat(json(r).get("error").get("status").asText()).isEqualTo("CANCELLED");
    awaitRunning(server, 0);
    assertThat(console.post("/api/query", Map.of("sql", PRUNING, "queryId", "after")).statusCode()).isEqualTo(200);
  }

  // ---- limits -----------------------------------------------------------------------------------

  @Test
  void aConsoleQueryHoldsItsUsersSlotAgainstJdbc() throws Exception {
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0).withMaxQueriesPerUser(1, 0)
        .withConsole("127.0.0.1", 0);
    try (TestServer limited = TestServer.start(config)) {
      Console c = new Console(limited.consoleUrl(), HttpClient.newHttpClient());
      CompletableFuture<HttpResponse<String>> held = c.http.sendAsync(
          c.postRequest("/api/query", Map.of("sql", LONG, "queryId", "held")), HttpResponse.BodyHandlers.ofString());
      awaitRunning(limited, 1);
      try (Connection jdbc = limited.jdbc()) {
        assertThatThrownBy(() -> TestServer.rows(jdbc, "SELECT 1")).isInstanceOf(SQLException.class)
            .hasMessageContaining("too many concurrent queries for user anonymous (limit 1)");
      }
      HttpResponse<String> second = c.post("/api/query", Map.of("sql", "SELECT 1", "queryId", "second"));
      assertThat(second.statusCode()).as(second.body()).isEqualTo(429);
      assertThat(json(second).get("error").get("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
      assertThat(json(c.post("/api/cancel", Map.of("queryId", "held"))).get("cancelled").asBoolean()).isTrue();
      assertThat(held.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(499);
      awaitRunning(limited, 0);
      try (Connection jdbc = limited.jdbc()) {
        assertThat(TestServer.scalarLong(jdbc, "SELECT 1")).isEqualTo(1);
      }
    }
  }

  @Test
  void aStatementTimeoutStopsAConsoleQueryAs504() throws Exception {
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0)
        .withSettings(dev.quiver.planner.QuerySettings.DEFAULT.withStatementTimeoutMs(1_000)).withConsole("127.0.0.1", 0);
    try (TestServer limited = TestServer.start(config)) {
      Console c = new Console(limited.consoleUrl(), HttpClient.newHttpClient());
      HttpResponse<String> r = c.post("/api/query", Map.of("sql", LONG, "queryId", "slow"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(504);
      assertThat(json(r).get("error").get("code").asText()).isEqualTo("TIMED_OUT");
    }
  }

  @Test
  void aConsoleQueryHasTheQueryMemoryLimitAndFailsAsJdbcDoes() throws Exception {
    // a NOT IN needs its whole build side in memory: it cannot spill
    String sql = "SELECT count(*) FROM part WHERE p_comment NOT IN (SELECT l_comment FROM lineitem)";
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0).withQueryMemory(16L << 20)
        .withConsole("127.0.0.1", 0);
    try (TestServer limited = TestServer.start(config)) {
      Console c = new Console(limited.consoleUrl(), HttpClient.newHttpClient());
      HttpResponse<String> r = c.post("/api/query", Map.of("sql", sql, "queryId", "big"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(429);
      JsonNode e = json(r).get("error");
      assertThat(e.get("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
      assertThat(e.get("message").asText()).contains("limit of 16 MiB (--query-memory)");
      try (Connection jdbc = limited.jdbc()) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> TestServer.rows(jdbc, sql));
        assertThat(MemoryLimitTest.status((SQLException) t)).startsWith("RESOURCE_EXHAUSTED: ")
            .contains("limit of 16 MiB (--query-memory)");
      }
      assertThat(c.post("/api/query", Map.of("sql", PRUNING, "queryId", "small")).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aBodyOverTheStatementLimitIs413() throws Exception {
    String sql = "SELECT 1 -- " + "x".repeat((1 << 20) + 5_000);
    for (int i = 0; i < 3; i++) { // the answer arrives, not a reset connection
      HttpResponse<String> r = console.post("/api/query", Map.of("sql", sql, "queryId", "big"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
    }
    // without a Content-Length (chunked) too
    byte[] body = JSON.writeValueAsBytes(Map.of("sql", sql, "queryId", "big"));
    HttpResponse<String> chunked = console.http.send(console.request("/api/query").POST(HttpRequest.BodyPublishers
        .ofInputStream(() -> new java.io.ByteArrayInputStream(body))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(413);
  }

  // ---- requests that do not come from the console's page ----------------------------------------

  @Test
  void anApiCallWithoutTheCsrfHeaderIs403() throws Exception {
    long plans = server.plansBuilt();
    HttpResponse<String> r = console.http.send(HttpRequest.newBuilder(URI.create(console.base).resolve("/api/query"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"sql\":\"SELECT 1\"}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
    HttpResponse<String> wrong = console.http.send(HttpRequest.newBuilder(URI.create(console.base).resolve("/api/info"))
        .header("X-Quiver-Csrf", console.csrf + "x").build(), HttpResponse.BodyHandlers.ofString());
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(server.plansBuilt()).as("nothing was planned").isEqualTo(plans);
    assertThat(console.get("/api/info").statusCode()).isEqualTo(200);
  }

  @Test
  void aForeignHostHeaderIs403() throws Exception {
    int port = console.port();
    assertThat(raw(port, "GET", "/api/info", "evil.example:" + port, console.csrf)).startsWith("HTTP/1.1 403");
    assertThat(raw(port, "GET", "/", "evil.example", null)).startsWith("HTTP/1.1 403");
    assertThat(raw(port, "GET", "/api/info", "localhost:" + port, console.csrf)).startsWith("HTTP/1.1 200");
  }

  @Test
  void noPathLeavesTheStaticFolder() throws Exception {
    int port = console.port();
    String host = "127.0.0.1:" + port;
    assertThat(raw(port, "GET", "/static/index.html", host, null)).startsWith("HTTP/1.1 200");
    for (String target : new String[] {"/static/../console/index.html", "/static/..%2Fconsole%2Findex.html",
        "/static/%2e%2e/simplelogger.properties", "/static/../simplelogger.properties",
        "/static/../dev/quiver/server/Main.class", "/static//etc/passwd", "/static/.%2e/.%2e/pom.xml",
        "/api/bench/../console/index.html"}) {
      assertThat(raw(port, "GET", target, host, null)).as(target).startsWith("HTTP/1.1 404");
    }
  }

  @Test
  void everyResponseCarriesTheContentSecurityPolicy() throws Exception {
    for (String path : new String[] {"/", "/static/index.html", "/api/info", "/api/nothing"}) {
      HttpResponse<String> r = console.get(path);
      assertThat(r.headers().firstValue("Content-Security-Policy")).as(path).hasValue(
          "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'");
      assertThat(r.headers().firstValue("X-Content-Type-Options")).as(path).hasValue("nosniff");
      assertThat(r.headers().firstValue("Referrer-Policy")).as(path).hasValue("no-referrer");
      assertThat(r.headers().firstValue("Set-Cookie")).as(path).isEmpty();
    }
  }

  @Test
  void infoNamesTheSamples() throws Exception {
    JsonNode info = json(console.get("/api/info"));
    assertThat(info.get("authRequired").asBoolean()).isFalse();
    assertThat(info.get("user").isNull()).isTrue();
    assertThat(info.get("samples").findValuesAsText("sql")).contains(PRUNING);
  }

  @Test
  void everySampleRunsAndAgreesWithJdbc() throws Exception {
    JsonNode samples = json(console.get("/api/info")).get("samples");
    assertThat(samples.size()).isGreaterThanOrEqualTo(4);
    try (Connection c = server.jdbc()) {
      for (JsonNode sample : samples) {
        String sql = sample.get("sql").asText();
        HttpResponse<String> r = console.post("/api/query", Map.of("sql", sql, "queryId", "sample"));
        assertThat(r.statusCode()).as(sql + "\n" + r.body()).isEqualTo(200);
        java.util.List<java.util.List<Object>> expected = TestServer.rows(c, sql);
        JsonNode run = json(r);
        assertThat(run.get("rowCount").asLong()).as(sql).isEqualTo(expected.size());
        if (sql.startsWith("SELECT count(*)")) {
          assertThat(run.get("rows").get(0).get(0).asLong()).as(sql).isEqualTo(((Number) expected.get(0).get(0)).longValue());
        }
      }
    }
  }

  @Test
  void theBenchmarkResultsAreServedFromTheJar() throws Exception {
    JsonNode list = json(console.get("/api/bench"));
    assertThat(list.findValuesAsText("name")).contains("pruning.md", "pruning.svg", "tpch.md");
    HttpResponse<String> md = console.get("/api/bench/pruning.md");
    assertThat(md.statusCode()).isEqualTo(200);
    assertThat(md.headers().firstValue("Content-Type")).hasValue("text/markdown; charset=utf-8");
    assertThat(md.body()).isEqualTo(Files.readString(Path.of("../bench/results/pruning.md")));
    HttpResponse<String> svg = console.get("/api/bench/pruning.svg");
    assertThat(svg.headers().firstValue("Content-Type")).hasValue("image/svg+xml");
    assertThat(svg.body()).contains("<svg");
    assertThat(console.get("/api/bench/no-such.md").statusCode()).isEqualTo(404);
  }

  // ---- users, TLS, lifecycle -------------------------------------------------------------------

  @Test
  void withUsersEveryCallButInfoAndLoginNeedsAToken() throws Exception {
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0)
        .withUsers(Users.none().with("alice", "s3cret").with("bob", "hunter2")).withConsole("127.0.0.1", 0);
    try (TestServer secured = TestServer.start(config)) {
      Console c = new Console(secured.consoleUrl(), HttpClient.newHttpClient());
      JsonNode info = json(c.get("/api/info"));
      assertThat(info.get("authRequired").asBoolean()).isTrue();
      assertThat(info.get("user").isNull()).isTrue();
      HttpResponse<String> anonymous = c.post("/api/query", Map.of("sql", "SELECT 1", "queryId", "a"));
      assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(401);
      assertThat(c.get("/api/tables").statusCode()).isEqualTo(401);
      HttpResponse<String> wrong = c.post("/api/login", Map.of("user", "alice", "password", "wrong"));
      assertThat(wrong.statusCode()).as(wrong.body()).isEqualTo(401);
      assertThat(json(wrong).get("error").get("status").asText()).isEqualTo("UNAUTHENTICATED");
      c.token = "made-up";
      assertThat(c.get("/api/tables").statusCode()).isEqualTo(401);
      c.token = null;
      HttpResponse<String> login = c.post("/api/login", Map.of("user", "alice", "password", "s3cret"));
      assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
      c.token = json(login).get("token").asText();
      assertThat(json(c.get("/api/info")).get("user").asText()).isEqualTo("alice");
      HttpResponse<String> r = c.post("/api/query", Map.of("sql", PRUNING, "queryId", "a"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(c.get("/api/tables").statusCode()).isEqualTo(200);

      // only the same user's queries can be cancelled
      CompletableFuture<HttpResponse<String>> held = c.http.sendAsync(
          c.postRequest("/api/query", Map.of("sql", LONG, "queryId", "alices")), HttpResponse.BodyHandlers.ofString());
      awaitRunning(secured, 1);
      Console bob = new Console(secured.consoleUrl(), HttpClient.newHttpClient());
      bob.token = json(bob.post("/api/login", Map.of("user", "bob", "password", "hunter2"))).get("token").asText();
      assertThat(json(bob.post("/api/cancel", Map.of("queryId", "alices"))).get("cancelled").asBoolean()).isFalse();
      assertThat(json(c.post("/api/cancel", Map.of("queryId", "alices"))).get("cancelled").asBoolean()).isTrue();
      assertThat(held.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(499);
      awaitRunning(secured, 0);
    }
  }

  @Test
  void withTlsTheConsoleIsHttpsWithTheSameCertificate() throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create(Files.createDirectories(dir.resolve("tls")));
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0)
        .withTls(cert.cert(), cert.key()).withConsole("127.0.0.1", 0);
    try (TestServer secured = TestServer.start(config)) {
      assertThat(secured.consoleUrl()).startsWith("https://127.0.0.1:");
      java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      try (InputStream in = Files.newInputStream(cert.cert())) {
        trust.setCertificateEntry("quiver", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
      javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
          javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      Console c = new Console(secured.consoleUrl(), HttpClient.newBuilder().sslContext(ssl).build());
      HttpResponse<String> r = c.post("/api/query", Map.of("sql", PRUNING, "queryId", "tls"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      // plain HTTP to the HTTPS port gets no answer
      String plain = secured.consoleUrl().replace("https:", "http:");
      assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(plain))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
    }
  }

  /** An SSL context trusting {@code serverCert}, presenting {@code client} (null: no client certificate). */
  static javax.net.ssl.SSLContext ssl(Path serverCert, SelfSignedCertificate client) throws Exception {
    java.security.cert.CertificateFactory x509 = java.security.cert.CertificateFactory.getInstance("X.509");
    java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(serverCert)) {
      trust.setCertificateEntry("server", x509.generateCertificate(in));
    }
    javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
        javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    javax.net.ssl.KeyManager[] keys = null;
    if (client != null) {
      String pem = Files.readString(client.key()).replaceAll("-----[A-Z ]+-----|\\s", "");
      java.security.PrivateKey key = java.security.KeyFactory.getInstance("RSA")
          .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(java.util.Base64.getDecoder().decode(pem)));
      java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      try (InputStream in = Files.newInputStream(client.cert())) {
        ks.setKeyEntry("client", key, new char[0], new java.security.cert.Certificate[] {x509.generateCertificate(in)});
      }
      javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(
          javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, new char[0]);
      keys = kmf.getKeyManagers();
    }
    javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
    ssl.init(keys, tmf.getTrustManagers(), null);
    return ssl;
  }

  @Test
  void withMutualTlsTheConsoleWantsAClientCertificateToo() throws Exception {
    SelfSignedCertificate server = SelfSignedCertificate.create(Files.createDirectories(dir.resolve("mtls-server")));
    SelfSignedCertificate client = SelfSignedCertificate.create(Files.createDirectories(dir.resolve("mtls-client")));
    ServerConfig config = ServerConfig.of(SampleData.ensure().toString(), "127.0.0.1", 0)
        .withTls(server.cert(), server.key()).withClientCa(client.cert()).withConsole("127.0.0.1", 0);
    try (TestServer secured = TestServer.start(config)) {
      URI page = URI.create(secured.consoleUrl());
      assertThatThrownBy(() -> HttpClient.newBuilder().sslContext(ssl(server.cert(), null)).build()
          .send(HttpRequest.newBuilder(page).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(IOException.class);
      // a certificate the CA did not sign is refused too
      SelfSignedCertificate stranger = SelfSignedCertificate.create(Files.createDirectories(dir.resolve("mtls-stranger")));
      assertThatThrownBy(() -> HttpClient.newBuilder().sslContext(ssl(server.cert(), stranger)).build()
          .send(HttpRequest.newBuilder(page).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(IOException.class);
      Console c = new Console(secured.consoleUrl(), HttpClient.newBuilder().sslContext(ssl(server.cert(), client)).build());
      assertThat(c.get("/api/info").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void closingTheServerStopsTheConsole() throws Exception {
    String url;
    CompletableFuture<HttpResponse<String>> running;
    long t0;
    try (TestServer s = TestServer.startWithConsole(SampleData.ensure())) {
      url = s.consoleUrl();
      Console c = new Console(url, HttpClient.newHttpClient());
      // a query still running when the server closes is stopped, its memory released (else the close fails)
      running = c.http.sendAsync(c.postRequest("/api/query", Map.of("sql", LONG, "queryId", "at-close")),
          HttpResponse.BodyHandlers.ofString());
      awaitRunning(s, 1);
      t0 = System.nanoTime();
    }
    System.out.println("server with a running console query closed in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    assertThat((System.nanoTime() - t0) / 1_000_000).as("close waits for no query to end").isLessThan(10_000);
    assertThat(running.handle((r, e) -> r == null || r.statusCode() == 499).get(20, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> new Socket("127.0.0.1", URI.create(url).getPort()).close())
        .isInstanceOf(java.net.ConnectException.class);
    String threads = "quiver-console-" + URI.create(url).getPort() + "-";
    assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith(threads) && t.isAlive());
  }
}
