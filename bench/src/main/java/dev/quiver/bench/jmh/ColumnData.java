package dev.quiver.bench.jmh;

import dev.quiver.sample.RowWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The single-column data sets of the decode benchmarks: deterministic (seed 42), {@link #ROWS} values
 * each, written with parquet-java's writer like the sample data ({@link RowWriter}), one row group,
 * parquet-java's default pages (at most 20,000 rows or 1 MiB each), v1 data pages.
 */
public final class ColumnData {
  /** Values per data set (2 Mi): one row group. */
  public static final int ROWS = 2_097_152;

  /** The column name in every file. */
  public static final String COLUMN = "v";

  /** Rows per Parquet page as parquet-java writes them (its default page row limit). */
  public static final int PAGE_ROWS = ParquetProperties.DEFAULT_PAGE_ROW_COUNT_LIMIT;

  /** A column: its Parquet type, its values and whether the writer dictionary-encodes it. */
  public enum Kind {
    /** INT64, uniform random in [0, 2^31), dictionary off: PLAIN pages. */
    INT64_PLAIN,
    /** INT64 with 1,000 distinct random values, dictionary on: RLE_DICTIONARY pages (10-bit indexes). */
    INT64_DICT,
    /** DOUBLE prices with two decimals in [900, 105,000) (like {@code l_extendedprice}), dictionary off. */
    DOUBLE,
    /** UTF-8 strings of 10–43 bytes made of pseudo-words (like {@code l_comment}), dictionary off. */
    STRING
  }

  private ColumnData() {}

  public static MessageType schema(Kind kind) {
    return switch (kind) {
      case INT64_PLAIN, INT64_DICT -> Types.buildMessage().required(PrimitiveTypeName.INT64).named(COLUMN).named("t");
      case DOUBLE -> Types.buildMessage().required(PrimitiveTypeName.DOUBLE).named(COLUMN).named("t");
      case STRING -> Types.buildMessage().required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType())
          .named(COLUMN).named("t");
    };
  }

  public static long[] longs(Kind kind) {
    Random r = new Random(42);
    long[] v = new long[ROWS];
    if (kind == Kind.INT64_DICT) {
      long[] distinct = new long[1000];
      for (int i = 0; i < distinct.length; i++) distinct[i] = r.nextInt(Integer.MAX_VALUE);
      for (int i = 0; i < ROWS; i++) v[i] = distinct[r.nextInt(distinct.length)];
    } else {
      for (int i = 0; i < ROWS; i++) v[i] = r.nextInt(Integer.MAX_VALUE);
    }
    return v;
  }

  public static double[] doubles() {
    Random r = new Random(42);
    double[] v = new double[ROWS];
    for (int i = 0; i < ROWS; i++) v[i] = (90_000 + r.nextInt(10_410_000)) / 100.0;
    return v;
  }

  public static byte[][] strings() {
    Random r = new Random(42);
    String letters = "abcdefghijklmnopqrstuvwxyz";
    String[] words = new String[256];
    for (int i = 0; i < words.length; i++) {
      StringBuilder w = new StringBuilder();
      int len = 3 + r.nextInt(7);
      for (int k = 0; k < len; k++) w.append(letters.charAt(r.nextInt(letters.length())));
      words[i] = w.toString();
    }
    byte[][] v = new byte[ROWS][];
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < ROWS; i++) {
      int target = 10 + r.nextInt(34);
      sb.setLength(0);
      while (sb.length() < target) {
        if (sb.length() > 0) sb.append(' ');
        sb.append(words[r.nextInt(words.length)]);
      }
      sb.setLength(target);
      v[i] = sb.toString().getBytes(StandardCharsets.UTF_8);
    }
    return v;
  }

  /** Writes the data set to {@code file} with {@code codec}; returns the file. */
  public static Path write(Path file, Kind kind, CompressionCodecName codec) throws IOException {
    try (ParquetWriter<Object[]> w = RowWriter.open(file, schema(kind), b -> b
        .withCompressionCodec(codec)
        .withDictionaryEncoding(kind == Kind.INT64_DICT)
        .withRowGroupSize(1L << 30))) {
      switch (kind) {
        case INT64_PLAIN, INT64_DICT -> {
          for (long x : longs(kind)) w.write(new Object[] {x});
        }
        case DOUBLE -> {
          for (double x : doubles()) w.write(new Object[] {x});
        }
        case STRING -> {
          for (byte[] x : strings()) w.write(new Object[] {x});
        }
      }
    }
    return file;
  }

  /**
   * The values in Parquet's PLAIN encoding (little-endian 8-byte values; strings as a 4-byte length and
   * the bytes) — what a PLAIN page holds once decompressed, and the size of the decoded Arrow data
   * (values, or string bytes plus 4-byte offsets).
   */
  public static byte[] plain(Kind kind) {
    ByteBuffer b;
    switch (kind) {
      case INT64_PLAIN, INT64_DICT -> {
        b = ByteBuffer.allocate(ROWS * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long x : longs(kind)) b.putLong(x);
      }
      case DOUBLE -> {
        b = ByteBuffer.allocate(ROWS * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (double x : doubles()) b.putDouble(x);
      }
      default -> {
        byte[][] s = strings();
        long size = 0;
        for (byte[] x : s) size += 4 + x.length;
        b = ByteBuffer.allocate(Math.toIntExact(size)).order(ByteOrder.LITTLE_ENDIAN);
        for (byte[] x : s) b.putInt(x.length).put(x);
      }
    }
    return b.array();
  }

  /** Bytes per row of the decoded column (= of its PLAIN encoding): 8, or the mean string length + 4. */
  public static double bytesPerRow(Kind kind) {
    if (kind != Kind.STRING) return 8.0;
    if (stringBytesPerRow == 0) stringBytesPerRow = (double) plain(kind).length / ROWS;
    return stringBytesPerRow;
  }

  private static double stringBytesPerRow;
}
