package dev.quiver.planner.slt;

import dev.quiver.planner.QueryEngine;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** Scratch (not committed): runs the queries of /tmp/sub15/q.sql, printing plan and rows or the error. */
class Sub15DebugTest {
  @Test
  void run() throws Exception {
    SltFilesTest.engine = new QueryEngine(Catalog.open(SltFilesTest.TABLES.toString()));
    for (String sql : Files.readString(Path.of("/tmp/sub15/q.sql")).split("\n;\n")) {
      if (sql.isBlank()) continue;
      System.out.println("=== " + sql);
      try {
        var r = new SltFilesTest.Record("x", 0, "query", sql, java.util.List.of(), 0, 0);
        var o = SltFilesTest.rows(r, new RootAllocator());
        System.out.println(String.join("\n", o.lines()));
      } catch (Throwable t) {
        System.out.println(t); for (var st : t.getStackTrace()) { if (st.getClassName().startsWith("dev.quiver")) System.out.println("  at " + st); }
      }
    }
  }
}
