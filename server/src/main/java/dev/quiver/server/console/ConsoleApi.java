package dev.quiver.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.QuerySettings;
import dev.quiver.planner.profile.ProfileOptions;
import dev.quiver.planner.profile.ProfiledRun;
import dev.quiver.planner.profile.TableDescription;
import dev.quiver.planner.sql.Statement;
import dev.quiver.planner.sql.StatementClassifier;
import dev.quiver.server.ConsoleQueries;
import dev.quiver.server.ErrorMapping;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's requests: {@code GET /} (the page, its CSRF token filled in), {@code GET /static/<file>},
 * and the JSON API under {@code /api/} (see {@code docs/operations.md}). Every request's {@code Host} must
 * name the console ({@link ConsoleAuth}); every API call carries the CSRF header, and with users a bearer
 * token. Errors are JSON, their HTTP status derived from the Flight status {@link ErrorMapping} gives the
 * same error, with {@code line}/{@code column} from the message's {@code at line:column}.
 */
final class ConsoleApi implements HttpHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleApi.class);
  static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
      + "frame-ancestors 'none'";
  /** The most first rows a query returns to the console. */
  static final int MAX_ROWS = 10_000;
  static final int DEFAULT_ROWS = 200;
  /** Bytes of a request body beyond the SQL's limit: the JSON around it. */
  static final int BODY_SLACK = 4096;
  /** The most of a too-large body read (and dropped) so that the 413 reaches the client. */
  static final long DRAIN_BYTES = 64L << 20;
  private static final Pattern AT = Pattern.compile("\\bat (\\d+):(\\d+)\\b");

  private final ConsoleQueries queries;
  private final ConsoleAuth auth;
  private final Semaphore queryThreads;
  /** Password checks running at once, at most. */
  private final Semaphore logins = new Semaphore(2);
  private final List<String> bench;

  ConsoleApi(ConsoleQueries queries, ConsoleAuth auth, int queryThreads) {
    this.queries = queries;
    this.auth = auth;
    this.queryThreads = new Semaphore(queryThreads);
    this.bench = benchNames(); // the jar does not change while it runs
  }

  /** The benchmark result files; none (and a warning) if they cannot be listed: the console works without. */
  private static List<String> benchNames() {
    try {
      return StaticFiles.benchNames();
    } catch (IOException | RuntimeException e) {
      LOG.warn("console: no benchmark results: {}", e.toString());
      return List.of();
    }
  }

  /** An answer that is not 200: the status, the Flight status name, the ErrorCode name (or null), the message. */
  static final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int http;
    final String status;

    HttpError(int http, String status, String message) {
      super(message, null, false, false);
      this.http = http;
      this.status = status;
    }
  }

  /** Requests one client address may have in progress at once. */
  static final int PER_CLIENT = 16;
  private final java.util.concurrent.ConcurrentHashMap<java.net.InetAddress, java.util.concurrent.atomic.AtomicInteger>
      perClient = new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  public void handle(HttpExchange x) throws IOException {
    java.net.InetAddress client = x.getRemoteAddress() == null ? null : x.getRemoteAddress().getAddress();
    java.util.concurrent.atomic.AtomicInteger mine = client == null ? new java.util.concurrent.atomic.AtomicInteger()
        : perClient.computeIfAbsent(client, k -> new java.util.concurrent.atomic.AtomicInteger());
    int now = mine.incrementAndGet();
    try (x) {
      try {
        if (now > PER_CLIENT) {
          throw new HttpError(429, "RESOURCE_EXHAUSTED", "more than " + PER_CLIENT + " requests at once from one address");
        }
        route(x);
      } catch (HttpError e) {
        sendError(x, e.http, e.status, null, e.getMessage());
      } catch (Throwable t) {
        FlightRuntimeException f = queries.error(t);
        QuiverException q = quiverCause(f);
        sendError(x, ErrorMapping.httpStatus(f.status().code()), f.status().code().name(),
            q == null ? null : q.code().name(), f.status().description());
      }
    } catch (IOException e) { // the client went away
      LOG.debug("console: {}", e.toString());
    } finally {
      if (mine.decrementAndGet() == 0 && client != null) perClient.remove(client, mine);
    }
  }

  private void route(HttpExchange x) throws IOException {
    Headers h = x.getRequestHeaders();
    if (!auth.hostAllowed(h.getFirst("Host"))) {
      throw new HttpError(403, "UNAUTHORIZED", "the Host header does not name this console (use its printed URL)");
    }
    String path = x.getRequestURI().getRawPath();
    String method = x.getRequestMethod();
    if (!path.startsWith("/api/")) {
      if (!method.equals("GET") && !method.equals("HEAD")) throw notAllowed();
      if (path.equals("/") || path.equals("/index.html")) {
        byte[] page = StaticFiles.page(auth.csrf());
        if (page == null) throw new HttpError(404, "NOT_FOUND", "the console's page is not in this build");
        send(x, 200, "text/html; charset=utf-8", page);
      } else if (path.startsWith("/static/")) {
        serveFile(x, StaticFiles.PAGE, path.substring("/static/".length()));
      } else {
        throw new HttpError(404, "NOT_FOUND", "no such page");
      }
      return;
    }
    // benchmark results: public build output like /static/, loadable by <img src> (which sends no headers)
    if (path.startsWith("/api/bench/")) {
      if (!method.equals("GET") && !method.equals("HEAD")) throw notAllowed();
      serveFile(x, StaticFiles.BENCH, path.substring("/api/bench/".length()));
      return;
    }
    if (!auth.csrfValid(h.getFirst(ConsoleAuth.CSRF_HEADER))) {
      throw new HttpError(403, "UNAUTHORIZED", "missing or wrong " + ConsoleAuth.CSRF_HEADER
          + " header: console API calls come from the console's own page");
    }
    String user = queries.authRequired() ? auth.user(h.getFirst("Authorization")) : "";
    switch (path) {
      case "/api/info" -> {
        requireMethod(x, "GET");
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("version", version());
        info.put("authRequired", queries.authRequired());
        info.put("user", user == null || user.isEmpty() ? null : user);
        // generated samples name the tables: only for a user who may see them
        info.put("samples", user == null ? List.of() : Samples.of(queries.engine()));
        sendJson(x, 200, info);
        return;
      }
      case "/api/login" -> {
        requireMethod(x, "POST");
        JsonNode body = Json.readObject(body(x));
        if (!queries.authRequired()) {
          sendJson(x, 200, mapOf("token", null, "user", null));
          return;
        }
        // a password check costs ~0.1 s of CPU (PBKDF2): a few at once, so logins cannot take every thread
        if (!logins.tryAcquire()) {
          throw new HttpError(429, "RESOURCE_EXHAUSTED", "too many logins at once; try again in a moment");
        }
        String name;
        try {
          name = queries.login(Json.text(body, "user"), Json.text(body, "password"));
        } finally {
          logins.release();
        }
        sendJson(x, 200, mapOf("token", auth.issue(name), "user", name));
        return;
      }
      default -> { }
    }
    if (user == null) {
      throw new HttpError(401, "UNAUTHENTICATED", "log in first: this console needs a user name and password");
    }
    if (path.equals("/api/query") || path.equals("/api/compare")) {
      requireMethod(x, "POST");
      JsonNode body = Json.readObject(body(x));
      if (!queryThreads.tryAcquire()) {
        throw new HttpError(429, "RESOURCE_EXHAUSTED", "the console runs " + ConsoleServer.QUERY_THREADS
            + " queries already; try again when one has finished");
      }
      try {
        sendJson(x, 200, path.equals("/api/query") ? query(user, body) : compare(user, body));
      } finally {
        queryThreads.release();
      }
    } else if (path.equals("/api/cancel")) {
      requireMethod(x, "POST");
      String id = queryId(Json.readObject(body(x)), false);
      sendJson(x, 200, mapOf("cancelled", queries.cancel(user, id)));
    } else if (path.equals("/api/tables")) {
      requireMethod(x, "GET");
      List<Map<String, Object>> tables = new ArrayList<>();
      for (String name : queries.engine().tableNames()) {
        try {
          TableDescription t = queries.engine().describeTable(name);
          tables.add(mapOf("name", t.name(), "rows", t.rows(), "bytes", t.bytes(), "files", t.files().size()));
        } catch (QuiverException e) { // one unreadable table does not hide the others: it is listed with the reason
          tables.add(mapOf("name", name, "error", clientMessage(e)));
        }
      }
      sendJson(x, 200, tables);
    } else if (path.equals("/api/unserved")) {
      requireMethod(x, "GET");
      sendJson(x, 200, Unserved.of(queries.engine().snapshot(), this::clientMessage));
    } else if (path.startsWith("/api/tables/")) {
      requireMethod(x, "GET");
      String name = java.net.URLDecoder.decode(path.substring("/api/tables/".length()), java.nio.charset.StandardCharsets.UTF_8);
      sendJson(x, 200, queries.engine().describeTable(name));
    } else if (path.equals("/api/bench")) {
      requireMethod(x, "GET");
      List<Map<String, Object>> files = new ArrayList<>();
      for (String name : bench) {
        String kind = name.endsWith(".md") ? "markdown" : name.endsWith(".svg") ? "svg" : "text";
        files.add(mapOf("name", name, "kind", kind));
      }
      sendJson(x, 200, files);
    } else {
      throw new HttpError(404, "NOT_FOUND", "no such API call: " + path);
    }
  }

  /** {@code POST /api/query}: one profiled run under the user's limits. */
  private ProfiledRun query(String user, JsonNode body) {
    String sql = sql(body);
    String id = queryId(body, true);
    int maxRows = Json.integer(body, "maxRows", DEFAULT_ROWS);
    if (maxRows < 0) throw new QuiverException(ErrorCode.INVALID_QUERY, "\"maxRows\" must not be negative");
    QuerySettings settings = queries.defaults().withSimplify(Json.bool(body, "simplify", queries.defaults().simplify()));
    return run(user, id, sql, settings, new ProfileOptions(Math.min(maxRows, MAX_ROWS), Json.bool(body, "oracle", false)));
  }

  /** {@code POST /api/compare}: the same query with the simplifier on, then off (two queries, one after the other). */
  private Map<String, Object> compare(String user, JsonNode body) {
    String sql = sql(body);
    String id = queryId(body, true);
    boolean oracle = Json.bool(body, "oracle", false);
    ProfiledRun on = run(user, id, sql, queries.defaults().withSimplify(true), new ProfileOptions(0, oracle));
    ProfiledRun off = run(user, id, sql, queries.defaults().withSimplify(false), new ProfileOptions(0, oracle));
    return mapOf("on", withoutRows(on), "off", withoutRows(off));
  }

  private ProfiledRun run(String user, String id, String sql, QuerySettings settings, ProfileOptions options) {
    return queries.run(user, id, sql, settings, (allocator, cancellation) -> {
      Statement kind = StatementClassifier.classify(sql);
      if (kind instanceof Statement.Set || kind instanceof Statement.Show) {
        throw new QuiverException(ErrorCode.UNSUPPORTED, "the console runs queries only: SET and SHOW change or show"
            + " a SQL client's session settings (the console's simplifier switch is its checkbox)");
      }
      return queries.engine().runProfiled(sql, allocator, settings, cancellation, options);
    });
  }

  private static ProfiledRun withoutRows(ProfiledRun r) {
    return new ProfiledRun(r.columnNames(), r.columnTypes(), List.of(), r.rowCount(), r.truncated(), r.elapsedMs(),
        r.profile());
  }

  private static String sql(JsonNode body) {
    String sql = Json.text(body, "sql");
    if (sql == null || sql.isBlank()) throw new QuiverException(ErrorCode.INVALID_QUERY, "no SQL given (\"sql\")");
    return sql;
  }

  /** The client-chosen query id (at most 64 characters); a random one when optional and absent. */
  private static String queryId(JsonNode body, boolean optional) {
    String id = Json.text(body, "queryId");
    if (id == null || id.isEmpty()) {
      if (optional) return java.util.UUID.randomUUID().toString();
      throw new QuiverException(ErrorCode.INVALID_QUERY, "no \"queryId\" given");
    }
    if (id.length() > 64) throw new QuiverException(ErrorCode.INVALID_QUERY, "\"queryId\" is longer than 64 characters");
    return id;
  }

  /**
   * The request body, at most the statement limit plus {@link #BODY_SLACK} bytes; 413 beyond. A body too large
   * is read and dropped (up to {@link #DRAIN_BYTES}) before the answer: closing a connection with unread input
   * resets it, and the client would see the reset instead of the 413.
   */
  private byte[] body(HttpExchange x) throws IOException {
    long limit = queries.maxStatementBytes() + BODY_SLACK;
    String length = x.getRequestHeaders().getFirst("Content-Length");
    try (InputStream in = x.getRequestBody()) {
      if (length != null) {
        long declared;
        try {
          declared = Long.parseLong(length.strip());
        } catch (NumberFormatException e) {
          throw new HttpError(400, "INVALID_ARGUMENT", "bad Content-Length");
        }
        if (declared > limit) {
          drain(in, Math.min(declared, DRAIN_BYTES));
          throw tooLarge(limit);
        }
      }
      byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
      if (b.length > limit) {
        drain(in, DRAIN_BYTES);
        throw tooLarge(limit);
      }
      return b;
    }
  }

  /** Reads and drops up to {@code n} bytes, or until the end of {@code in}. */
  private static void drain(InputStream in, long n) throws IOException {
    byte[] buffer = new byte[64 << 10];
    long left = n;
    int r;
    while (left > 0 && (r = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) left -= r;
  }

  private static HttpError tooLarge(long limit) {
    return new HttpError(413, "RESOURCE_EXHAUSTED", "the request body is larger than " + limit
        + " bytes (--max-statement-bytes plus " + BODY_SLACK + ")");
  }

  private static HttpError notAllowed() {
    return new HttpError(405, "INVALID_ARGUMENT", "method not allowed here");
  }

  private static void requireMethod(HttpExchange x, String method) {
    if (!x.getRequestMethod().equals(method)) throw new HttpError(405, "INVALID_ARGUMENT", "use " + method + " here");
  }

  private void serveFile(HttpExchange x, String folder, String name) throws IOException {
    byte[] b = StaticFiles.read(folder, name);
    if (b == null) throw new HttpError(404, "NOT_FOUND", "no such file");
    send(x, 200, StaticFiles.type(name), b);
  }

  private static void sendJson(HttpExchange x, int status, Object value) throws IOException {
    send(x, status, "application/json; charset=utf-8", Json.write(value));
  }

  private static void sendError(HttpExchange x, int http, String status, String code, String message) throws IOException {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("code", code);
    e.put("status", status);
    e.put("message", message);
    Integer[] lc = lineColumn(message);
    e.put("line", lc == null ? null : lc[0]);
    e.put("column", lc == null ? null : lc[1]);
    if (http == 401) x.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"quiver\"");
    sendJson(x, http, Map.of("error", e));
  }

  /**
   * {@code line:column} of a message, as Quiver's errors give a position ({@code syntax error at 3:7: …}); null if
   * none (a bare {@code 12:30} may be a time in a literal, not a position).
   */
  static Integer[] lineColumn(String message) {
    if (message == null) return null;
    Matcher m = AT.matcher(message);
    if (!m.find()) return null;
    try {
      return new Integer[] {Integer.valueOf(m.group(1)), Integer.valueOf(m.group(2))};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
    Headers r = x.getResponseHeaders();
    r.set("Content-Type", type);
    r.set("Content-Security-Policy", CSP);
    r.set("X-Content-Type-Options", "nosniff");
    r.set("Referrer-Policy", "no-referrer");
    r.set("Cache-Control", "no-store");
    boolean head = x.getRequestMethod().equals("HEAD");
    x.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
    if (!head && body.length > 0) {
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static QuiverException quiverCause(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof QuiverException q) return q;
    }
    return null;
  }

  private static Map<String, Object> mapOf(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }

  private static String version() {
    String v = ConsoleApi.class.getPackage().getImplementationVersion();
    return v == null ? "development build" : v; // the jar's manifest has it; target/classes has none
  }

  /** An error's message as a Flight client gets it: files named relative to the data directory, no internals. */
  private String clientMessage(Throwable t) {
    String d = queries.error(t).status().description();
    return d == null ? String.valueOf(t.getMessage()) : d;
  }
}
