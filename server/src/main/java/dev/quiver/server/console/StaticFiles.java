package dev.quiver.server.console;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The console's files, read from the class path (the server jar): the page in {@code console/} and the
 * benchmark results in {@code console-bench/} ({@code bench/results/*} copied in at build time). Only plain
 * names are served ({@code [A-Za-z0-9_-]} and dots, not starting with a dot): no path, so no traversal.
 */
final class StaticFiles {
  static final String PAGE = "console/";
  static final String BENCH = "console-bench/";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");
  private static final Map<String, String> TYPES = Map.of(
      "html", "text/html; charset=utf-8",
      "js", "text/javascript; charset=utf-8",
      "css", "text/css; charset=utf-8",
      "svg", "image/svg+xml",
      "png", "image/png",
      "ico", "image/x-icon",
      "json", "application/json; charset=utf-8",
      "md", "text/markdown; charset=utf-8",
      "txt", "text/plain; charset=utf-8");

  private StaticFiles() {}

  /** Whether {@code name} is a plain file name this class may serve. */
  static boolean plainName(String name) {
    return name != null && NAME.matcher(name).matches() && !name.contains("..");
  }

  /** The bytes of {@code folder + name}; null if it is no plain name or no such file. */
  static byte[] read(String folder, String name) throws IOException {
    if (!plainName(name)) return null;
    try (InputStream in = StaticFiles.class.getClassLoader().getResourceAsStream(folder + name)) {
      return in == null ? null : in.readAllBytes();
    }
  }

  /** The content type of a file by its extension; {@code application/octet-stream} if unknown. */
  static String type(String name) {
    int dot = name.lastIndexOf('.');
    return dot < 0 ? "application/octet-stream" : TYPES.getOrDefault(name.substring(dot + 1), "application/octet-stream");
  }

  /** {@code index.html} with the CSRF placeholder {@code {{CSRF}}} filled in; null if there is none. */
  static byte[] page(String csrf) throws IOException {
    byte[] b = read(PAGE, "index.html");
    return b == null ? null : new String(b, StandardCharsets.UTF_8).replace("{{CSRF}}", csrf).getBytes(StandardCharsets.UTF_8);
  }

  /** The names of the benchmark result files in the jar (or in the classes folder), sorted. */
  static List<String> benchNames() throws IOException {
    URL url = StaticFiles.class.getClassLoader().getResource(BENCH);
    if (url == null) return List.of();
    List<String> names = new ArrayList<>();
    try {
      URI uri = url.toURI();
      if (uri.getScheme().equals("jar")) {
        FileSystem open = null;
        FileSystem fs;
        try {
          fs = open = FileSystems.newFileSystem(uri, Map.of());
        } catch (java.nio.file.FileSystemAlreadyExistsException e) { // someone else has the jar open: share it
          fs = FileSystems.getFileSystem(uri);
        }
        try (Stream<Path> s = Files.list(fs.getPath(BENCH))) {
          s.forEach(p -> names.add(p.getFileName().toString().replaceAll("/$", "")));
        } finally {
          if (open != null) open.close();
        }
      } else {
        try (Stream<Path> s = Files.list(Path.of(uri))) {
          s.forEach(p -> names.add(p.getFileName().toString()));
        }
      }
    } catch (java.net.URISyntaxException e) {
      throw new IOException("cannot list the benchmark results: " + e.getMessage(), e);
    }
    names.removeIf(n -> !plainName(n));
    names.sort(null);
    return names;
  }
}
