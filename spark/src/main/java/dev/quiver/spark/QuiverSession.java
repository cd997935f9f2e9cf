package dev.quiver.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Schema;

/** A driver-side Flight SQL connection (with its session cookie and bearer token): planning and metadata. */
final class QuiverSession implements AutoCloseable {
  private final BufferAllocator allocator = new RootAllocator();
  private final FlightClient client;
  private final FlightSqlClient sql;
  private final String authorization;
  private final CallOption[] options;

  QuiverSession(QuiverOptions o) {
    FlightClient c = null;
    try {
      QuiverClients.TokenCapture capture = new QuiverClients.TokenCapture();
      c = QuiverClients.client(allocator, o, o.uri(), true, capture);
      this.authorization = QuiverClients.authenticate(c, o, capture);
      this.options = QuiverClients.auth(authorization);
      this.client = c;
      this.sql = new FlightSqlClient(c);
      if (o.maxEndpoints() > 0) execute("SET quiver.max_endpoints = " + o.maxEndpoints());
    } catch (RuntimeException e) {
      try {
        if (c != null) c.close();
      } catch (Exception ignored) {
        // already failing
      }
      allocator.close();
      throw e;
    }
  }

  /** The {@code authorization} header the executors send (a bearer token), or null. */
  String authorization() {
    return authorization;
  }

  FlightInfo plan(String query) {
    return sql.execute(query, options);
  }

  Schema schema(String query) {
    FlightInfo info = plan(query);
    return info.getSchemaOptional().orElseGet(() -> {
      // no schema in the FlightInfo: read it from the stream's first message
      try (FlightStream s = sql.getStream(info.getEndpoints().get(0).getTicket(), options)) {
        return s.getSchema();
      } catch (Exception e) {
        throw new IllegalStateException("quiver: no schema for " + query, e);
      }
    });
  }

  /** Runs a statement (e.g. {@code SET}) and drains its result. */
  void execute(String statement) {
    FlightInfo info = plan(statement);
    for (FlightEndpoint e : info.getEndpoints()) {
      try (FlightStream s = sql.getStream(e.getTicket(), options)) {
        while (s.next()) {
          // drain
        }
      } catch (Exception ex) {
        throw new IllegalStateException("quiver: " + statement + " failed", ex);
      }
    }
  }

  /** Table names of {@code schema} (null: all) through Flight SQL GetTables. */
  List<String[]> tables(String schema) {
    FlightInfo info = sql.getTables(null, schema, null, null, false, options);
    List<String[]> out = new ArrayList<>();
    for (FlightEndpoint e : info.getEndpoints()) {
      try (FlightStream s = sql.getStream(e.getTicket(), options)) {
        while (s.next()) {
          VarCharVector sch = (VarCharVector) s.getRoot().getVector("db_schema_name");
          VarCharVector name = (VarCharVector) s.getRoot().getVector("table_name");
          for (int i = 0; i < s.getRoot().getRowCount(); i++) {
            out.add(new String[] {sch.isNull(i) ? null : sch.getObject(i).toString(), name.getObject(i).toString()});
          }
        }
      } catch (Exception ex) {
        throw new IllegalStateException("quiver: GetTables failed", ex);
      }
    }
    return out;
  }

  @Override
  public void close() {
    try {
      sql.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      allocator.close();
    }
  }
}
