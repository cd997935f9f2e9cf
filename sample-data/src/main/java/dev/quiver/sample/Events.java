package dev.quiver.sample;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * A synthetic, deterministic {@code events} table covering the types TPC-H lacks: TIMESTAMP (UTC),
 * BOOLEAN, unsigned and small integers, DOUBLE with NaN, and NULLs in several columns. Sorted by
 * {@code event_time}, in small row groups, so time-range predicates prune.
 */
public final class Events {
  public static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("event_id")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS)).named("event_time")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("kind")
      .optional(PrimitiveTypeName.INT32).named("user_id")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("country")
      .optional(PrimitiveTypeName.DOUBLE).named("score")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 10)).named("amount")
      .required(PrimitiveTypeName.BOOLEAN).named("is_mobile")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, false)).named("retries")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named("latency_ms")
      .named("events");

  static final String[] KINDS = {"click", "view", "purchase", "signup", "error"};
  static final String[] COUNTRIES = {"DE", "FR", "US", "BR", "JP", "IN", "NG"};
  /** 2024-01-01T00:00:00Z in microseconds. */
  static final long START_MICROS = 1_704_067_200_000_000L;

  private Events() {}

  /** The row at position {@code i} of the table generated with {@code seed}: deterministic. */
  public static Object[] row(Random r, long i) {
    long time = START_MICROS + i * 315_000_000L + r.nextInt(1_000_000); // ~ one event per 5 min
    String kind = KINDS[r.nextInt(KINDS.length)];
    Integer user = r.nextInt(20) == 0 ? null : r.nextInt(50_000);
    String country = r.nextInt(10) == 0 ? null : COUNTRIES[r.nextInt(COUNTRIES.length)];
    int s = r.nextInt(100);
    Double score = s == 0 ? null : s == 1 ? Double.NaN : Math.round(r.nextGaussian() * 1000) / 100.0;
    Long amount = kind.equals("purchase") ? (long) r.nextInt(1_000_000) : null;
    boolean mobile = r.nextBoolean();
    int retries = r.nextInt(256);
    Integer latency = r.nextInt(8) == 0 ? null : r.nextInt(30_000);
    return new Object[] {i, time, kind, user, country, score, amount, mobile, retries, latency};
  }

  public static void write(Path file, long rows, long seed, int rowGroupRows) throws IOException {
    Random r = new Random(seed);
    try (ParquetWriter<Object[]> w = RowWriter.open(file, SCHEMA, b -> b
        .withRowGroupRowCountLimit(rowGroupRows)
        .withCompressionCodec(CompressionCodecName.ZSTD))) {
      for (long i = 0; i < rows; i++) w.write(row(r, i));
    }
  }
}
