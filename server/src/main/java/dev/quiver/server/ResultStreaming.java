package dev.quiver.server;

import dev.quiver.planner.PreparedQuery;
import dev.quiver.planner.Sql;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.table.ParquetTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * How results go out: the schema every call sends for a query's results (with the Flight SQL column
 * metadata JDBC reads), batches split to a bounded message size under backpressure, and the query
 * allocator closed once the transport has let go of what was sent.
 */
final class ResultStreaming {
  /** Results are sent in batches of at most this many bytes of vector buffers. */
  static final long MAX_BATCH_BYTES = 4L << 20;

  private ResultStreaming() {
  }

  static FlightInfo info(Schema schema, FlightDescriptor descriptor, byte[] ticket) {
    return new FlightInfo(schema, descriptor, List.of(new FlightEndpoint(new Ticket(ticket))), -1, -1);
  }

  /** One typed, nullable field per {@code ?}, named parameter_1 … as the JDBC binder expects. */
  static Schema parameterSchema(List<ArrowType> types) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) fields.add(new Field("parameter_" + (i + 1), FieldType.nullable(types.get(i)), null));
    return new Schema(fields);
  }

  /** A table's schema with the Flight SQL column metadata JDBC's getColumns reads. */
  static Schema columnSchema(ParquetTable t) {
    List<dev.quiver.planner.ColumnOrigins.Origin> origins = t.schema().getFields().stream()
        .map(f -> new dev.quiver.planner.ColumnOrigins.Origin(t.name(), f.getName())).toList();
    return withColumnMetadata(t.schema(), origins);
  }

  /**
   * The schema of a query's results as every call sends it (prepare, GetFlightInfo, GetSchema, DoGet): a
   * column that is a table's column unchanged names its catalog, schema and table (ResultSetMetaData's
   * getTableName …); computed columns and EXPLAIN lines name none.
   */
  static Schema resultSchema(PreparedQuery q) {
    List<dev.quiver.planner.ColumnOrigins.Origin> origins = q.explain() == PreparedQuery.ExplainMode.NONE
        ? dev.quiver.planner.ColumnOrigins.of(q.plan()) : java.util.Collections.nCopies(q.schema().getFields().size(), null);
    return withColumnMetadata(q.schema(), origins);
  }

  /**
   * {@code schema} with Flight SQL column metadata on every field (SQL type name, precision, scale, case
   * sensitivity, and for a column of a table its catalog, schema and table), as JDBC's ResultSetMetaData
   * and getColumns read it; {@code origins} has one entry per field, null for a computed column.
   */
  static Schema withColumnMetadata(Schema schema, List<dev.quiver.planner.ColumnOrigins.Origin> origins) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < schema.getFields().size(); i++) {
      Field f = schema.getFields().get(i);
      ArrowType type = f.getType();
      FlightSqlColumnMetadata.Builder m = new FlightSqlColumnMetadata.Builder()
          .typeName(SqlTypes.sqlName(type)).isReadOnly(true).isAutoIncrement(false)
          .isCaseSensitive(type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8)
          .isSearchable(true);
      dev.quiver.planner.ColumnOrigins.Origin origin = origins.get(i);
      if (origin != null) m.catalogName(Sql.CATALOG).schemaName(Sql.SCHEMA).tableName(origin.table());
      Integer precision = precision(type);
      if (precision != null) m.precision(precision);
      Integer scale = scale(type);
      if (scale != null) m.scale(scale);
      fields.add(new Field(f.getName(), new FieldType(f.isNullable(), type, null, m.build().getMetadataMap()), null));
    }
    return new Schema(fields);
  }

  /** JDBC's precision: decimal digits of a number, characters of a date or time's text; null if unbounded. */
  static Integer precision(ArrowType type) {
    if (type instanceof ArrowType.Decimal d) return d.getPrecision();
    if (type instanceof ArrowType.Int i) {
      return switch (i.getBitWidth()) {
        case 8 -> 3;
        case 16 -> 5;
        case 32 -> 10;
        default -> i.getIsSigned() ? 19 : 20;
      };
    }
    if (type instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE ? 15 : 7;
    }
    if (type instanceof ArrowType.Bool) return 1;
    if (type instanceof ArrowType.Date) return 10; // 2024-01-31
    if (type instanceof ArrowType.Timestamp t) {
      Integer fraction = scale(type);
      return 19 + (fraction > 0 ? 1 + fraction : 0) + (t.getTimezone() != null ? 6 : 0); // 2024-01-31 12:00:00.123456+00:00
    }
    return null;
  }

  /** JDBC's scale: digits after the decimal point (of a number, or of a timestamp's seconds); null if none apply. */
  static Integer scale(ArrowType type) {
    if (type instanceof ArrowType.Decimal d) return d.getScale();
    if (type instanceof ArrowType.Int) return 0;
    if (type instanceof ArrowType.Timestamp t) {
      return switch (t.getUnit()) {
        case SECOND -> 0;
        case MILLISECOND -> 3;
        case MICROSECOND -> 6;
        case NANOSECOND -> 9;
      };
    }
    return null;
  }

  /**
   * Closes a query's allocator once the transport has let go of the last batch it sent: gRPC may still
   * hold a message's buffers for a moment after {@code completed()}. A real leak still fails the close.
   */
  static void closeWhenReleased(BufferAllocator allocator) {
    long deadline = System.nanoTime() + 2_000_000_000L;
    while (allocator.getAllocatedMemory() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    allocator.close();
  }

  /** Sends {@code batch} through {@code out}, split so that no message exceeds {@link #MAX_BATCH_BYTES}. */
  static void send(VectorSchemaRoot batch, VectorSchemaRoot out, ServerStreamListener listener,
      org.apache.arrow.flight.BackpressureStrategy backpressure, dev.quiver.planner.Cancellation cancellation) {
    int rows = batch.getRowCount();
    if (rows == 0) return;
    long bytes = 0;
    for (FieldVector v : batch.getFieldVectors()) bytes += v.getBufferSize();
    int chunks = (int) Math.max(1, (bytes + MAX_BATCH_BYTES - 1) / MAX_BATCH_BYTES);
    int perChunk = (rows + chunks - 1) / chunks;
    for (int start = 0; start < rows; start += perChunk) {
      // wait while the client is slow, instead of buffering the result in the server
      while (backpressure.waitForListener(200) == org.apache.arrow.flight.BackpressureStrategy.WaitResult.TIMEOUT) {
        cancellation.check();
      }
      cancellation.check();
      int len = Math.min(perChunk, rows - start);
      for (int i = 0; i < batch.getFieldVectors().size(); i++) {
        batch.getVector(i).makeTransferPair(out.getVector(i)).splitAndTransfer(start, len);
      }
      out.setRowCount(len);
      listener.putNext();
      out.clear();
    }
  }

  static void setString(VectorSchemaRoot r, String column, int i, String value) {
    ((VarCharVector) r.getVector(column)).setSafe(i, value.getBytes(StandardCharsets.UTF_8));
  }
}
