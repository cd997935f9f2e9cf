package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.table.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plan cache is bounded in entries and age, hands each plan out once, and refuses plans of changed files. */
class PlanCacheTest {
  @TempDir
  Path dir;

  @Test
  void boundedTakenOnceAndCheckedAgainstTheFiles() throws Exception {
    QueryEngine engine = new QueryEngine(TestTables.create(dir));
    QuerySettings s = QuerySettings.DEFAULT;
    try (BufferAllocator allocator = new RootAllocator()) {
      PreparedQuery q = engine.prepare("SELECT count(*) FROM t", allocator);
      PlanCache cache = new PlanCache(2, 60_000_000_000L);
      cache.put("a", s, q);
      cache.put("b", s, q);
      cache.put("c", s, q); // the eldest, "a", goes
      assertThat(cache.size()).isEqualTo(2);
      Catalog now = engine.snapshot();
      assertThat(cache.take("a", s, now)).isNull();
      assertThat(cache.take("b", s.withBatchRows(7), now)).isNull(); // other settings: another key
      assertThat(cache.peek("b", s, now)).isSameAs(q);
      assertThat(cache.take("b", s, now)).isSameAs(q);
      assertThat(cache.take("b", s, now)).isNull(); // taken once

      // a file of t changes (a new modification time): the plan is not used
      Path file = dir.resolve("t.parquet");
      Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));
      assertThat(cache.take("c", s, engine.snapshot())).isNull();

      PlanCache young = new PlanCache(10, 1); // 1 ns: every entry is too old when asked for
      young.put("a", s, engine.prepare("SELECT 1", allocator));
      Thread.sleep(1);
      assertThat(young.take("a", s, engine.snapshot())).isNull();
      assertThat(young.size()).isZero();
    }
  }
}
