package dev.quiver.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** One Flight endpoint: its ticket and locations (empty: the connector's url); preferred on its hosts. */
record QuiverPartition(byte[] ticket, String[] locations, String[] hosts) implements InputPartition {
  @Override
  public String[] preferredLocations() {
    return hosts;
  }
}
