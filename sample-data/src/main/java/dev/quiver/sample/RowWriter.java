package dev.quiver.sample;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Writes flat rows ({@code Object[]}, one Java value per top-level column in its physical Parquet form:
 * Boolean, Integer, Long, Float, Double, String or byte[]; null for a missing optional value).
 */
public final class RowWriter {
  private RowWriter() {}

  /** A writer for {@code schema} at {@code file}; {@code tune} sets row groups, dictionaries, blooms... */
  public static ParquetWriter<Object[]> open(Path file, MessageType schema,
      UnaryOperator<Builder> tune) throws IOException {
    return tune.apply(new Builder(new LocalOutputFile(file), schema)).build();
  }

  public static final class Builder extends ParquetWriter.Builder<Object[], Builder> {
    private final MessageType schema;

    Builder(OutputFile file, MessageType schema) {
      super(file);
      this.schema = schema;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Object[]> getWriteSupport(Configuration conf) {
      return new RowWriteSupport(schema);
    }
  }

  private static final class RowWriteSupport extends WriteSupport<Object[]> {
    private final MessageType schema;
    private RecordConsumer out;

    RowWriteSupport(MessageType schema) {
      this.schema = schema;
    }

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(schema, new HashMap<>());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.out = recordConsumer;
    }

    @Override
    public void write(Object[] row) {
      out.startMessage();
      for (int i = 0; i < row.length; i++) {
        Object v = row[i];
        if (v == null) continue;
        Type field = schema.getType(i);
        out.startField(field.getName(), i);
        PrimitiveType p = field.asPrimitiveType();
        switch (p.getPrimitiveTypeName()) {
          case BOOLEAN -> out.addBoolean((Boolean) v);
          case INT32 -> out.addInteger((Integer) v);
          case INT64 -> out.addLong((Long) v);
          case FLOAT -> out.addFloat((Float) v);
          case DOUBLE -> out.addDouble((Double) v);
          default -> out.addBinary(v instanceof String s ? Binary.fromString(s) : Binary.fromConstantByteArray((byte[]) v));
        }
        out.endField(field.getName(), i);
      }
      out.endMessage();
    }
  }
}
