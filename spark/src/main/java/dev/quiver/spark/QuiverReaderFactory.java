package dev.quiver.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Columnar readers only: each reads one endpoint's Arrow batches as {@link ColumnarBatch}es. */
record QuiverReaderFactory(QuiverOptions options, String authorization, int columns) implements PartitionReaderFactory {
  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException("quiver: the connector reads columnar batches only");
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new QuiverPartitionReader(options, authorization, columns, (QuiverPartition) partition);
  }
}
