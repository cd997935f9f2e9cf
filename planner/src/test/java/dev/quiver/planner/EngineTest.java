package dev.quiver.planner;

import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture planner tests share: a {@link QueryEngine} over {@link TestTables} written once per test class, and
 * an allocator per test whose close fails the test if a query leaked a buffer.
 */
abstract class EngineTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void setUpEngine() throws Exception {
    engine = new QueryEngine(TestTables.create(dir));
  }

  @AfterEach
  void closeAllocator() {
    allocator.close();
  }
}
