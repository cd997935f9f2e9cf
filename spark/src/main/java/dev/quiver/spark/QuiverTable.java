package dev.quiver.spark;

import java.util.EnumSet;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** One Quiver table, read in batch. */
final class QuiverTable implements SupportsRead {
  private final QuiverOptions options;
  private final String table;
  private final Schema arrowSchema;
  private final StructType schema;

  QuiverTable(QuiverOptions options, String table, Schema arrowSchema) {
    this.options = options;
    this.table = table;
    this.arrowSchema = arrowSchema;
    this.schema = sparkSchema(arrowSchema);
  }

  /** Reads the table's schema from the server: the FlightInfo schema of {@code SELECT * ... LIMIT 0}. */
  static QuiverTable load(QuiverOptions options, String table) {
    try (QuiverSession s = new QuiverSession(options)) {
      return new QuiverTable(options, table, s.schema("SELECT * FROM " + Sql.ident(table) + " LIMIT 0"));
    }
  }

  static StructType sparkSchema(Schema s) {
    StructField[] fields = s.getFields().stream()
        .map(f -> new StructField(f.getName(), ArrowTypes.sparkType(f), f.isNullable(), Metadata.empty()))
        .toArray(StructField[]::new);
    return new StructType(fields);
  }

  @Override
  public String name() {
    return "quiver." + table;
  }

  @Override
  public org.apache.spark.sql.connector.catalog.Column[] columns() {
    return org.apache.spark.sql.connector.catalog.CatalogV2Util.structTypeToV2Columns(schema);
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
    return new QuiverScanBuilder(options, table, arrowSchema);
  }
}
