package dev.quiver.server;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Bounds the server's memory when {@code java -jar quiver-server.jar} was given no heap size. A JVM without
 * {@code -Xmx} takes a quarter of the machine for its heap and as much again for direct memory, and gives
 * little of it back: a server with {@code --server-memory 256m} reached 3.2 GB. So {@code main} starts the
 * server again in a child JVM sized from {@code --server-memory} ({@link #heapBytes}, {@link #directBytes}),
 * passes standard input and output through, forwards termination (a SIGTERM or Ctrl-C to the launcher stops
 * the child the same way) and exits with the child's status; the child stops if the launcher dies.
 * Whoever gives the JVM a heap size themselves ({@code -Xmx}, {@code -XX:MaxRAMPercentage}, …) gets one
 * process, sized as they said.
 */
final class Launcher {
  /** Set in the child: the launcher's process id. */
  static final String LAUNCHED = "quiver.launched";
  /** The heap and the direct memory each hold up to the server limit, plus this for the server itself. */
  static final long BASE = 256L << 20;
  /** Idle for this long, the JVM collects and returns free heap to the OS (G1; other collectors ignore it). */
  static final long PERIODIC_GC_MS = 30_000;

  private Launcher() {}

  /**
   * The heap: the working memory of hash tables, sorts and DISTINCT sets is on the heap and is reserved from
   * the server's limit, so all of {@code --server-memory} may be heap at once, plus the catalog, planning and
   * the transport's own objects.
   */
  static long heapBytes(long serverMemory) {
    return serverMemory + BASE;
  }

  /** Direct memory: Arrow buffers up to the server limit, plus the allocator's chunk slack and gRPC's buffers. */
  static long directBytes(long serverMemory) {
    return serverMemory + BASE;
  }

  /**
   * Flags that keep newer JVMs from warning on every start about what Arrow, Netty and Hadoop do: native access
   * (Java 22+: "A restricted method in java.lang.System has been called") and sun.misc.Unsafe's memory access
   * (Java 24+: "A terminally deprecated method in sun.misc.Unsafe has been called"). Each flag only where the
   * running Java knows it (an unknown flag stops a JVM from starting).
   */
  static List<String> quietFlags() {
    int feature = Runtime.version().feature();
    List<String> flags = new ArrayList<>();
    flags.add("--enable-native-access=ALL-UNNAMED");
    if (feature >= 23) flags.add("--sun-misc-unsafe-memory-access=allow");
    return flags;
  }

  /**
   * The shell ({@code quiver-server.jar sql}) on Java 24 or later, where it would print Unsafe's warnings before the
   * first answer: run it again in a child JVM with {@link #quietFlags()}, the terminal passed on. Answers the
   * child's exit status, or -1 when this JVM should run the shell itself.
   */
  static int relaunchQuietly(String[] args) throws java.io.IOException, InterruptedException {
    if (Runtime.version().feature() < 24 || System.getProperty(LAUNCHED) != null) return -1;
    List<String> jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
    if (jvmArgs.stream().anyMatch(a -> a.startsWith("--sun-misc-unsafe-memory-access"))) return -1;
    String javaCommand = ProcessHandle.current().info().command()
        .orElse(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(javaCommand, "--add-opens=java.base/java.nio=ALL-UNNAMED"));
    command.addAll(quietFlags());
    command.addAll(jvmArgs);
    command.add("-D" + LAUNCHED + "=" + ProcessHandle.current().pid());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    Process child = new ProcessBuilder(command).inheritIO().start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (child.isAlive()) child.destroy();
    }));
    try { // Ctrl-C reaches the child too (one process group): sqlline cancels the statement there; this JVM stays
      sun.misc.Signal.handle(new sun.misc.Signal("INT"), signal -> { });
    } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError noSignals) {
      // no SIGINT here: nothing to ignore
    }
    return child.waitFor();
  }

  /** True unless this JVM is the child already, or its heap was sized on its command line. */
  static boolean shouldRelaunch() {
    if (System.getProperty(LAUNCHED) != null) return false;
    List<String> jvmArgs = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
    for (String env : new String[] {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"}) {
      String v = System.getenv(env);
      if (v != null) jvmArgs.addAll(List.of(v.trim().split("\\s+")));
    }
    for (String a : jvmArgs) {
      if (a.startsWith("-Xmx") || a.startsWith("-XX:MaxHeapSize") || a.startsWith("-XX:MaxRAM")) return false;
    }
    return true;
  }

  /** Runs the server in a child JVM with a bounded heap and direct memory; answers its exit status. */
  static int relaunch(String[] args, long serverMemory) throws java.io.IOException, InterruptedException {
    String javaCommand = ProcessHandle.current().info().command()
        .orElse(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(javaCommand, "-Xmx" + mib(heapBytes(serverMemory)),
        "-XX:MaxDirectMemorySize=" + mib(directBytes(serverMemory)), "-XX:G1PeriodicGCInterval=" + PERIODIC_GC_MS,
        "--add-opens=java.base/java.nio=ALL-UNNAMED"));
    command.addAll(quietFlags());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments()); // the caller's own flags win
    command.add("-D" + LAUNCHED + "=" + ProcessHandle.current().pid());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    // glibc gives each thread that mallocs its own arena (up to 8 per core), each holding freed memory: with
    // 64 clients' threads that was a few hundred MB of RSS nobody uses
    builder.environment().putIfAbsent("MALLOC_ARENA_MAX", "2");
    Process child = builder.start();
    Thread stop = new Thread(() -> { // SIGTERM, SIGINT, SIGHUP to the launcher: stop the child the same way
      if (!child.isAlive()) return;
      child.destroy();
      try {
        if (!child.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) child.destroyForcibly();
      } catch (InterruptedException e) {
        child.destroyForcibly();
      }
    });
    Runtime.getRuntime().addShutdownHook(stop);
    return child.waitFor();
  }

  /** In the child: stop when the launcher is gone (killed without a chance to stop us). */
  static void watchLauncher() {
    String pid = System.getProperty(LAUNCHED);
    if (pid == null) return;
    try {
      ProcessHandle.of(Long.parseLong(pid)).ifPresent(launcher -> launcher.onExit().thenRun(() -> {
        System.err.println("quiver: the launching process " + pid + " ended; stopping");
        System.exit(1);
      }));
    } catch (NumberFormatException ignored) {
      // not ours to watch
    }
  }

  /** One line for the banner: what bounds this process's memory. */
  static String memoryLine(long serverMemory) {
    long heap = Runtime.getRuntime().maxMemory();
    long direct = io.netty.util.internal.PlatformDependent.maxDirectMemory();
    String line = String.format(Locale.ROOT, "Memory:   queries %d MiB (--server-memory), Java heap %d MiB, direct %d MiB%s",
        serverMemory >> 20, heap >> 20, direct >> 20, System.getProperty(LAUNCHED) != null ? ""
            : " (as this JVM was started; without -Xmx the launcher sizes both from --server-memory)");
    if (direct < serverMemory) {
      line += "\nwarning: the JVM's direct memory (" + (direct >> 20) + " MiB, -XX:MaxDirectMemorySize) is below "
          + "--server-memory: Arrow allocations fail before the server's limit is reached";
    }
    return line;
  }

  private static String mib(long bytes) {
    return ((bytes + (1 << 20) - 1) >> 20) + "m";
  }
}
