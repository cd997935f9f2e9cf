package dev.quiver.spark;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A read-only catalog over one Quiver server: {@code spark.sql.catalog.quiver=dev.quiver.spark.QuiverCatalog},
 * {@code spark.sql.catalog.quiver.url=grpc://host:port} (and the other options), then {@code quiver.main.lineitem}.
 * Tables are listed through Flight SQL GetTables; a table's schema is that of {@code SELECT * ... LIMIT 0}.
 */
public final class QuiverCatalog implements TableCatalog, SupportsNamespaces {
  static final String SCHEMA = "main";
  private String name;
  private QuiverOptions options;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
    this.options = QuiverOptions.from(options);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String[] defaultNamespace() {
    return new String[] {SCHEMA};
  }

  private String schemaOf(String[] namespace) {
    return namespace.length == 0 ? SCHEMA : namespace[0];
  }

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length > 1) throw new NoSuchNamespaceException(namespace);
    try (QuiverSession s = new QuiverSession(options)) {
      String schema = schemaOf(namespace);
      return s.tables(null).stream()
          .filter(t -> t[0] == null || t[0].equalsIgnoreCase(schema))
          .map(t -> Identifier.of(new String[] {schema}, t[1]))
          .toArray(Identifier[]::new);
    }
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    if (ident.namespace().length > 1) throw new NoSuchTableException(ident);
    String schema = schemaOf(ident.namespace());
    try (QuiverSession s = new QuiverSession(options)) {
      boolean exists = s.tables(null).stream()
          .anyMatch(t -> (t[0] == null || t[0].equalsIgnoreCase(schema)) && t[1].equals(ident.name()));
      if (!exists) throw new NoSuchTableException(ident);
    }
    return QuiverTable.load(options, ident.name());
  }

  @Override
  public String[][] listNamespaces() {
    return new String[][] {{SCHEMA}};
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length == 0) return listNamespaces();
    if (namespace.length == 1 && namespace[0].equalsIgnoreCase(SCHEMA)) return new String[0][];
    throw new NoSuchNamespaceException(namespace);
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    return namespace.length == 1 && namespace[0].equalsIgnoreCase(SCHEMA);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace) throws NoSuchNamespaceException {
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace);
    return Map.of();
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  public boolean dropTable(Identifier ident) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw new UnsupportedOperationException("quiver: the catalog is read-only");
  }

  @Override
  public String toString() {
    return "QuiverCatalog[" + name + ", " + Objects.toString(options) + ", " + Arrays.toString(defaultNamespace()) + "]";
  }
}
