package dev.quiver.sample;

import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import io.trino.tpcds.column.Column;
import io.trino.tpcds.column.ColumnType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The 24 TPC-DS tables from {@code io.trino.tpcds} (the Java port of {@code dsdgen}), written as one
 * Parquet file each ({@code <table>.parquet}) with the types of the TPC-DS schema: identifiers
 * {@code BIGINT}, integers {@code INT}, {@code DECIMAL(p,s)} as declared (e.g. {@code DECIMAL(7,2)}),
 * dates {@code DATE}, {@code CHAR}/{@code VARCHAR} as UTF-8 strings; every column optional, NULL where
 * the generator gives NULL. Generated once into a cache directory keyed by generator version and scale.
 */
public final class TpcdsTables {
  /** The pinned generator version (the parent POM's {@code tpcds.version}); part of the cache key. */
  public static final String GENERATOR_VERSION = "1.4";
  /** Trino's "tiny" scale factor: ~100k rows over all tables, seconds to generate. */
  public static final double TINY_SCALE_FACTOR = 0.01;
  private static final String COMPLETE = "_COMPLETE";

  private TpcdsTables() {}

  /** The 24 TPC-DS tables (the generator's base tables, without its internal {@code dbgen_version}). */
  public static List<Table> tables() {
    return Table.getBaseTables().stream().filter(t -> !t.getName().equals("dbgen_version")).toList();
  }

  /** The cache directory of the tables at {@code scaleFactor}, generating them first if needed. */
  public static Path ensure(double scaleFactor) {
    String sf = BigDecimal.valueOf(scaleFactor).stripTrailingZeros().toPlainString();
    return ensure(SampleData.cacheRoot().resolve("tpcds-" + GENERATOR_VERSION + "-sf" + sf), scaleFactor);
  }

  /** {@code dir} holding the tables at {@code scaleFactor}, generated there first if not complete. */
  public static synchronized Path ensure(Path dir, double scaleFactor) {
    if (Files.exists(dir.resolve(COMPLETE))) return dir;
    try {
      Files.createDirectories(dir.getParent());
      Path tmp = Files.createTempDirectory(dir.getParent(), dir.getFileName() + ".tmp");
      writeAll(tmp, scaleFactor);
      Files.writeString(tmp.resolve(COMPLETE), GENERATOR_VERSION + " sf " + scaleFactor + "\n");
      SampleData.replace(dir, tmp);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot generate TPC-DS data into " + dir, e);
    }
  }

  /** Every table into {@code dir}, on up to two threads (the tables are independent; each is deterministic). */
  private static void writeAll(Path dir, double scaleFactor) throws IOException {
    int threads = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "tpcds-generator");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<Long>> written = new ArrayList<>();
      for (Table t : tables()) {
        written.add(pool.submit(() -> write(t, dir.resolve(t.getName() + ".parquet"), scaleFactor)));
      }
      for (Future<Long> f : written) f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while generating TPC-DS data", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) throw io;
      throw new IOException("cannot generate TPC-DS data: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** The Parquet schema of {@code table}, named after it. */
  public static MessageType schema(Table table) {
    Types.MessageTypeBuilder b = Types.buildMessage();
    for (Column c : table.getColumns()) {
      ColumnType type = c.getType();
      String name = c.getName().toLowerCase(Locale.ROOT);
      switch (type.getBase()) {
        case IDENTIFIER -> b.optional(PrimitiveTypeName.INT64).named(name);
        case INTEGER -> b.optional(PrimitiveTypeName.INT32).named(name);
        case DATE -> b.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named(name);
        case DECIMAL -> {
          int precision = type.getPrecision().orElseThrow();
          b.optional(precision <= 9 ? PrimitiveTypeName.INT32 : PrimitiveTypeName.INT64)
              .as(LogicalTypeAnnotation.decimalType(type.getScale().orElseThrow(), precision)).named(name);
        }
        case CHAR, VARCHAR, TIME ->
            b.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(name);
      }
    }
    return b.named(table.getName());
  }

  /** Writes {@code table} at {@code scaleFactor} to {@code file}; returns the number of rows. */
  public static long write(Table table, Path file, double scaleFactor) throws IOException {
    MessageType schema = schema(table);
    Column[] columns = table.getColumns();
    Session session = Session.getDefaultSession().withScale(scaleFactor).withTable(table).withNoSexism(false);
    long rows = 0;
    try (ParquetWriter<Object[]> w = RowWriter.open(file, schema,
        b -> b.withCompressionCodec(CompressionCodecName.SNAPPY))) {
      for (List<List<String>> generated : Results.constructResults(table, session)) {
        // a parent row generator may emit several rows per step (and none); the first is the table's own row
        List<String> row = generated.get(0);
        if (row == null) continue;
        Object[] values = new Object[columns.length];
        for (Column c : columns) values[c.getPosition()] = value(c.getType(), row.get(c.getPosition()));
        w.write(values);
        rows++;
      }
    }
    return rows;
  }

  private static Object value(ColumnType type, String text) {
    if (text == null) return null;
    return switch (type.getBase()) {
      case IDENTIFIER -> Long.parseLong(text);
      case INTEGER -> Integer.parseInt(text);
      case DATE -> (int) LocalDate.parse(text).toEpochDay();
      case DECIMAL -> {
        long unscaled = new BigDecimal(text).setScale(type.getScale().orElseThrow()).unscaledValue().longValueExact();
        yield type.getPrecision().orElseThrow() <= 9 ? (Object) Math.toIntExact(unscaled) : (Object) unscaled;
      }
      case CHAR, VARCHAR, TIME -> text;
    };
  }
}
