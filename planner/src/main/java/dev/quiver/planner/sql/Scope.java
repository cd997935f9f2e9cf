package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import dev.quiver.scan.table.ParquetTable;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The names visible to expressions: the columns of the FROM table, or nothing for a FROM-less SELECT.
 * {@code unsupported} names columns that exist but cannot be read, with the reason.
 */
public record Scope(String table, List<Field> fields, Map<String, String> unsupported, String alias) {
  public Scope {
    fields = List.copyOf(fields);
    unsupported = Map.copyOf(unsupported);
  }

  public static Scope of(ParquetTable t, String alias) {
    return new Scope(t.name(), t.schema().getFields(), t.unsupportedColumns(), alias);
  }

  public static Scope none() {
    return new Scope(null, List.of(), Map.of(), null);
  }

  public static Scope of(String table, List<Field> fields) {
    return new Scope(table, fields, Map.of(), null);
  }

  Expr.ColumnRef resolve(String qualifier, String name, String sql) {
    if (table == null) {
      throw new QuiverException(ErrorCode.NOT_FOUND,
          "column " + name + " does not exist (the query has no FROM clause)" + SqlPositions.suffix(sql, name));
    }
    if (qualifier != null) {
      String q = ExprBinder.unquote(qualifier);
      boolean matches = q.equalsIgnoreCase(alias != null ? alias : table)
          || (alias == null && q.toLowerCase().endsWith("." + table.toLowerCase()));
      if (!matches) {
        throw new QuiverException(ErrorCode.NOT_FOUND,
            "table or alias " + q + " is not in the FROM clause" + SqlPositions.suffix(sql, q));
      }
    }
    for (Field f : fields) {
      if (f.getName().equalsIgnoreCase(name)) return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
    }
    for (var e : unsupported.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name)) {
        throw new QuiverException(ErrorCode.UNSUPPORTED, "column " + e.getKey() + " of table " + table
            + " is a " + e.getValue() + ", which is not supported" + SqlPositions.suffix(sql, name));
      }
    }
    throw new QuiverException(ErrorCode.NOT_FOUND,
        "column " + name + " does not exist in table " + table + SqlPositions.suffix(sql, name));
  }
}
