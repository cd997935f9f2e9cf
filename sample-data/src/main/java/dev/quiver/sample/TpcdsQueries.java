package dev.quiver.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The TPC-DS query texts bundled as {@code tpcds/qNN.sql} resources (see {@code tpcds/README.md}): the 99
 * queries as 103 texts, 14, 23, 24 and 39 in parts a and b.
 */
public final class TpcdsQueries {
  private static final Set<Integer> TWO_PARTS = Set.of(14, 23, 24, 39);

  private TpcdsQueries() {}

  /** q01 ... q99 in order, q14a, q14b etc. in place of q14. */
  public static List<String> names() {
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= 99; i++) {
      String n = String.format("q%02d", i);
      if (TWO_PARTS.contains(i)) {
        out.add(n + "a");
        out.add(n + "b");
      } else {
        out.add(n);
      }
    }
    return List.copyOf(out);
  }

  /** The text of query {@code name} (e.g. {@code q14a}), without a trailing semicolon. */
  public static String sql(String name) {
    try (InputStream in = TpcdsQueries.class.getResourceAsStream("/tpcds/" + name + ".sql")) {
      if (in == null) throw new IllegalArgumentException("no TPC-DS query " + name + " (resource /tpcds/" + name + ".sql)");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
