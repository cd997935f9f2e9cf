package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.RowPredicate;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.bytestreamsplit.ByteStreamSplitValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.apache.parquet.column.values.deltalengthbytearray.DeltaLengthByteArrayValuesWriter;
import org.apache.parquet.column.values.deltastrings.DeltaByteArrayWriter;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.plain.BooleanPlainValuesWriter;
import org.apache.parquet.column.values.plain.FixedLenByteArrayPlainValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridValuesWriter;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Quiver's own decoders against every Parquet value encoding and every flat physical/logical type:
 * files written here by parquet-java with the encoding forced per column, read back through
 * {@link ParquetScan}, every value compared with the generator's own value in Arrow's layout (bytes of
 * the slot), and the own decoders must have read every column chunk (no fallback to parquet-java).
 */
class EncodingsTest {
  static final int ROWS = 12_000;

  /** How the file's values are encoded. */
  enum Case {
    PLAIN_V1(ParquetProperties.WriterVersion.PARQUET_1_0),
    PLAIN_V2(ParquetProperties.WriterVersion.PARQUET_2_0),
    /** parquet-java's defaults with dictionaries, small enough dictionary pages to fall back mid-chunk. */
    DICTIONARY_V1(ParquetProperties.WriterVersion.PARQUET_1_0),
    DICTIONARY_V2(ParquetProperties.WriterVersion.PARQUET_2_0),
    /** DELTA_BINARY_PACKED ints, DELTA_BYTE_ARRAY byte arrays, RLE booleans. */
    DELTA_V2(ParquetProperties.WriterVersion.PARQUET_2_0),
    DELTA_V1(ParquetProperties.WriterVersion.PARQUET_1_0),
    /** DELTA_LENGTH_BYTE_ARRAY byte arrays. */
    DELTA_LENGTH_V2(ParquetProperties.WriterVersion.PARQUET_2_0),
    /** BYTE_STREAM_SPLIT for FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY. */
    BYTE_STREAM_SPLIT_V1(ParquetProperties.WriterVersion.PARQUET_1_0),
    BYTE_STREAM_SPLIT_V2(ParquetProperties.WriterVersion.PARQUET_2_0);

    final ParquetProperties.WriterVersion version;

