package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What tests of spilling operators share: a spill directory of their own for the class (the previous one restored
 * after), checked empty after every test, and queries run under an allocator with a given limit, closed after each
 * (a leak fails the test). Subclasses set {@link #engine} in a {@code @BeforeAll} of their own.
 */
abstract class SpillingQueries {
  @TempDir
  static Path spillDir;
  static Path before;
  static QueryEngine engine;

  @BeforeAll
  static void useOwnSpillDirectory() {
    before = SpillDirectory.get();
    SpillDirectory.set(spillDir);
  }

  @AfterAll
  static void restoreSpillDirectory() {
    SpillDirectory.set(before);
  }

  @AfterEach
  void spillFilesAreGone() throws IOException {
    try (Stream<Path> left = Files.list(spillDir)) {
      assertThat(left).isEmpty();
    }
  }

  /** The rows of {@code sql} run under a memory limit of {@code limit} bytes. */
  static List<List<Object>> run(String sql, long limit) {
    try (BufferAllocator allocator = new RootAllocator(limit)) {
      return TestTables.run(engine, allocator, sql);
    }
  }

  /** The text of {@code EXPLAIN ANALYZE sql} under a memory limit of {@code limit} bytes. */
  static String explain(String sql, long limit) {
    return String.join("\n", run("EXPLAIN ANALYZE " + sql, limit).stream().map(r -> String.valueOf(r.get(0))).toList());
  }
}
