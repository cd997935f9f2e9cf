package dev.quiver.planner;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.sql.SqlPositions;
import dev.quiver.planner.sql.Statement;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * {@code SHOW TABLES}, {@code SHOW SCHEMAS}, {@code SHOW COLUMNS FROM t} and {@code DESCRIBE t} as the query they
 * stand for: a {@code VALUES} list of the snapshot's names and types, planned and run like any query (so every
 * client, the console and EXPLAIN see them alike). Columns as DuckDB names them: {@code name};
 * {@code schema_name}; {@code column_name, column_type, null} (YES or NO).
 */
final class CatalogQueries {
  /** Quiver's one schema (catalog {@code quiver}). */
  static final String SCHEMA = "main";

  private CatalogQueries() {}

  static String query(Catalog snapshot, Statement.Catalog c, String sql) {
    return switch (c.what()) {
      // the schemas Flight's GetDbSchemas lists (information_schema.schemata also names information_schema itself)
      case SCHEMAS -> "SELECT '" + SCHEMA + "' AS schema_name";
      case TABLES -> {
        List<String> names = new ArrayList<>();
        for (ParquetTable t : snapshot.tables()) names.add(t.name());
        names.sort(String.CASE_INSENSITIVE_ORDER);
        if (names.isEmpty()) yield "SELECT CAST(NULL AS VARCHAR) AS name WHERE FALSE";
        List<String> rows = new ArrayList<>();
        for (String n : names) rows.add("(" + literal(n) + ")");
        yield "SELECT name FROM (VALUES " + String.join(", ", rows) + ") AS tables(name) ORDER BY lower(name), name";
      }
      case COLUMNS -> {
        String name = unquote(c.table());
        ParquetTable table = snapshot.table(name);
        if (table == null) {
          throw new QuiverException(ErrorCode.NOT_FOUND, "table " + SqlPositions.snippet(name) + " does not exist at "
              + SqlPositions.at(sql, c.tableAt()));
        }
        List<String> rows = new ArrayList<>();
        int ordinal = 0;
        for (Field f : table.schema().getFields()) {
          rows.add("(" + ordinal++ + ", " + literal(f.getName()) + ", " + literal(SqlTypes.sqlName(f.getType())) + ", "
              + literal(f.isNullable() ? "YES" : "NO") + ")");
        }
        for (var u : new java.util.TreeMap<>(table.unsupportedColumns()).entrySet()) {
          rows.add("(" + ordinal++ + ", " + literal(u.getKey()) + ", " + literal("UNSUPPORTED (" + u.getValue() + ")")
              + ", 'YES')");
        }
        if (rows.isEmpty()) {
          yield "SELECT CAST(NULL AS VARCHAR) AS column_name, CAST(NULL AS VARCHAR) AS column_type, "
              + "CAST(NULL AS VARCHAR) AS \"null\" WHERE FALSE";
        }
        yield "SELECT column_name, column_type, \"null\" FROM (VALUES " + String.join(", ", rows)
            + ") AS columns(ordinal, column_name, column_type, \"null\") ORDER BY ordinal";
      }
    };
  }

  private static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private static String unquote(String name) {
    if (name.length() >= 2 && (name.startsWith("\"") && name.endsWith("\"") || name.startsWith("`") && name.endsWith("`"))) {
      return name.substring(1, name.length() - 1).replace("\"\"", "\"");
    }
    return name;
  }
}
