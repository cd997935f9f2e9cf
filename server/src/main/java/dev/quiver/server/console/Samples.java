package dev.quiver.server.console;

import dev.quiver.common.QuiverException;
import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.profile.ColumnDescription;
import dev.quiver.planner.profile.ColumnStat;
import dev.quiver.planner.profile.FileDescription;
import dev.quiver.planner.profile.RowGroupDescription;
import dev.quiver.planner.profile.TableDescription;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.ParquetTable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The console's sample queries: on the bundled sample data the curated ones ({@link #BUNDLED}); on other data a few
 * generated from the served tables (the first rows, a count, a filter that statistics can prune, a grouping), so that
 * the first Run works on the user's own files; on an empty data directory, a look at the catalog.
 */
final class Samples {
  record Sample(String name, String sql) {}

  static final List<Sample> BUNDLED = List.of(
      new Sample("Pruning by statistics: 9 of 10 row groups skipped, pages pruned in the tenth",
          "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'"),
      new Sample("The simplifier makes a predicate pushable: extract(year) becomes a date range",
          "SELECT count(*) FROM lineitem WHERE extract(year FROM l_shipdate) = 1998"),
      new Sample("A cast unwrapped: the comparison moves onto the column",
          "SELECT count(*) FROM lineitem WHERE CAST(l_shipdate AS TIMESTAMP) < TIMESTAMP '1992-02-01 12:00:00'"),
      new Sample("A join: revenue by nation",
          "SELECT n.n_name, sum(o.o_totalprice) AS revenue\nFROM orders o\n  JOIN customer c ON o.o_custkey = c.c_custkey\n"
              + "  JOIN nation n ON c.c_nationkey = n.n_nationkey\nWHERE o.o_orderdate >= DATE '1995-01-01'\n"
              + "GROUP BY n.n_name\nORDER BY revenue DESC"),
      new Sample("Events: CAST(timestamp AS DATE) becomes a half-open day",
          "SELECT count(*) FROM events WHERE CAST(event_time AS DATE) = DATE '2024-03-01'"),
      new Sample("Events: a value no dictionary holds: every row group pruned by its dictionary",
          "SELECT count(*) FROM events WHERE kind = 'refund'"),
      new Sample("Events: a rounded literal (BIGINT event_id against 1000.5) prunes 12 of 13 row groups",
          "SELECT count(*) FROM events WHERE event_id < 1000.5"),
      new Sample("Events: an out-of-range literal (retries is an unsigned TINYINT): nothing is read at all",
          "SELECT count(*) FROM events WHERE retries > 300"));

  /** The tables and columns the bundled samples name: all present means the bundled sample data is served. */
  private static final Map<String, List<String>> BUNDLED_COLUMNS = Map.of(
      "lineitem", List.of("l_shipdate"),
      "orders", List.of("o_orderdate", "o_totalprice", "o_custkey"),
      "customer", List.of("c_custkey", "c_nationkey"),
      "nation", List.of("n_nationkey", "n_name"),
      "events", List.of("event_time", "kind", "event_id", "retries"));

  static final Sample UNSUPPORTED = new Sample("What is not served: columns Quiver cannot read yet, with the reason",
      "SELECT table_name, column_name, comment\nFROM information_schema.columns\nWHERE data_type = 'UNSUPPORTED'");

  private static final Pattern PLAIN = Pattern.compile("[a-z_][a-z0-9_]*");
  private static final Pattern TIMESTAMP = Pattern.compile("\\d{4}-\\d\\d-\\d\\d[ T]\\d\\d:\\d\\d(:\\d\\d(\\.\\d+)?)?");
  private static final Set<String> KEYWORDS = Set.of("all", "and", "any", "as", "asc", "between", "by", "case", "cast",
      "cross", "current_date", "current_time", "current_timestamp", "date", "day", "default", "desc", "describe",
      "distinct", "else", "end", "except", "exists", "explain", "extract", "false", "fetch", "first", "for", "from",
      "full", "group", "having", "hour", "in", "inner", "intersect", "interval", "is", "join", "key", "last", "left",
      "like", "limit", "minute", "month", "natural", "not", "null", "nulls", "offset", "on", "or", "order", "outer",
      "over", "partition", "right", "row", "rows", "second", "select", "set", "show", "table", "tables", "then", "time",
      "timestamp", "to", "true", "union", "user", "using", "value", "values", "when", "where", "window", "with", "year");

  private Samples() {}

  /** The samples for what {@code engine} serves now. */
  static List<Sample> of(QueryEngine engine) {
    Catalog snapshot = engine.snapshot();
    if (bundled(snapshot)) return BUNDLED;
    List<Sample> out = new ArrayList<>();
    for (String name : snapshot.tableNames()) {
      ParquetTable t = readable(snapshot, name);
      if (t == null || t.schema().getFields().isEmpty()) continue;
      out.addAll(generated(engine.describeTable(t.name())));
      break;
    }
    if (out.isEmpty()) {
      out.add(new Sample("The tables this server serves (none yet: put *.parquet files in the data directory)",
          "SHOW TABLES"));
      out.add(new Sample("Every column of every table, from information_schema",
          "SELECT table_name, column_name, data_type, comment FROM information_schema.columns"));
    }
    if (hasUnsupportedColumns(snapshot)) out.add(UNSUPPORTED);
    return List.copyOf(out);
  }