    Case(ParquetProperties.WriterVersion version) {
      this.version = version;
    }
  }

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.BOOLEAN).named("b")
      .optional(PrimitiveTypeName.INT32).named("i32")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named("i8")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, false)).named("u16")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(32, false)).named("u32")
      .optional(PrimitiveTypeName.INT64).named("i64")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.intType(64, false)).named("u64")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.decimalType(2, 9)).named("d32")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(4, 18)).named("d64")
      .optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(9).as(LogicalTypeAnnotation.decimalType(3, 20)).named("dfix")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.decimalType(5, 30)).named("dbin")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("day")
      .optional(PrimitiveTypeName.INT64)
          .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS)).named("ts")
      .optional(PrimitiveTypeName.INT96).named("t96")
      .optional(PrimitiveTypeName.FLOAT).named("f")
      .required(PrimitiveTypeName.DOUBLE).named("d")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .optional(PrimitiveTypeName.BINARY).named("bin")
      .optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(5).named("fx")
      .optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(2).as(LogicalTypeAnnotation.float16Type()).named("h")
      .named("t");

  /** Half-precision bit patterns and their float values (computed by hand, not by Quiver's conversion). */
  static final short[] HALVES = {0x3C00, (short) 0xC000, 0x7C00, (short) 0xFC00, 0x0001, (short) 0x8000, 0x3555, 0x7BFF, 0};
  static final float[] HALF_VALUES = {1f, -2f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0x1p-24f, -0f,
      0.333251953125f, 65504f, 0f};

  @TempDir
  Path dir;
  final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  /** One row's values; null = NULL. Each column's expected Arrow slot bytes come from {@link #expected}. */
  record Row(Boolean b, Integer i32, Integer i8, int u16, Integer u32, Long i64, long u64, Integer d32, Long d64,
      BigInteger dfix, BigInteger dbin, Integer day, Long ts, Long t96Micros, Float f, double d, String s,
      byte[] bin, byte[] fx, Integer half) {}

  static List<Row> rows(long seed) {
    Random r = new Random(seed);
    List<Row> rows = new ArrayList<>(ROWS);
    long walk = 0;
    for (int i = 0; i < ROWS; i++) {
      // NULL patterns: long runs (RLE definition levels) and scattered NULLs (bit-packed)
      boolean nullRun = i >= 3_000 && i < 3_700;
      boolean maybeNull = nullRun || r.nextInt(6) == 0;
      walk += r.nextInt(2_000) - 900;
      long i64 = switch (i % 50) {
        case 0 -> Long.MIN_VALUE;
        case 1 -> Long.MAX_VALUE;
        case 2 -> r.nextLong();
        default -> i < 6_000 ? walk : i * 3L; // a random walk, then a sorted run (narrow deltas)
      };
      int i32 = i % 37 == 0 ? (r.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE) : (int) walk;
      float f = switch (i % 11) {
        case 0 -> Float.NaN;
        case 1 -> -0f;
        case 2 -> Float.NEGATIVE_INFINITY;
        default -> r.nextFloat() * 1000 - 500;
      };
      // few distinct strings at the start of each row group (dictionary pages), then many (fallback)
      String s = i % 13 == 0 ? "" : i % 5_000 < 1_500 ? "few-" + (i % 10) : "shared-prefix-" + (i / 9) + "-" + Long.toString(r.nextLong() & 0xFFFFF, 36)
          + (i % 17 == 0 ? "é✓" : "");
      byte[] bin = new byte[r.nextInt(12)];
      r.nextBytes(bin);
      byte[] fx = new byte[5];
      r.nextBytes(fx);
      BigInteger dfix = new BigInteger(66, r).subtract(BigInteger.ONE.shiftLeft(65)); // fits 9 bytes signed
      BigInteger dbin = new BigInteger(99, r).subtract(BigInteger.ONE.shiftLeft(98));
      if (i % 23 == 0) dbin = BigInteger.valueOf(r.nextInt(200) - 100); // short encodings, sign-extended
      long t96 = (r.nextLong() % (200L * 365 * 86_400_000_000L)); // about 1770 to 2170
      rows.add(new Row(
          maybeNull && r.nextBoolean() ? null : i < 5_000 ? r.nextBoolean() : (i / 300) % 2 == 0,
          maybeNull && r.nextBoolean() ? null : i32,
          maybeNull && r.nextBoolean() ? null : (int) (byte) r.nextInt(),
          r.nextInt(65_536),
          maybeNull && r.nextBoolean() ? null : r.nextInt(),
          maybeNull && r.nextBoolean() ? null : i64,
          i % 5 == 0 ? -1L - r.nextInt(1000) : r.nextLong() >>> 1,
          maybeNull && r.nextBoolean() ? null : r.nextInt(1_999_999_999) - 999_999_999,
          maybeNull && r.nextBoolean() ? null : r.nextLong() % 999_999_999_999_999_999L,
          maybeNull && r.nextBoolean() ? null : dfix,
          maybeNull && r.nextBoolean() ? null : dbin,
          maybeNull && r.nextBoolean() ? null : r.nextInt(80_000) - 20_000,
          maybeNull && r.nextBoolean() ? null : r.nextLong() % 4_000_000_000_000_000L,
          maybeNull && r.nextBoolean() ? null : t96,
          maybeNull && r.nextBoolean() ? null : f,
          i % 7 == 0 ? Double.NaN : i % 7 == 1 ? -0.0 : r.nextGaussian() * 1e6,
          maybeNull && r.nextBoolean() ? null : s,
          maybeNull && r.nextBoolean() ? null : bin,
          maybeNull && r.nextBoolean() ? null : fx,
          maybeNull && r.nextBoolean() ? null : r.nextInt(HALVES.length)));
    }
    return rows;
  }

  static byte[] int96(long micros) {
    long day = Math.floorDiv(micros, 86_400_000_000L);
    long nanosOfDay = Math.floorMod(micros, 86_400_000_000L) * 1000;
    return ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putLong(nanosOfDay).putInt((int) (day + 2_440_588)).array();
  }

  static byte[] fixedTwosComplement(BigInteger v, int len) {
    byte[] min = v.toByteArray();
    byte[] out = new byte[len];
    java.util.Arrays.fill(out, v.signum() < 0 ? (byte) -1 : 0);
    System.arraycopy(min, 0, out, len - min.length, min.length);
    return out;
  }

  static Group group(SimpleGroupFactory f, Row x) {
    Group g = f.newGroup();
    if (x.b() != null) g.append("b", x.b());
    if (x.i32() != null) g.append("i32", x.i32());
    if (x.i8() != null) g.append("i8", x.i8());
    g.append("u16", x.u16());
    if (x.u32() != null) g.append("u32", x.u32());
    if (x.i64() != null) g.append("i64", x.i64());
    g.append("u64", x.u64());
    if (x.d32() != null) g.append("d32", x.d32());
    if (x.d64() != null) g.append("d64", x.d64());
    if (x.dfix() != null) g.append("dfix", Binary.fromConstantByteArray(fixedTwosComplement(x.dfix(), 9)));
    if (x.dbin() != null) g.append("dbin", Binary.fromConstantByteArray(x.dbin().toByteArray()));
    if (x.day() != null) g.append("day", x.day());
    if (x.ts() != null) g.append("ts", x.ts());
    if (x.t96Micros() != null) g.append("t96", Binary.fromConstantByteArray(int96(x.t96Micros())));
    if (x.f() != null) g.append("f", x.f());
    g.append("d", x.d());
    if (x.s() != null) g.append("s", x.s());
    if (x.bin() != null) g.append("bin", Binary.fromConstantByteArray(x.bin()));
    if (x.fx() != null) g.append("fx", Binary.fromConstantByteArray(x.fx()));
    if (x.half() != null) {
      short h = HALVES[x.half()];
      g.append("h", Binary.fromConstantByteArray(new byte[] {(byte) h, (byte) (h >> 8)}));
    }
    return g;
  }

  /** The Arrow slot of column {@code c} for row {@code x}, as hex (little-endian fixed width or raw bytes). */
  static String expected(String c, Row x) {
    ByteBuffer le = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    byte[] bytes = switch (c) {
      case "b" -> x.b() == null ? null : new byte[] {(byte) (x.b() ? 1 : 0)};
      case "i32" -> x.i32() == null ? null : fixed(le.putInt(x.i32()), 4);
      case "i8" -> x.i8() == null ? null : new byte[] {(byte) (int) x.i8()};
      case "u16" -> fixed(le.putShort((short) x.u16()), 2);
      case "u32" -> x.u32() == null ? null : fixed(le.putInt(x.u32()), 4);
      case "i64" -> x.i64() == null ? null : fixed(le.putLong(x.i64()), 8);
      case "u64" -> fixed(le.putLong(x.u64()), 8);
      case "d32" -> x.d32() == null ? null : decimal(BigInteger.valueOf(x.d32()));
      case "d64" -> x.d64() == null ? null : decimal(BigInteger.valueOf(x.d64()));
      case "dfix" -> x.dfix() == null ? null : decimal(x.dfix());
      case "dbin" -> x.dbin() == null ? null : decimal(x.dbin());
      case "day" -> x.day() == null ? null : fixed(le.putInt(x.day()), 4);
      case "ts" -> x.ts() == null ? null : fixed(le.putLong(x.ts()), 8);
      case "t96" -> x.t96Micros() == null ? null : fixed(le.putLong(x.t96Micros()), 8);
      case "f" -> x.f() == null ? null : fixed(le.putInt(Float.floatToRawIntBits(x.f())), 4);
      case "d" -> fixed(le.putLong(Double.doubleToRawLongBits(x.d())), 8);
      case "s" -> x.s() == null ? null : x.s().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      case "bin" -> x.bin();
      case "fx" -> x.fx();
      case "h" -> x.half() == null ? null : fixed(le.putInt(Float.floatToRawIntBits(HALF_VALUES[x.half()])), 4);
      default -> throw new IllegalArgumentException(c);
    };
    return bytes == null ? "NULL" : HexFormat.of().formatHex(bytes);
  }

  private static byte[] fixed(ByteBuffer b, int n) {
    byte[] out = new byte[n];
    b.flip().get(out);
    return out;
  }

  private static byte[] decimal(BigInteger unscaled) {
    byte[] be = fixedTwosComplement(unscaled, 16);
    byte[] le = new byte[16];
    for (int i = 0; i < 16; i++) le[i] = be[15 - i];
    return le;
  }

  static String actual(FieldVector v, int i) {
    if (v.isNull(i)) return "NULL";
    if (v instanceof BitVector b) return HexFormat.of().formatHex(new byte[] {(byte) b.get(i)});
    if (v instanceof BaseFixedWidthVector f) {
      int w = f.getTypeWidth();
      byte[] out = new byte[w];
      f.getDataBuffer().getBytes((long) i * w, out);
      return HexFormat.of().formatHex(out);
    }
    return HexFormat.of().formatHex(((BaseVariableWidthVector) v).get(i));
  }

  /** The writer for each column in each case, through parquet-java's values-writer factory. */
  static ValuesWriterFactory factory(Case k) {
    return new ValuesWriterFactory() {
      ParquetProperties props;

      @Override
      public void initialize(ParquetProperties properties) {
        this.props = properties;
      }

      @Override
      public ValuesWriter newValuesWriter(ColumnDescriptor d) {
        var a = HeapByteBufferAllocator.getInstance();
        int init = 1 << 10;
        int page = 1 << 20;
        PrimitiveTypeName t = d.getPrimitiveType().getPrimitiveTypeName();
        int len = d.getPrimitiveType().getTypeLength();
        ValuesWriter plain = switch (t) {
          case BOOLEAN -> new BooleanPlainValuesWriter();
          case FIXED_LEN_BYTE_ARRAY -> new FixedLenByteArrayPlainValuesWriter(len, init, page, a);
          case INT96 -> new FixedLenByteArrayPlainValuesWriter(12, init, page, a);
          default -> new PlainValuesWriter(init, page, a);
        };
        return switch (k) {
          case PLAIN_V1, PLAIN_V2, DICTIONARY_V1, DICTIONARY_V2 -> plain;
          case DELTA_V1, DELTA_V2 -> switch (t) {
            case BOOLEAN -> new RunLengthBitPackingHybridValuesWriter(1, init, page, a);
            case INT32 -> new DeltaBinaryPackingValuesWriterForInteger(init, page, a);
            case INT64 -> new DeltaBinaryPackingValuesWriterForLong(init, page, a);
            case BINARY, FIXED_LEN_BYTE_ARRAY -> new DeltaByteArrayWriter(init, page, a);
            default -> plain;
          };
          case DELTA_LENGTH_V2 -> t == PrimitiveTypeName.BINARY ? new DeltaLengthByteArrayValuesWriter(init, page, a) : plain;
          case BYTE_STREAM_SPLIT_V1, BYTE_STREAM_SPLIT_V2 -> switch (t) {
            case FLOAT -> new ByteStreamSplitValuesWriter.FloatByteStreamSplitValuesWriter(init, page, a);
            case DOUBLE -> new ByteStreamSplitValuesWriter.DoubleByteStreamSplitValuesWriter(init, page, a);
            case INT32 -> new ByteStreamSplitValuesWriter.IntegerByteStreamSplitValuesWriter(init, page, a);
            case INT64 -> new ByteStreamSplitValuesWriter.LongByteStreamSplitValuesWriter(init, page, a);
            case FIXED_LEN_BYTE_ARRAY -> new ByteStreamSplitValuesWriter.FixedLenByteArrayByteStreamSplitValuesWriter(len, init, page, a);
            default -> plain;
          };
        };
      }
    };
  }

  Path write(Case k, List<Row> rows) throws Exception {
    Path file = Files.createDirectories(dir.resolve(k.name().toLowerCase())).resolve("part.parquet");
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    ExampleParquetWriter.Builder b = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(SCHEMA).withWriterVersion(k.version).withRowGroupRowCountLimit(5_000).withPageRowCountLimit(700);
    if (k == Case.DICTIONARY_V1 || k == Case.DICTIONARY_V2) {
      b.withDictionaryEncoding(true).withDictionaryPageSize(4 << 10); // high-cardinality columns fall back mid-chunk
    } else {
      b.withDictionaryEncoding(false);
      // ParquetWriter.Builder offers no values-writer factory; its ParquetProperties.Builder does
      var field = ParquetWriter.Builder.class.getDeclaredField("encodingPropsBuilder");
      field.setAccessible(true);
      ((ParquetProperties.Builder) field.get(b)).withValuesWriterFactory(factory(k));
    }
    try (ParquetWriter<Group> w = b.build()) {
      for (Row x : rows) w.write(group(f, x));
    }
    return file;
  }

  /** The value encodings the file really uses, per column (so the test proves what it exercises). */
  static java.util.Map<String, java.util.Set<Encoding>> encodings(Path file) throws Exception {
    java.util.Map<String, java.util.Set<Encoding>> out = new java.util.TreeMap<>();
    var conf = new org.apache.hadoop.conf.Configuration();
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), conf))) {
      for (BlockMetaData block : r.getFooter().getBlocks()) {
        for (ColumnChunkMetaData c : block.getColumns()) {
          out.computeIfAbsent(c.getPath().toDotString(), x -> java.util.EnumSet.noneOf(Encoding.class)).addAll(c.getEncodings());
        }
      }
    }
    return out;
  }

  List<String> columns() {
    return SCHEMA.getFields().stream().map(org.apache.parquet.schema.Type::getName).toList();
  }

  /** Every column of every row, read with the given predicate (late materialization when selective). */
  List<String[]> scan(Path file, ScanPredicate p) {
    return scan(file, p, new ScanMetrics());
  }

  List<String[]> scan(Path file, ScanPredicate p, ScanMetrics metrics) {
    return scan(file, p, null, metrics);
  }

  List<String[]> scan(Path file, ScanPredicate p, RowPredicate rows, ScanMetrics metrics) {
    Catalog catalog = Catalog.open(file.getParent().toString());
    List<String> cols = columns();
    List<String[]> out = new ArrayList<>();
    try (ParquetScan scan = new ParquetScan(catalog, catalog.table("part"), cols, p, rows, allocator, metrics, 1_000, false,
        ScanOptions.shared())) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot batch = next) {
          for (int i = 0; i < batch.getRowCount(); i++) {
            String[] row = new String[cols.size()];
            for (int c = 0; c < cols.size(); c++) row[c] = actual(batch.getVector(c), i);
            out.add(row);
          }
        }
      }
    }
    return out;
  }

  void assertRows(List<String[]> actual, List<Row> expectedRows) {
    List<String> cols = columns();
    assertThat(actual).hasSize(expectedRows.size());
    for (int i = 0; i < expectedRows.size(); i++) {
      for (int c = 0; c < cols.size(); c++) {
        String want = expected(cols.get(c), expectedRows.get(i));
        if (!want.equals(actual.get(i)[c])) {
          throw new AssertionError("row " + i + " column " + cols.get(c) + ": expected " + want + " but read " + actual.get(i)[c]);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Case.class)
  void ownDecodersReadEveryTypeInEveryEncoding(Case k) throws Exception {
    List<Row> rows = rows(20261130L + k.ordinal());
    Path file = write(k, rows);
    var used = encodings(file);
    switch (k) {
      case DELTA_V1, DELTA_V2 -> {
        assertThat(used.get("i64")).contains(Encoding.DELTA_BINARY_PACKED);
        assertThat(used.get("s")).contains(Encoding.DELTA_BYTE_ARRAY);
        assertThat(used.get("fx")).contains(Encoding.DELTA_BYTE_ARRAY);
        assertThat(used.get("b")).contains(Encoding.RLE);
      }
      case DELTA_LENGTH_V2 -> assertThat(used.get("bin")).contains(Encoding.DELTA_LENGTH_BYTE_ARRAY);
      case BYTE_STREAM_SPLIT_V1, BYTE_STREAM_SPLIT_V2 -> {
        for (String c : List.of("f", "d", "i32", "i64", "fx", "dfix")) assertThat(used.get(c)).as(c).contains(Encoding.BYTE_STREAM_SPLIT);
      }
      case DICTIONARY_V1, DICTIONARY_V2 -> {
        assertThat(used.get("i8")).containsAnyOf(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
        // the strings outgrow the dictionary page: dictionary pages, then plain/delta pages in one chunk
        assertThat(used.get("s")).containsAnyOf(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
            .containsAnyOf(Encoding.PLAIN, Encoding.DELTA_BYTE_ARRAY);
      }
      default -> assertThat(used.get("i64")).contains(Encoding.PLAIN);
    }
    ScanMetrics metrics = new ScanMetrics();
    assertRows(scan(file, new ScanPredicate.Const(true), metrics), rows);
    assertThat(metrics.decoderFallbacks()).as("column chunks read by parquet-java instead").isZero();
  }

  /** Late materialization: a predicate on one column, the other columns decoded only for passing rows. */
  @ParameterizedTest
  @EnumSource(Case.class)
  void selectedRowsSkipTheOthersInEveryEncoding(Case k) throws Exception {
    List<Row> rows = rows(7L + k.ordinal());
    Path file = write(k, rows);
    ScanPredicate p = new ScanPredicate.Compare("u16", ScanPredicate.Op.LT, 2_000L, new ArrowType.Int(16, false));
    Function<Row, Boolean> brute = x -> x.u16() < 2_000;
    List<Row> want = rows.stream().filter(brute::apply).toList();
    assertThat(want).hasSizeBetween(200, 600);
    ScanMetrics metrics = new ScanMetrics();
    assertRows(scan(file, p, new LongRowPredicate("u16", x -> x < 2_000), metrics), want);
    assertThat(metrics.rowsFilteredLate()).isEqualTo(rows.size() - want.size());
    assertThat(metrics.decoderFallbacks()).isZero();
  }
}
