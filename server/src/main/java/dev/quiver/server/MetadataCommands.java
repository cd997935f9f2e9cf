package dev.quiver.server;

import static com.google.protobuf.Any.pack;
import static dev.quiver.server.ResultStreaming.*;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.Sql;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The catalog and metadata commands JDBC, ADBC and sqlline call (GetCatalogs, GetDbSchemas, GetTables,
 * GetTableTypes, GetSqlInfo, XdbcTypeInfo and the key commands, which have no rows: Parquet files have no
 * keys). Each answers one small batch.
 */
final class MetadataCommands {
  private final QueryEngine engine;
  private final BufferAllocator root;
  private final long queryMemoryLimit;
  private final Supplier<BufferAllocator> allocators;
  private final Function<Throwable, FlightRuntimeException> errors;
  /** Built on first use: probing the planner's features costs a few hundred ms of planning (more when cold). */
  private volatile SqlInfos sqlInfo;

  MetadataCommands(QueryEngine engine, BufferAllocator root, long queryMemoryLimit, Supplier<BufferAllocator> allocators,
      Function<Throwable, FlightRuntimeException> errors) {
    this.engine = engine;
    this.root = root;
    this.queryMemoryLimit = queryMemoryLimit;
    this.allocators = allocators;
    this.errors = errors;
  }

  private FlightRuntimeException error(Throwable t) {
    return errors.apply(t);
  }

  private BufferAllocator newQueryAllocator() {
    return allocators.get();
  }

  /** The server's SqlInfo, from the planner's own answers to its feature probes. */
  private SqlInfos sqlInfo() {
    SqlInfos info = sqlInfo;
    if (info != null) return info;
    synchronized (this) {
      if (sqlInfo == null) {
        try (BufferAllocator probing = root.newChildAllocator("sql-features", 0, queryMemoryLimit)) {
          sqlInfo = SqlInfos.build(dev.quiver.planner.SqlFeatures.probe(engine, probing), engine.limits());
        }
      }
      return sqlInfo;
    }
  }

