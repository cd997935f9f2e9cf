package dev.quiver.server.console;

import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the data directory holds that is not served, with the reason ({@code GET /api/unserved}): files that are no
 * table (a CSV, a {@code notes.txt}), tables whose files cannot be read (not Parquet after all, truncated), and
 * columns Quiver cannot read yet (LIST, STRUCT, MAP). The server's log names the same at start-up.
 */
final class Unserved {
  static final String NOT_PARQUET = "not a *.parquet file: only *.parquet files, and directories of them, are tables";

  private Unserved() {}

  /**
   * {@code {"files": [{name, reason}], "tables": [{name, reason}], "columns": [{table, column, reason}]}}; an unreadable
   * table's reason as {@code reason} words it for a client (no path of the data directory).
   */
  static Map<String, Object> of(Catalog snapshot, java.util.function.Function<Throwable, String> reason) throws IOException {
    List<Map<String, Object>> files = new ArrayList<>();
    for (String name : snapshot.notTables()) files.add(entry("name", name, "reason", NOT_PARQUET));
    List<Map<String, Object>> tables = new ArrayList<>();
    List<Map<String, Object>> columns = new ArrayList<>();
    for (String name : snapshot.tableNames()) {
      ParquetTable t;
      try {
        t = snapshot.table(name);
      } catch (QuiverException e) {
        tables.add(entry("name", name, "reason", reason.apply(e)));
        continue;
      }
      if (t == null) continue; // deleted since listed
      new TreeMap<>(t.unsupportedColumns()).forEach((column, why) ->
          columns.add(entry("table", t.name(), "column", column, "reason", why)));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("files", files);
    out.put("tables", tables);
    out.put("columns", columns);
    return out;
  }

  private static Map<String, Object> entry(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }
}