  /** Whether every table and column the bundled samples name is served. */
  static boolean bundled(Catalog snapshot) {
    for (Map.Entry<String, List<String>> e : BUNDLED_COLUMNS.entrySet()) {
      ParquetTable t = readable(snapshot, e.getKey());
      if (t == null) return false;
      for (String column : e.getValue()) if (t.schema().getFields().stream().noneMatch(f -> f.getName().equals(column))) return false;
    }
    return true;
  }

  private static ParquetTable readable(Catalog snapshot, String name) {
    try {
      return snapshot.table(name);
    } catch (QuiverException e) {
      return null; // an unreadable table: the Tables page says why
    }
  }

  private static boolean hasUnsupportedColumns(Catalog snapshot) {
    for (String name : snapshot.tableNames()) {
      ParquetTable t = readable(snapshot, name);
      if (t != null && !t.unsupportedColumns().isEmpty()) return true;
    }
    return false;
  }

  /** A few queries on one table: its first rows, its count, a filter statistics can prune, a grouping. */
  static List<Sample> generated(TableDescription t) {
    String table = quote(t.name());
    List<Sample> out = new ArrayList<>();
    out.add(new Sample("The first 10 rows of " + t.name(), "SELECT * FROM " + table + " LIMIT 10"));
    out.add(new Sample("How many rows " + t.name() + " has", "SELECT count(*) FROM " + table));
    ColumnDescription range = rangeColumn(t);
    String min = range == null ? null : literal(range, minimum(t, range.name()));
    if (min != null) {
      out.add(new Sample("Pruning by statistics: " + range.name() + " <= its smallest value reads only the row groups "
          + "that can hold it", "SELECT count(*) FROM " + table + " WHERE " + quote(range.name()) + " <= " + min));
    }
    ColumnDescription group = groupColumn(t);
    if (group != null) {
      String c = quote(group.name());
      out.add(new Sample("The most frequent values of " + group.name(), "SELECT " + c + ", count(*) AS n FROM " + table
          + "\nGROUP BY " + c + "\nORDER BY n DESC\nLIMIT 20"));
    }
    return out;
  }

  /** A column to filter on: a sorted one (pruning shows best) of a type with a literal, else the first such. */
  private static ColumnDescription rangeColumn(TableDescription t) {
    ColumnDescription first = null;
    for (ColumnDescription c : t.columns()) {
      if (kind(c.sqlType()) == null || t.partitionColumns().contains(c.name())) continue;
      if (t.sortedBy().contains(c.name())) return c;
      if (first == null) first = c;
    }
    return first;
  }

  /** A column to group by: a string column with a dictionary (few distinct values), else any string column. */
  private static ColumnDescription groupColumn(TableDescription t) {
    ColumnDescription first = null;
    for (ColumnDescription c : t.columns()) {
      if (!c.sqlType().startsWith("VARCHAR") && !t.partitionColumns().contains(c.name())) continue;
      if (c.dictionary() || t.partitionColumns().contains(c.name())) return c;
      if (first == null) first = c;
    }
    return first;
  }

  /** "number", "date" or "timestamp" for a type whose values can be written as a literal; null otherwise. */
  private static String kind(String sqlType) {
    String s = sqlType.toUpperCase(Locale.ROOT);
    if (s.matches("(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|REAL|FLOAT|DOUBLE|DECIMAL).*")) {
      return "number";
    }
    if (s.equals("DATE")) return "date";
    if (s.startsWith("TIMESTAMP")) return "timestamp";
    return null;
  }

  /** The smallest row-group minimum of {@code column} in the footers; null if none has one. */
  private static String minimum(TableDescription t, String column) {
    String min = null;
    BigDecimal minNumber = null;
    for (FileDescription f : t.files()) {
      for (RowGroupDescription rg : f.rowGroups()) {
        for (ColumnStat s : rg.columns()) {
          if (!s.column().equals(column) || s.min() == null) continue;
          BigDecimal n = number(s.min());
          if (n != null) {
            if (minNumber == null || n.compareTo(minNumber) < 0) {
              minNumber = n;
              min = s.min();
            }
          } else if (min == null || s.min().compareTo(min) < 0) {
            min = s.min();
          }
        }
      }
    }
    return min;
  }

  private static BigDecimal number(String s) {
    try {
      return new BigDecimal(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** {@code value} as a SQL literal of {@code c}'s type; null if it cannot be written as one. */
  private static String literal(ColumnDescription c, String value) {
    if (value == null) return null;
    return switch (kind(c.sqlType())) {
      case "number" -> number(value) == null ? null : value;
      case "date" -> value.matches("\\d{4}-\\d\\d-\\d\\d") ? "DATE '" + value + "'" : null;
      case "timestamp" -> TIMESTAMP.matcher(value).matches() ? "TIMESTAMP '" + value + "'" : null;
      default -> null;
    };
  }

  /** {@code name} as an identifier: as it is when plain lower case and no keyword, else double-quoted. */
  static String quote(String name) {
    if (PLAIN.matcher(name).matches() && !KEYWORDS.contains(name)) return name;
    return '"' + name.replace("\"", "\"\"") + '"';
  }
}
