package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Parquet files damaged here, at test time, from good small files (written by DuckDB, and by parquet-java
 * with page CRCs): truncated, wrong magic, a footer length pointing outside the file, a corrupt byte in a
 * snappy or zstd page, an empty file, a directory table with one bad file among good ones, and a seeded
 * run of random single-byte damage. All sit in one data directory with good tables: the server starts,
 * every query touching a damaged file fails with a clear error naming the file (never INTERNAL, never a
 * hang: each query runs under a statement timeout), the good tables keep being served, and closing the
 * server finds no leaked buffer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CorruptFilesTest {
  static final int ROWS = 5_000;
  static final String COLUMNS = "i, s, d, b, u";
  static final int FUZZ_CASES = 48;

  /** A damaged table and what a query reading it must answer: status and a part of the message. */
  record Damage(String table, FlightStatusCode status, String message) {}

  @TempDir
  static Path dir;
  final List<Damage> damages = new ArrayList<>();
  final Map<String, String> fuzzed = new LinkedHashMap<>(); // table -> what was changed
  TestServer server;
  BufferAllocator allocator;
  FlightSqlClient flight;

  @BeforeAll
  void start() throws Exception {
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
      s.execute("CREATE TABLE t AS SELECT CAST(i AS INTEGER) AS i, 'name-' || (i % 37) AS s, i * 1.5 AS d, "
          + "CASE WHEN i % 5 = 0 THEN NULL ELSE i * 1000003 END AS b, 'unique-' || i AS u FROM range(0, " + ROWS + ") r(i)");
      for (String codec : List.of("snappy", "zstd")) {
        s.execute("COPY t TO '" + dir.resolve("good_" + codec + ".parquet") + "' (FORMAT parquet, COMPRESSION " + codec
            + ", ROW_GROUP_SIZE 2048)");
      }
    }
    writeWithCrc(dir.resolve("crc_snappy.parquet"), CompressionCodecName.SNAPPY);
    writeWithCrc(dir.resolve("crc_zstd.parquet"), CompressionCodecName.ZSTD);
    byte[] snappy = Files.readAllBytes(dir.resolve("good_snappy.parquet"));
    int footer = footerLength(snappy);
    int len = snappy.length;
    long[] page = dataPage(dir.resolve("good_snappy.parquet"), "u"); // {offset, header length, compressed size}

    damage("truncated_in_footer", Arrays.copyOf(snappy, len - 8 - footer / 2), "Expected magic number at tail");
    damage("truncated_in_page", Arrays.copyOf(snappy, (int) (page[0] + page[1] + page[2] / 2)), "Expected magic number at tail");
    damage("truncated_to_7_bytes", Arrays.copyOf(snappy, 7), "only 7 bytes long");
    damage("empty", new byte[0], "only 0 bytes long");
    damage("wrong_head_magic", with(snappy, 3, (byte) '0'), "it does not start with PAR1 but with \"PAR0\"");
    damage("wrong_tail_magic", with(snappy, len - 1, (byte) '0'), "Expected magic number at tail");
    damage("footer_length_outside", withFooterLength(snappy, len + 1000), "not within the file");
    damage("footer_length_zero", withFooterLength(snappy, 0), "not within the file");
    damage("footer_length_negative", withFooterLength(snappy, -1), "footer is too large");
    damage("footer_length_short", withFooterLength(snappy, footer - 11), "cannot read Parquet footer");
    // the first byte of a compressed page: snappy's length preamble, zstd's frame magic (neither carries a CRC)
    damage("corrupt_snappy_page", flipped(snappy, (int) (page[0] + page[1])), "Parquet file");
    byte[] zstd = Files.readAllBytes(dir.resolve("good_zstd.parquet"));
    long[] zpage = dataPage(dir.resolve("good_zstd.parquet"), "u");
    damage("corrupt_zstd_page", flipped(zstd, (int) (zpage[0] + zpage[1])), "Parquet file");
    // a byte in the middle of a page that has a CRC (parquet-java writes one by default): the CRC catches it
    for (String codec : List.of("snappy", "zstd")) {
      byte[] crc = Files.readAllBytes(dir.resolve("crc_" + codec + ".parquet"));
      long[] p = dataPage(dir.resolve("crc_" + codec + ".parquet"), "u");
      damage("crc_" + codec + "_page", flipped(crc, (int) (p[0] + p[1] + p[2] / 2)), "CRC checksum verification failed");
    }

    // directory tables: one bad file among good ones (last, or first, whose schema cannot be the table's), all bad
    Path parts = Files.createDirectories(dir.resolve("parts"));
    Files.write(parts.resolve("part-0.parquet"), snappy);
    Files.write(parts.resolve("part-1.parquet"), Arrays.copyOf(snappy, len / 2));
    Files.write(parts.resolve("part-2.parquet"), zstd);
    damages.add(new Damage("parts", FlightStatusCode.UNKNOWN, "part-1.parquet"));
    Path firstBad = Files.createDirectories(dir.resolve("parts_first_bad"));
    Files.write(firstBad.resolve("a.parquet"), with(snappy, len - 1, (byte) 'X'));
    Files.write(firstBad.resolve("b.parquet"), zstd);
    damages.add(new Damage("parts_first_bad", FlightStatusCode.UNKNOWN, "a.parquet"));
    Path allBad = Files.createDirectories(dir.resolve("parts_all_bad"));
    Files.write(allBad.resolve("a.parquet"), Arrays.copyOf(snappy, 100));
    Files.write(allBad.resolve("b.parquet"), withFooterLength(zstd, -5));
    damages.add(new Damage("parts_all_bad", FlightStatusCode.UNKNOWN, "a.parquet"));

    // a seeded run of random damage: one byte each, anywhere in the file
    Random random = new Random(20_260_101);
    List<byte[]> sources = List.of(snappy, zstd, Files.readAllBytes(dir.resolve("crc_snappy.parquet")));
    for (int k = 0; k < FUZZ_CASES; k++) {
      byte[] b = sources.get(k % sources.size()).clone();
      int at = 4 + random.nextInt(b.length - 12);
      byte was = b[at];
      b[at] = (byte) (was ^ (1 + random.nextInt(255)));
      Files.write(dir.resolve("fuzz_" + k + ".parquet"), b);
      fuzzed.put("fuzz_" + k, "byte " + at + " of " + b.length + ": " + (was & 0xFF) + " -> " + (b[at] & 0xFF));
    }

    server = TestServer.start(dir);
    allocator = new RootAllocator();
    flight = server.flightSqlSession(allocator);
    flight.executeUpdate("SET quiver.statement_timeout_ms = 20000"); // kept in the session the cookie names
  }

  @AfterAll
  void stop() throws Exception {
    flight.close();
    allocator.close();
    server.close(); // fails if a failed query leaked a buffer
  }

  private void damage(String table, byte[] bytes, String message) throws Exception {
    Files.write(dir.resolve(table + ".parquet"), bytes);
    damages.add(new Damage(table, FlightStatusCode.UNKNOWN, message));
  }

  List<Damage> damages() {
    return damages;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("damages")
  void damagedFileFailsClearlyAndOtherTablesAreServed(Damage d) throws Exception {
    Throwable t = catchThrowable(() -> run("SELECT " + COLUMNS + " FROM " + d.table()));
    assertThat(t).isInstanceOf(FlightRuntimeException.class);
    FlightRuntimeException e = (FlightRuntimeException) t;
    assertThat(e.status().code()).as(e.getMessage()).isEqualTo(d.status());
    assertThat(e.getMessage()).contains(d.table()).contains(d.message());
    assertGoodTablesServed();
  }

  /**
   * A page header declaring a page larger than a Java array can be: parquet-java fails allocating it,
   * with an OutOfMemoryError. On a server of its own, so that a leak is this test's failure: the batch
   * being decoded when the error comes must be released too.
   */
  @Test
  void pageHeaderDeclaringAHugePageFailsWithoutLeaking() throws Exception {
    Path own = Files.createDirectories(dir.resolve("huge")); // made after the shared server listed its tables
    Files.copy(dir.resolve("good_zstd.parquet"), own.resolve("good_zstd.parquet"));
    byte[] snappy = Files.readAllBytes(dir.resolve("good_snappy.parquet"));
    Files.write(own.resolve("huge_page_header.parquet"),
        withUncompressedPageSize(snappy, dataPage(dir.resolve("good_snappy.parquet"), "u"), Integer.MAX_VALUE));
    try (TestServer huge = TestServer.start(own); BufferAllocator a = new RootAllocator();
        FlightSqlClient c = huge.flightSql(a)) {
      Throwable t = catchThrowable(() -> run(c, "SELECT " + COLUMNS + " FROM huge_page_header"));
      assertThat(t).isInstanceOf(FlightRuntimeException.class);
      FlightRuntimeException e = (FlightRuntimeException) t;
      // CORRUPT_FILE naming the file once the scan recognizes the error as the file's; at least not INTERNAL
      assertThat(e.status().code()).as(e.getMessage()).isIn(FlightStatusCode.UNKNOWN, FlightStatusCode.RESOURCE_EXHAUSTED);
      assertThat(run(c, "SELECT " + COLUMNS + " FROM good_zstd")).isEqualTo(ROWS);
    } // closing the server fails on a leaked buffer
  }

  @Test
  void damagedTablesAreListedWithTheGoodOnes() throws Exception {
    try (Connection c = server.jdbc()) {
      List<String> tables = new ArrayList<>();
      try (var rs = c.getMetaData().getTables(null, null, "%", null)) {
        while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
      }
      assertThat(tables).contains("good_snappy", "good_zstd", "crc_snappy", "empty", "parts", "parts_first_bad", "parts_all_bad")
          .containsAll(damages.stream().map(Damage::table).toList());
      // a directory table takes its schema from its first readable file
      List<String> columns = new ArrayList<>();
      try (var rs = c.getMetaData().getColumns(null, null, "parts_first_bad", "%")) {
        while (rs.next()) columns.add(rs.getString("COLUMN_NAME"));
      }
      assertThat(columns).containsExactly("i", "s", "d", "b", "u");
    }
  }

  /**
   * Random damage may go unnoticed (a changed value in a page without CRC) or change the schema (a column
   * name: NOT_FOUND), but never fails as INTERNAL, never hangs, and an error on the file names it.
   */
  @Test
  void randomDamageNeverFailsAsABugNorHangs() throws Exception {
    Set<FlightStatusCode> clear = Set.of(FlightStatusCode.UNKNOWN, FlightStatusCode.NOT_FOUND,
        FlightStatusCode.UNIMPLEMENTED, FlightStatusCode.INVALID_ARGUMENT, FlightStatusCode.RESOURCE_EXHAUSTED);
    Map<FlightStatusCode, Integer> outcomes = new LinkedHashMap<>();
    for (var f : fuzzed.entrySet()) {
      Throwable t = catchThrowable(() -> run("SELECT " + COLUMNS + " FROM " + f.getKey()));
      if (t == null) continue;
      assertThat(t).as(f.getValue()).isInstanceOf(FlightRuntimeException.class);
      FlightRuntimeException e = (FlightRuntimeException) t;
      assertThat(e.status().code()).as(f.getValue() + ": " + e.getMessage()).isIn(clear);
      if (e.status().code() == FlightStatusCode.UNKNOWN) assertThat(e.getMessage()).as(f.getValue()).contains(f.getKey());
      outcomes.merge(e.status().code(), 1, Integer::sum);
    }
    assertThat(outcomes.getOrDefault(FlightStatusCode.UNKNOWN, 0)).as("%s", outcomes).isPositive();
    assertGoodTablesServed();
  }

  private void assertGoodTablesServed() throws Exception {
    assertThat(run("SELECT count(*) FROM good_snappy")).isEqualTo(1);
    assertThat(run("SELECT " + COLUMNS + " FROM good_zstd")).isEqualTo(ROWS);
  }

  /** Runs {@code sql} to its end through Flight SQL; the number of rows. */
  private long run(String sql) throws Exception {
    return run(flight, sql);
  }

  private static long run(FlightSqlClient client, String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    long n = 0;
    try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (s.next()) n += s.getRoot().getRowCount();
    }
    return n;
  }

  /** A file like the DuckDB ones, written by parquet-java with a CRC on every page. */
  private static void writeWithCrc(Path path, CompressionCodecName codec) throws Exception {
    MessageType schema = Types.buildMessage()
        .required(PrimitiveTypeName.INT32).named("i")
        .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
        .required(PrimitiveTypeName.DOUBLE).named("d")
        .optional(PrimitiveTypeName.INT64).named("b")
        .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("u")
        .named("t");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(path)).withType(schema)
        .withCompressionCodec(codec).withPageWriteChecksumEnabled(true).withDictionaryEncoding(false).build()) {
      for (int i = 0; i < ROWS; i++) {
        Group g = f.newGroup().append("i", i).append("s", "name-" + (i % 37)).append("d", i * 1.5).append("u", "unique-" + i);
        if (i % 5 != 0) g.append("b", i * 1000003L);
        w.write(g);
      }
    }
  }

  /** The first data page of {@code column} in row group 0: {offset, header length, compressed size}. */
  private static long[] dataPage(Path file, String column) throws Exception {
    var footer = ParquetFileReader.readFooter(
        HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), new org.apache.hadoop.conf.Configuration()),
        org.apache.parquet.format.converter.ParquetMetadataConverter.NO_FILTER);
    for (ColumnChunkMetaData c : footer.getBlocks().get(0).getColumns()) {
      if (!c.getPath().toDotString().equals(column)) continue;
      byte[] bytes = Files.readAllBytes(file);
      long offset = c.getFirstDataPageOffset();
      ByteArrayInputStream in = new ByteArrayInputStream(bytes, (int) offset, bytes.length - (int) offset);
      PageHeader h = Util.readPageHeader(in);
      long headerLength = bytes.length - offset - in.available();
      return new long[] {offset, headerLength, h.getCompressed_page_size()};
    }
    throw new AssertionError("no column " + column + " in " + file);
  }

  private static int footerLength(byte[] file) {
    return ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  private static byte[] withFooterLength(byte[] file, int footerLength) {
    byte[] b = file.clone();
    ByteBuffer.wrap(b, b.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(footerLength);
    return b;
  }

  private static byte[] with(byte[] file, int at, byte value) {
    byte[] b = file.clone();
    b[at] = value;
    return b;
  }

  private static byte[] flipped(byte[] file, int at) {
    return with(file, at, (byte) (file[at] ^ 0x5A));
  }

  /** {@code file} with the header of the data page at {@code page} declaring {@code size} uncompressed bytes. */
  private static byte[] withUncompressedPageSize(byte[] file, long[] page, int size) throws Exception {
    PageHeader h = Util.readPageHeader(new ByteArrayInputStream(file, (int) page[0], (int) page[1]));
    h.setUncompressed_page_size(size);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(file, 0, (int) page[0]);
    Util.writePageHeader(h, out); // longer than the original: what follows shifts, the footer stays last
    out.write(file, (int) (page[0] + page[1]), file.length - (int) (page[0] + page[1]));
    return out.toByteArray();
  }
}
