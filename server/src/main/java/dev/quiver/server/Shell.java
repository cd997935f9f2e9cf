package dev.quiver.server;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code quiver-server.jar sql}: sqlline 1.12.0 with the Flight SQL JDBC driver, connected to a running
 * Quiver; {@code -e "SQL"} runs one statement and exits (status 0, or 2 if it failed). A person sees one
 * clear line per problem: no library logging (jline, the driver's allocator), a server that cannot be
 * reached or a certificate that is not trusted is one line naming it, and an error under {@code -e} is
 * sqlline's one line, as interactively (sqlline prints a stack trace for errors before its prompt is up).
 * {@code --tls} verifies the server's certificate: against the system's trust store, or the PEM file of
 * {@code --tls-ca}; only {@code --tls-insecure} turns verification off.
 */
public final class Shell {
  private Shell() {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args));
  }

  /** Runs the shell; answers the exit status: 0 ok, 1 bad arguments, 2 an error. */
  static int run(String[] args) throws Exception {
    String host = "127.0.0.1";
    int port = 31337;
    boolean tls = false;
    boolean insecure = false;
    String ca = null;
    String user = "";
    String password = "";
    boolean verbose = false;
    boolean batch = false;
    List<String> rest = new ArrayList<>();
    try {
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--host" -> host = value(args, ++i);
          case "--port" -> port = Integer.parseInt(value(args, ++i));
          case "--tls" -> tls = true;
          case "--tls-ca" -> {
            ca = value(args, ++i);
            tls = true;
          }
          case "--tls-insecure" -> {
            insecure = true;
            tls = true;
          }
          case "--user" -> user = value(args, ++i);
          case "--password" -> password = value(args, ++i);
          default -> {
            if (args[i].equals("--verbose") || args[i].equals("--verbose=true")) verbose = true;
            if (args[i].equals("-e") || args[i].equals("-f") || args[i].startsWith("--run=")) batch = true;
            rest.add(args[i]);
          }
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("quiver sql: " + e.getMessage());
      return 1;
    }
    Logging.shellProcess(verbose);
    if (ca != null && !java.nio.file.Files.isReadable(java.nio.file.Path.of(ca))) {
      System.err.println("quiver sql: cannot read the CA certificate file " + ca + " (--tls-ca)");
      return 2;
    }
    if (ca != null && !insecure) {
      try {
        List<String> dates = CertificateDates.problems(java.nio.file.Path.of(ca), java.time.Instant.now());
        if (!dates.isEmpty()) {
          System.err.println("quiver sql: " + dates.get(0) + " (--tls-ca): renew the certificate, or --tls-insecure to skip"
              + " verification");
          return 2;
        }
      } catch (java.io.IOException e) {
        System.err.println("quiver sql: " + e.getMessage() + " (--tls-ca)");
        return 2;
      }
    }
    String url = url(host, port, tls, ca, insecure);
    String problem = probe(url, user, password, host, port, tls);
    if (problem != null) {
      System.err.println("quiver sql: " + problem);
      return 2;
    }
    List<String> command = new ArrayList<>(List.of("-d", "org.apache.arrow.driver.jdbc.ArrowFlightJdbcDriver",
        "-u", url, "-n", user, "-p", password, "--maxWidth=" + MAX_WIDTH, "--showHeader=true",
        "--isolation=TRANSACTION_NONE")); // Quiver has no transactions
    if (batch) command.add("--silent=true"); // no banner and timing around the answer
    command.addAll(rest);
    errorsOnOneLine();
    sqlline.SqlLine shell = new sqlline.SqlLine();
    shell.setErrorStream(new java.io.PrintStream(new DropLines(System.err), true, java.nio.charset.StandardCharsets.UTF_8));
    sqlline.SqlLine.Status status = shell.begin(command.toArray(new String[0]), null, !batch);
    return status.ordinal(); // OK 0, ARGS 1, OTHER 2, as sqlline's own main
  }

  /**
   * sqlline's error stream without its complaint, at every connect, that the driver supports no isolation
   * level: Quiver is read-only and has no transactions; there is nothing to act on.
   */
  private static final class DropLines extends java.io.OutputStream {
    private final java.io.PrintStream out;
    private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

    DropLines(java.io.PrintStream out) {
      this.out = out;
    }

    @Override
    public synchronized void write(int b) {
      line.write(b);
      if (b == '\n') flushLine();
    }

    @Override
    public synchronized void flush() {
      out.flush();
    }

    private void flushLine() {
      String text = line.toString(java.nio.charset.StandardCharsets.UTF_8);
      line.reset();
      if (!text.startsWith("Transaction isolation level ")) out.print(text);
    }

    @Override
    public synchronized void close() {
      if (line.size() > 0) flushLine();
      out.flush();
    }
  }

  /**
   * Table output is cut at this many characters: so large that nothing is cut (EXPLAIN ANALYZE's lines, with the
   * scan's pruning counts at their end, were cut at 200 characters or the terminal's width, as psql and DuckDB's
   * shell never do); {@code --maxWidth=N} after it still sets another.
   */
  static final int MAX_WIDTH = 1_000_000;

  private static String value(String[] args, int i) {
    if (i >= args.length) throw new IllegalArgumentException("option " + args[i - 1] + " needs a value");
    return args[i];
  }

  /**
   * sqlline shows a stack trace for every error until its prompt is up ("all init errors must be verbose"),
   * and runs {@code -e} statements before that: a syntax error was 30 lines. Marked up, errors are one line
   * ({@code --verbose=true} still shows the trace).
   */
  private static void errorsOnOneLine() {
    try {
      java.lang.reflect.Field f = sqlline.SqlLine.class.getDeclaredField("initComplete");
      f.setAccessible(true);
      f.setBoolean(null, true);
    } catch (ReflectiveOperationException | RuntimeException ignored) {
      // another sqlline version: its errors as they are
    }
  }

  /** Connects once: null if the server answers, else one line saying why not. */
  static String probe(String url, String user, String password, String host, int port, boolean tls) {
    try {
      Class.forName("org.apache.arrow.driver.jdbc.ArrowFlightJdbcDriver");
    } catch (ClassNotFoundException e) {
      return "the Flight SQL JDBC driver is not on the class path";
    }
    java.util.Properties p = new java.util.Properties();
    p.setProperty("user", user); // as sqlline connects: empty ones too
    p.setProperty("password", password);
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url, p);
        java.sql.ResultSet rs = c.getMetaData().getCatalogs()) { // a round trip: the driver connects lazily
      return null;
    } catch (java.sql.SQLException | RuntimeException e) {
      String where = "cannot connect to " + host + ":" + port + ": ";
      List<Throwable> chain = new ArrayList<>();
      for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) chain.add(t);
      for (Throwable t : chain) {
        if (t instanceof java.net.ConnectException) return where + "connection refused (is the server running?)";
        if (t instanceof java.net.UnknownHostException) return where + "unknown host";
      }
      for (Throwable t : chain) {
        if (t instanceof java.security.cert.CertificateExpiredException
            || t instanceof java.security.cert.CertPathValidatorException v
            && v.getReason() == java.security.cert.CertPathValidatorException.BasicReason.EXPIRED) {
          return where + "the server's certificate has expired (" + t.getMessage() + ")";
        }
        if (t instanceof java.security.cert.CertificateNotYetValidException
            || t instanceof java.security.cert.CertPathValidatorException v
            && v.getReason() == java.security.cert.CertPathValidatorException.BasicReason.NOT_YET_VALID) {
          return where + "the server's certificate is not valid yet (" + t.getMessage() + ")";
        }
      }
      for (Throwable t : chain) {
        String m = String.valueOf(t.getMessage());
        if (t instanceof java.security.cert.CertificateException || t instanceof java.security.cert.CertPathValidatorException
            || m.contains("PKIX path") || m.contains("certification path")) {
          return where + "the server's certificate is not trusted (give --tls-ca with the server's certificate or"
              + " its CA, or --tls-insecure to skip verification)";
        }
      }
      for (Throwable t : chain) {
        String m = String.valueOf(t.getMessage());
        if (m.contains("not an SSL/TLS record")) return where + "the server does not speak TLS (leave out --tls)";
        if (t instanceof javax.net.ssl.SSLException) return where + "TLS failed: " + m;
        if (m.contains("UNAUTHENTICATED")) return where + "authentication failed (--user, --password)";
      }
      String m = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage() : e.getMessage();
      m = m == null ? e.getClass().getSimpleName() : m.replaceAll("^\\S*FlightRuntimeException: ", "");
      m = m.lines().findFirst().orElse(m);
      boolean closed = false;
      for (Throwable t : chain) closed |= String.valueOf(t.getMessage()).contains("Network closed for unknown reason");
      // a plaintext client at a TLS port: the server drops the connection without a word
      if (!tls && (m.contains("UNAVAILABLE") || closed)) m += " (if the server uses TLS, give --tls)";
      return where + m;
    }
  }

  static String url(String host, int port, boolean tls) {
    return url(host, port, tls, null, false);
  }

  /** The JDBC URL: TLS verifies the server against {@code ca} (a PEM file) or the system's trust store. */
  static String url(String host, int port, boolean tls, String ca, boolean insecure) {
    return "jdbc:arrow-flight-sql://" + host + ":" + port + "/?useEncryption=" + tls
        + (tls && insecure ? "&disableCertificateVerification=true" : "")
        + (tls && ca != null && !insecure ? "&tlsRootCerts=" + escape(ca) : "");
  }

  /** A query-string value: the driver decodes the URL's query, so characters that would split it are escaped. */
  private static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (char ch : s.toCharArray()) {
      if (ch == '%' || ch == '&' || ch == '=' || ch == '#' || ch == '+' || ch == ' ' || ch == '?') {
        b.append(String.format("%%%02X", (int) ch));
      } else {
        b.append(ch);
      }
    }
    return b.toString();
  }
}
