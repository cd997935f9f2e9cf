package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.scan.ErrorCode;
import dev.quiver.scan.QuiverException;
import dev.quiver.scan.table.ParquetTable;
import org.apache.arrow.vector.types.pojo.Field;

/** The names visible to expressions: the columns of the FROM table (or nothing for a FROM-less SELECT). */
record Scope(ParquetTable table, String alias) {
  Expr.ColumnRef resolve(String qualifier, String name, String sql) {
    if (table == null) {
      throw new QuiverException(ErrorCode.NOT_FOUND,
          "column " + name + " does not exist (the query has no FROM clause)" + SqlPositions.suffix(sql, name));
    }
    if (qualifier != null) {
      String q = ExprBinder.unquote(qualifier);
      boolean matches = q.equalsIgnoreCase(alias != null ? alias : table.name())
          || (alias == null && q.toLowerCase().endsWith("." + table.name().toLowerCase()));
      if (!matches) {
        throw new QuiverException(ErrorCode.NOT_FOUND,
            "table or alias " + q + " is not in the FROM clause" + SqlPositions.suffix(sql, q));
      }
    }
    Field f = table.field(name);
    if (f == null) {
      for (var e : table.unsupportedColumns().entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) {
          throw new QuiverException(ErrorCode.UNSUPPORTED, "column " + e.getKey() + " of table " + table.name()
              + " is a " + e.getValue() + ", which is not supported" + SqlPositions.suffix(sql, name));
        }
      }
      throw new QuiverException(ErrorCode.NOT_FOUND,
          "column " + name + " does not exist in table " + table.name() + SqlPositions.suffix(sql, name));
    }
    return new Expr.ColumnRef(f.getName(), f.getType(), f.isNullable());
  }
}
