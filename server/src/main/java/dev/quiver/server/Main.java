package dev.quiver.server;

import dev.quiver.sample.SampleData;
import java.nio.file.Path;

/** {@code java -jar quiver-server.jar [--data DIR] [--host HOST] [--port PORT] [--query-memory BYTES]}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    String data = null;
    String host = "127.0.0.1";
    int port = 31337;
    long memory = QuiverServer.DEFAULT_QUERY_MEMORY;
    boolean insecure = false;
    dev.quiver.planner.QuerySettings settings = dev.quiver.planner.QuerySettings.DEFAULT;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data" -> data = value(args, ++i);
        case "--host" -> host = value(args, ++i);
        case "--port" -> port = Integer.parseInt(value(args, ++i));
        case "--query-memory" -> memory = Long.parseLong(value(args, ++i));
        case "--insecure" -> insecure = true;
        case "--no-simplify" -> settings = settings.withSimplify(false);
        case "-h", "--help" -> {
          usage();
          return;
        }
        default -> {
          System.err.println("unknown option: " + args[i]);
          usage();
          System.exit(2);
        }
      }
    }
    if (!isLoopback(host) && !insecure) {
      System.err.println("refusing to listen on " + host + " without authentication; Quiver has none yet, "
          + "so pass --insecure to serve a non-loopback address anyway");
      System.exit(2);
    }
    if (data == null) {
      Path dir = SampleData.cacheRoot().resolve("sample-" + SampleData.VERSION);
      System.out.println("No --data given: serving the bundled sample data from " + dir
          + " (generating it on first use, about a minute)...");
      data = SampleData.ensure(dir).toString();
    }
    QuiverServer server = QuiverServer.start(data, host, port, memory, settings);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (Exception ignored) {
        // shutting down
      }
    }));
    System.out.println("Quiver is serving " + data + " on " + host + ":" + server.port());
    System.out.println("JDBC URL: " + server.jdbcUrl());
    server.awaitTermination();
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      System.err.println("option " + args[i - 1] + " needs a value");
      System.exit(2);
    }
    return args[i];
  }

  private static boolean isLoopback(String host) {
    return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
  }

  private static void usage() {
    System.out.println("usage: java -jar server/target/quiver-server.jar [--data DIR] [--host HOST] [--port PORT]"
        + " [--query-memory BYTES] [--no-simplify] [--insecure]");
    System.out.println("  --data DIR   serve DIR: each *.parquet file and each directory of Parquet files is a table");
    System.out.println("               (default: the bundled sample data, generated once into ~/.cache/quiver)");
    System.out.println("  --host HOST  address to listen on (default 127.0.0.1)");
    System.out.println("  --port PORT  port to listen on (default 31337)");
    System.out.println("  --no-simplify  plan without the expression simplifier (sessions: SET quiver.optimizer.simplify = true)");
  }
}
