package dev.quiver.planner.sql;

import dev.quiver.planner.expr.Expr;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The names visible to expressions: the relations of a FROM clause (tables, derived tables, CTEs), each
 * under its qualifier, and — for a subquery — the enclosing query's scope, whose columns a correlated
 * reference reads. A column has a visible name and an internal name unique in the whole statement.
 */
public final class Scope {
  /**
   * A column as the query sees it ({@code name}) and as the plan names it ({@code internal}). {@code qualifiedOnly}:
   * a column of a {@code JOIN … USING}/{@code NATURAL JOIN} key, which unqualified references and {@code SELECT *}
   * read as the one joined column instead (it stays readable through its table's qualifier).
   */
  public record Column(String name, String internal, ArrowType type, boolean nullable, boolean qualifiedOnly) {
    public Column(String name, String internal, ArrowType type, boolean nullable) {
      this(name, internal, type, nullable, false);
    }

    Expr.ColumnRef ref() { return new Expr.ColumnRef(internal, type, nullable); }
  }

  /** One relation of the FROM clause. {@code unsupported} names unreadable columns with the reason. */
  public record Entry(String qualifier, String table, List<Column> columns, Map<String, String> unsupported) {
    public Entry {
      columns = List.copyOf(columns);
      unsupported = Map.copyOf(unsupported);
    }
  }

  private final List<Entry> entries;
  private final Scope outer;
  private final Set<String> correlated = new LinkedHashSet<>();

  public Scope(List<Entry> entries, Scope outer) {
    this.entries = List.copyOf(entries);
    this.outer = outer;
  }

  public static Scope none() {
    return new Scope(List.of(), null);
  }

  /** A table's columns under their own names (for stand-alone predicates). */
  public static Scope of(String table, List<Field> fields) {
    List<Column> cols = new ArrayList<>();
    for (Field f : fields) cols.add(new Column(f.getName(), f.getName(), f.getType(), f.isNullable()));
    return new Scope(List.of(new Entry(table, table, cols, Map.of())), null);
  }

  public static Scope of(ParquetTable t, String alias) {
    Scope s = of(t.name(), t.schema().getFields());
    Entry e = s.entries.get(0);
    return new Scope(List.of(new Entry(alias != null ? alias : t.name(), t.name(), e.columns(), t.unsupportedColumns())), null);
  }

  public List<Entry> entries() {
    return entries;
  }

  public Scope outer() {
    return outer;
  }

  /** This scope with {@code more} relations added (a join's right side). */
  public Scope plus(List<Entry> more) {
    List<Entry> all = new ArrayList<>(entries);
    all.addAll(more);
    return new Scope(all, outer);
  }

  /** The internal names of the enclosing queries' columns that expressions in this scope read. */
  public Set<String> correlated() {
    return correlated;
  }

  /** Every internal name visible from the enclosing scopes. */
  public Set<String> outerNames() {
    Set<String> out = new LinkedHashSet<>();
    for (Scope s = outer; s != null; s = s.outer) {
      for (Entry e : s.entries) for (Column c : e.columns()) out.add(c.internal());
    }
    return out;
  }

  /** All columns, relation by relation (SELECT *): a USING join's key once, first. */
  public List<Column> columns() {
    List<Column> out = new ArrayList<>();
    for (Entry e : entries) for (Column c : e.columns()) if (!c.qualifiedOnly()) out.add(c);
    return out;
  }

  Expr.ColumnRef resolve(String qualifier, String name, String sql) {
    String q = qualifier == null ? null : ExprBinder.unquote(lastPart(qualifier));
    for (Scope s = this; s != null; s = s.outer) {
      Column found = s.find(q, name, sql);
      if (found != null) {
        if (s != this) correlated.add(found.internal());
        return found.ref();
      }
    }
    if (entries.isEmpty() && outer == null) {
      throw new QuiverException(ErrorCode.NOT_FOUND,
          "column " + SqlPositions.snippet(name) + " does not exist (the query has no FROM clause)" + SqlPositions.suffix(sql, name));
    }
    if (q != null && !hasQualifier(q)) {
      throw new QuiverException(ErrorCode.NOT_FOUND,
          "table or alias " + SqlPositions.snippet(q) + " is not in the FROM clause" + SqlPositions.suffix(sql, q));
    }
    String where = entries.size() == 1 ? " in table " + entries.get(0).table() : "";
    java.util.List<String> names = new java.util.ArrayList<>();
    for (Scope s = this; s != null; s = s.outer) {
      for (Entry e : s.entries) {
        if (q != null && (e.qualifier() == null || !e.qualifier().equalsIgnoreCase(q))) continue;
        for (Column c : e.columns()) if (!c.name().startsWith("__")) names.add(c.name());
      }
    }
    throw new QuiverException(ErrorCode.NOT_FOUND, "column " + SqlPositions.snippet((q == null ? "" : q + ".") + name) + " does not exist"
        + where + Suggestions.didYouMean(name, names) + SqlPositions.suffix(sql, name));
  }

  /** The last name of a qualified name ({@code main.t}: {@code t}); a quoted name is one name, dots and all. */
  static String lastPart(String qualified) {
    int end = qualified.length();
    if (end >= 2 && (qualified.charAt(end - 1) == '"' || qualified.charAt(end - 1) == '`')) {
      int open = qualified.lastIndexOf(qualified.charAt(end - 1), end - 2);
      return open < 0 ? qualified : qualified.substring(open);
    }
    return qualified.substring(qualified.lastIndexOf('.') + 1);
  }

  private boolean hasQualifier(String q) {
    for (Scope s = this; s != null; s = s.outer) {
      for (Entry e : s.entries) if (e.qualifier() != null && e.qualifier().equalsIgnoreCase(q)) return true;
    }
    return false;
  }

  private Column find(String q, String name, String sql) {
    Column found = null;
    for (Entry e : entries) {
      if (q != null && (e.qualifier() == null || !e.qualifier().equalsIgnoreCase(q))) continue;
      for (Column c : e.columns()) {
        if (!c.name().equalsIgnoreCase(name) || (q == null && c.qualifiedOnly())) continue;
        if (found != null && !found.internal().equals(c.internal())) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "column reference " + SqlPositions.snippet(name) + " is ambiguous"
              + SqlPositions.suffix(sql, name));
        }
        found = c;
      }
      for (var u : e.unsupported().entrySet()) {
        if (u.getKey().equalsIgnoreCase(name)) {
          throw new QuiverException(ErrorCode.UNSUPPORTED, "column " + u.getKey() + " of table " + e.table()
              + " is a " + u.getValue() + ", which is not supported" + SqlPositions.suffix(sql, name));
        }
      }
    }
    return found;
  }
}