  public FlightInfo getFlightInfoTypeInfo(org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo request,
      CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_TYPE_INFO_SCHEMA, descriptor, pack(request).toByteArray());
  }

  /** One row per SQL type Quiver has (XDBC / JDBC getTypeInfo), optionally filtered by data type. */
  public void getStreamTypeInfo(org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo request,
      CallContext context, ServerStreamListener listener) {
    record T(String name, int dataType, int size, String prefix, boolean caseSensitive, boolean unsigned, boolean fixed) {}
    List<T> types = List.of(
        new T("BOOLEAN", java.sql.Types.BOOLEAN, 1, null, false, false, false),
        new T("TINYINT", java.sql.Types.TINYINT, 3, null, false, false, false),
        new T("SMALLINT", java.sql.Types.SMALLINT, 5, null, false, false, false),
        new T("INTEGER", java.sql.Types.INTEGER, 10, null, false, false, false),
        new T("BIGINT", java.sql.Types.BIGINT, 19, null, false, false, false),
        new T("REAL", java.sql.Types.REAL, 7, null, false, false, false),
        new T("DOUBLE", java.sql.Types.DOUBLE, 15, null, false, false, false),
        new T("DECIMAL", java.sql.Types.DECIMAL, 38, null, false, false, true),
        new T("VARCHAR", java.sql.Types.VARCHAR, Integer.MAX_VALUE, "'", true, false, false),
        new T("VARBINARY", java.sql.Types.VARBINARY, Integer.MAX_VALUE, "X'", false, false, false),
        new T("DATE", java.sql.Types.DATE, 10, "DATE '", false, false, false),
        new T("TIMESTAMP", java.sql.Types.TIMESTAMP, 29, "TIMESTAMP '", false, false, false),
        new T("TIMESTAMP WITH TIME ZONE", java.sql.Types.TIMESTAMP_WITH_TIMEZONE, 35, "TIMESTAMP '", false, false, false));
    List<T> selected = types.stream()
        .filter(t -> !request.hasDataType() || request.getDataType() == t.dataType()).toList();
    stream(Schemas.GET_TYPE_INFO_SCHEMA, listener, r -> {
      for (int i = 0; i < selected.size(); i++) {
        T t = selected.get(i);
        setString(r, "type_name", i, t.name());
        ((org.apache.arrow.vector.IntVector) r.getVector("data_type")).setSafe(i, t.dataType());
        ((org.apache.arrow.vector.IntVector) r.getVector("column_size")).setSafe(i, t.size());
        if (t.prefix() != null) {
          setString(r, "literal_prefix", i, t.prefix());
          setString(r, "literal_suffix", i, "'");
        }
        ((org.apache.arrow.vector.IntVector) r.getVector("nullable")).setSafe(i, java.sql.DatabaseMetaData.typeNullable);
        ((org.apache.arrow.vector.BitVector) r.getVector("case_sensitive")).setSafe(i, t.caseSensitive() ? 1 : 0);
        ((org.apache.arrow.vector.IntVector) r.getVector("searchable")).setSafe(i, java.sql.DatabaseMetaData.typeSearchable);
        ((org.apache.arrow.vector.BitVector) r.getVector("unsigned_attribute")).setSafe(i, t.unsigned() ? 1 : 0);
        ((org.apache.arrow.vector.BitVector) r.getVector("fixed_prec_scale")).setSafe(i, t.fixed() ? 1 : 0);
        ((org.apache.arrow.vector.BitVector) r.getVector("auto_increment")).setSafe(i, 0);
        setString(r, "local_type_name", i, t.name());
        ((org.apache.arrow.vector.IntVector) r.getVector("sql_data_type")).setSafe(i, t.dataType());
      }
      r.setRowCount(selected.size());
    });
  }

  public FlightInfo getFlightInfoSqlInfo(CommandGetSqlInfo request, CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_SQL_INFO_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamSqlInfo(CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    if (command.getInfoList().isEmpty()) {
      sqlInfo().builder().send(List.of(), listener); // no ids: all of them
      return;
    }
    // ids Quiver does not know are left out (SqlInfoBuilder fails on them); none known: no rows, not all
    SqlInfos info = sqlInfo();
    List<Integer> ids = command.getInfoList().stream().filter(info.ids()::contains).distinct().toList();
    if (ids.isEmpty()) {
      stream(Schemas.GET_SQL_INFO_SCHEMA, listener, r -> r.setRowCount(0));
    } else {
      info.builder().send(ids, listener);
    }
  }

  public FlightInfo getFlightInfoCatalogs(CommandGetCatalogs request, CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_CATALOGS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_CATALOGS_SCHEMA, listener, r -> {
      setString(r, "catalog_name", 0, Sql.CATALOG);
      r.setRowCount(1);
    });
  }

  public FlightInfo getFlightInfoSchemas(CommandGetDbSchemas request, CallContext context, FlightDescriptor descriptor) {
    return info(Schemas.GET_SCHEMAS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamSchemas(CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    boolean match = catalogMatches(command.hasCatalog() ? command.getCatalog() : null)
        && like(command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null, Sql.SCHEMA);
    stream(Schemas.GET_SCHEMAS_SCHEMA, listener, r -> {
      if (match) {
        setString(r, "catalog_name", 0, Sql.CATALOG);
        setString(r, "db_schema_name", 0, Sql.SCHEMA);
      }
      r.setRowCount(match ? 1 : 0);
    });
  }

  public FlightInfo getFlightInfoTables(CommandGetTables request, CallContext context, FlightDescriptor descriptor) {
    Schema schema = request.getIncludeSchema() ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    return info(schema, descriptor, pack(request).toByteArray());
  }

  public void getStreamTables(CommandGetTables command, CallContext context, ServerStreamListener listener) {
    List<ParquetTable> tables = new ArrayList<>();
    boolean typeOk = command.getTableTypesCount() == 0
        || command.getTableTypesList().stream().anyMatch(t -> t.equalsIgnoreCase("TABLE"));
    if (typeOk && catalogMatches(command.hasCatalog() ? command.getCatalog() : null)
        && like(command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null, Sql.SCHEMA)) {
      List<ParquetTable> current;
      try {
        current = engine.snapshot().tables(); // the data directory as it is now
      } catch (Throwable t) {
        listener.error(error(t));
        return;
      }
      for (ParquetTable t : current) {
        if (like(command.hasTableNameFilterPattern() ? command.getTableNameFilterPattern() : null, t.name())) tables.add(t);
      }
    }
    Schema schema = command.getIncludeSchema() ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    stream(schema, listener, r -> {
      for (int i = 0; i < tables.size(); i++) {
        ParquetTable t = tables.get(i);
        setString(r, "catalog_name", i, Sql.CATALOG);
        setString(r, "db_schema_name", i, Sql.SCHEMA);
        setString(r, "table_name", i, t.name());
        setString(r, "table_type", i, "TABLE");
        if (command.getIncludeSchema()) {
          ((VarBinaryVector) r.getVector("table_schema")).setSafe(i, columnSchema(t).serializeAsMessage());
        }
      }
      r.setRowCount(tables.size());
    });
  }

  public FlightInfo getFlightInfoTableTypes(CommandGetTableTypes request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_TABLE_TYPES_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_TABLE_TYPES_SCHEMA, listener, r -> {
      setString(r, "table_type", 0, "TABLE");
      r.setRowCount(1);
    });
  }

  public FlightInfo getFlightInfoPrimaryKeys(CommandGetPrimaryKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_PRIMARY_KEYS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_PRIMARY_KEYS_SCHEMA, listener, r -> r.setRowCount(0));
  }

  public FlightInfo getFlightInfoExportedKeys(CommandGetExportedKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_EXPORTED_KEYS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_EXPORTED_KEYS_SCHEMA, listener, r -> r.setRowCount(0));
  }

  public FlightInfo getFlightInfoImportedKeys(CommandGetImportedKeys request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_IMPORTED_KEYS_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context, ServerStreamListener listener) {
    stream(Schemas.GET_IMPORTED_KEYS_SCHEMA, listener, r -> r.setRowCount(0));
  }

  public FlightInfo getFlightInfoCrossReference(CommandGetCrossReference request, CallContext context,
      FlightDescriptor descriptor) {
    return info(Schemas.GET_CROSS_REFERENCE_SCHEMA, descriptor, pack(request).toByteArray());
  }

  public void getStreamCrossReference(CommandGetCrossReference command, CallContext context,
      ServerStreamListener listener) {
    stream(Schemas.GET_CROSS_REFERENCE_SCHEMA, listener, r -> r.setRowCount(0));
  }

  private void stream(Schema schema, ServerStreamListener listener, Consumer<VectorSchemaRoot> fill) {
    BufferAllocator allocator = newQueryAllocator();
    try (VectorSchemaRoot r = VectorSchemaRoot.create(schema, allocator)) {
      r.allocateNew();
      fill.accept(r);
      listener.start(r);
      listener.putNext();
      listener.completed();
    } catch (Throwable t) {
      listener.error(error(t));
    } finally {
      closeWhenReleased(allocator);
    }
  }

  private static boolean catalogMatches(String catalog) {
    return catalog == null || catalog.isEmpty() || catalog.equalsIgnoreCase(Sql.CATALOG);
  }

  /** SQL LIKE ({@code %}, {@code _}, backslash escapes) of a metadata name filter; null matches all. */
  static boolean like(String pattern, String value) {
    // RE2/J, not java.util.regex: "%%%%…x" as ".*.*.*…x" backtracks in time exponential in the '%'s
    return Sql.like(pattern).test(value);
  }
}
