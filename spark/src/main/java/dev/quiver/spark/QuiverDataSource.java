package dev.quiver.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The {@code quiver} format: {@code spark.read.format("quiver").option("url", ...).option("table", ...).load()}. */
public final class QuiverDataSource implements TableProvider, DataSourceRegister {
  @Override
  public String shortName() {
    return "quiver";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return table(options).schema();
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return table(properties);
  }

  private static QuiverTable table(Map<String, String> properties) {
    CaseInsensitiveStringMap o = new CaseInsensitiveStringMap(properties);
    String table = o.get("table");
    if (table == null || table.isBlank()) throw new IllegalArgumentException("quiver: option 'table' is required");
    return QuiverTable.load(QuiverOptions.from(o), table);
  }
}
