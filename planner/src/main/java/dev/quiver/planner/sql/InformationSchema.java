package dev.quiver.planner.sql;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The standard's {@code information_schema} views, as PostgreSQL, DuckDB and Trino users look around with them:
 * {@code schemata}, {@code tables} and {@code columns}, each the {@code VALUES} query of the statement's catalog
 * snapshot, bound as a derived table wherever {@code information_schema.X} appears in FROM (so they filter, join
 * and aggregate like any table, and list exactly what that statement's other names resolve to).
 *
 * <p>Columns follow the standard's names (a subset): {@code schemata(catalog_name, schema_name)};
 * {@code tables(table_catalog, table_schema, table_name, table_type)} with {@code BASE TABLE} for served tables
 * and {@code VIEW} for these three; {@code columns(table_catalog, table_schema, table_name, column_name,
 * ordinal_position, data_type, is_nullable, comment)}. A column Quiver cannot read yet (a nested type, an encrypted
 * column) is listed after the others with {@code data_type} {@code UNSUPPORTED} and the reason in {@code comment}:
 * nothing in the files is silently left out.
 */
final class InformationSchema {
  static final String NAME = "information_schema";
  private static final List<String> VIEWS = List.of("columns", "schemata", "tables");

  private InformationSchema() {}

  static boolean names(String schema) {
    return schema != null && schema.equalsIgnoreCase(NAME);
  }

  /** The SQL text view {@code view} stands for over {@code catalog}; NOT_FOUND (naming the views) if none. */
  static String query(Catalog catalog, String view, String at) {
    String catalogName = literal(Analyzer.CATALOG);
    return switch (view.toLowerCase(Locale.ROOT)) {
      case "schemata" -> "SELECT catalog_name, schema_name FROM (VALUES (" + catalogName + ", " + literal(Analyzer.SCHEMA)
          + "), (" + catalogName + ", '" + NAME + "')) AS schemata(catalog_name, schema_name)";
      case "tables" -> {
        List<String> rows = new ArrayList<>();
        // the listing's names only: no table's footers are read to name it
        List<String> names = new ArrayList<>(catalog.tableNames());
        names.sort(String.CASE_INSENSITIVE_ORDER);
        for (String name : names) {
          rows.add("(" + catalogName + ", " + literal(Analyzer.SCHEMA) + ", " + literal(name) + ", 'BASE TABLE')");
        }
        for (String v : VIEWS) rows.add("(" + catalogName + ", '" + NAME + "', '" + v + "', 'VIEW')");
        yield "SELECT table_catalog, table_schema, table_name, table_type FROM (VALUES " + String.join(", ", rows)
            + ") AS tables(table_catalog, table_schema, table_name, table_type)";
      }
      case "columns" -> {
        List<String> rows = new ArrayList<>();
        for (ParquetTable t : sorted(catalog)) {
          String prefix = "(" + catalogName + ", " + literal(Analyzer.SCHEMA) + ", " + literal(t.name()) + ", ";
          int ordinal = 1;
          for (Field f : t.schema().getFields()) {
            rows.add(prefix + literal(f.getName()) + ", " + ordinal++ + ", " + literal(SqlTypes.sqlName(f.getType())) + ", "
                + literal(f.isNullable() ? "YES" : "NO") + ", CAST(NULL AS VARCHAR))");
          }
          for (Map.Entry<String, String> u : new TreeMap<>(t.unsupportedColumns()).entrySet()) {
            rows.add(prefix + literal(u.getKey()) + ", " + ordinal++ + ", 'UNSUPPORTED', 'YES', "
                + literal("not served: " + u.getValue()) + ")");
          }
        }
        if (rows.isEmpty()) {
          yield "SELECT CAST(NULL AS VARCHAR) AS table_catalog, CAST(NULL AS VARCHAR) AS table_schema, "
              + "CAST(NULL AS VARCHAR) AS table_name, CAST(NULL AS VARCHAR) AS column_name, "
              + "CAST(NULL AS INTEGER) AS ordinal_position, CAST(NULL AS VARCHAR) AS data_type, "
              + "CAST(NULL AS VARCHAR) AS is_nullable, CAST(NULL AS VARCHAR) AS comment WHERE FALSE";
        }
        yield "SELECT table_catalog, table_schema, table_name, column_name, ordinal_position, data_type, is_nullable, "
            + "comment FROM (VALUES " + String.join(", ", rows) + ") AS columns(table_catalog, table_schema, "
            + "table_name, column_name, ordinal_position, data_type, is_nullable, comment)";
      }
      default -> {
        String hint = Suggestions.didYouMean(view, VIEWS);
        throw new QuiverException(ErrorCode.NOT_FOUND, "table " + SqlPositions.snippet(NAME + "." + view)
            + " does not exist" + (hint.isEmpty() ? " (information_schema has " + String.join(", ", VIEWS) + ")" : hint)
            + at);
      }
    };
  }

  private static List<ParquetTable> sorted(Catalog catalog) {
    List<ParquetTable> tables = new ArrayList<>(catalog.tables());
    tables.sort((a, b) -> a.name().compareToIgnoreCase(b.name()));
    return tables;
  }

  static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
