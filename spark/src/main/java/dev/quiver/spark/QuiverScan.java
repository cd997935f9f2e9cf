package dev.quiver.spark;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Location;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/** One SQL statement; planned on the driver, one Spark partition per Flight endpoint of its FlightInfo. */
final class QuiverScan implements Scan, Batch {
  private final QuiverOptions options;
  private final String sql;
  private final StructType schema;
  private final List<Predicate> pushed;
  private String authorization;

  private final boolean aggregate;

  QuiverScan(QuiverOptions options, String sql, StructType schema, List<Predicate> pushed, boolean aggregate) {
    this.aggregate = aggregate;
    this.options = options;
    this.sql = sql;
    this.schema = schema;
    this.pushed = List.copyOf(pushed);
  }

  /** The SQL sent to Quiver. */
  String sql() {
    return sql;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return "QuiverScan[" + options.url() + "] " + sql;
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    try (QuiverSession s = new QuiverSession(options)) {
      FlightInfo info = s.plan(sql);
      authorization = s.authorization();
      if (aggregate && info.getEndpoints().size() > 1) {
        // Spark was told the aggregation is complete: partial results per endpoint would be wrong
        throw new IllegalStateException("quiver: " + info.getEndpoints().size() + " endpoints for the pushed aggregation "
            + sql + "; an aggregate must come back as one endpoint");
      }
      List<InputPartition> parts = new ArrayList<>();
      for (FlightEndpoint e : info.getEndpoints()) {
        List<String> uris = new ArrayList<>();
        Set<String> hosts = new LinkedHashSet<>();
        for (Location l : e.getLocations()) {
          java.net.URI u = l.getUri();
          if (u.getHost() == null || u.getScheme().startsWith("arrow-flight-reuse")) continue;
          uris.add(u.toString());
          hosts.add(u.getHost());
        }
        parts.add(new QuiverPartition(e.getTicket().getBytes(), uris.toArray(String[]::new), hosts.toArray(String[]::new)));
      }
      return parts.toArray(InputPartition[]::new);
    }
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new QuiverReaderFactory(options, authorization, schema.size());
  }
}
