package dev.quiver.server;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code quiver-server.jar sql}: sqlline 1.12.0 with the Flight SQL JDBC driver, connected to a running
 * Quiver; {@code -e "SQL"} runs one statement and exits.
 */
public final class Shell {
  private Shell() {}

  public static void main(String[] args) throws Exception {
    String host = "127.0.0.1";
    int port = 31337;
    boolean tls = false;
    String user = "";
    String password = "";
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--host" -> host = args[++i];
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--tls" -> tls = true;
        case "--user" -> user = args[++i];
        case "--password" -> password = args[++i];
        default -> rest.add(args[i]);
      }
    }
    List<String> command = new ArrayList<>(List.of("-d", "org.apache.arrow.driver.jdbc.ArrowFlightJdbcDriver",
        "-u", url(host, port, tls), "-n", user, "-p", password, "--maxWidth=200", "--showHeader=true"));
    command.addAll(rest);
    sqlline.SqlLine.main(command.toArray(new String[0]));
  }

  static String url(String host, int port, boolean tls) {
    return "jdbc:arrow-flight-sql://" + host + ":" + port + "/?useEncryption=" + tls
        + (tls ? "&disableCertificateVerification=true" : "");
  }
}
