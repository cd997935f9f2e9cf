package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quoted identifier is one name, dots and spaces included: a file {@code my.data.parquet} is table {@code my.data},
 * and {@code "my.data"} names it (JSqlParser split it into schema {@code my} and table {@code data}).
 */
class QuotedNamesTest {
  @TempDir
  Path dir;

  @Test
  void dottedAndSpacedTableAndColumnNamesResolve() throws Exception {
    Path src = dir.resolve("src");
    Files.createDirectories(src);
    TestTables.create(src);
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    Files.copy(src.resolve("bools.parquet"), data.resolve("my.data.parquet"));
    Files.copy(src.resolve("bools.parquet"), data.resolve("with space.parquet"));
    QueryEngine engine = new QueryEngine(dev.quiver.scan.table.Catalog.open(data.toString()));
    try (BufferAllocator allocator = new RootAllocator()) {
      for (String sql : List.of("SELECT count(*) FROM \"my.data\"", "SELECT count(*) FROM main.\"my.data\"",
          "SELECT count(*) FROM quiver.main.\"my.data\"", "SELECT count(*) FROM \"with space\"",
          "SELECT count(*) FROM \"my.data\" AS \"a.b\" WHERE \"a.b\".x", "SELECT count(*) FROM \"my.data\" WHERE \"my.data\".x")) {
        long expected = sql.contains("WHERE") ? 3 : 9; // bools: the nine pairs of TRUE / FALSE / NULL
        assertThat(TestTables.run(engine, allocator, sql).get(0).get(0)).as(sql).isEqualTo(expected);
      }
      // a dot in a string literal stays a dot
      assertThat(TestTables.run(engine, allocator, "SELECT 'a.b' || \"x.y\" FROM (SELECT 'c.d' AS \"x.y\") s")
          .get(0).get(0).toString()).isEqualTo("a.bc.d");
    }
  }
}
