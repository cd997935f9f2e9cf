package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Parquet file of the public parquet-testing corpus (other writers: Impala, parquet-cpp, parquet-mr,
 * Spark, arrow-rs, Polars), served from one data directory, good and bad files side by side. Each file
 * of {@code data/} is either read and compared with an oracle (DuckDB reading the same file, or values
 * the corpus documents), or gives a clear error: nested and other unsupported columns are UNIMPLEMENTED
 * naming the column while the file's flat columns read; an unreadable file is UNKNOWN (or UNIMPLEMENTED
 * for encryption) naming the file. Every file of {@code bad_data/} gives a clear error, and afterwards the
 * server still serves the good tables. Queries are bounded by the statement timeout; closing the server
 * checks that nothing leaked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ParquetTestingTest {
  static final String RESOURCES = "/parquet-testing/";

  /** Read whole (every flat column) and compared row by row with DuckDB reading the same file. */
  static final List<String> MATCH_DUCKDB = List.of(
      "alltypes_dictionary", "alltypes_plain", "alltypes_plain.snappy", "alltypes_tiny_pages",
      "alltypes_tiny_pages_plain", "binary", "binary_truncated_min_max", "byte_array_decimal", "byte_stream_split.zstd",
      "column_chunk_key_value_metadata", "concatenated_gzip_members", "data_index_bloom_encoding_stats",
      "data_index_bloom_encoding_with_length", "datapage_v1-snappy-compressed-checksum", "datapage_v1-uncompressed-checksum",
      "datapage_v2.snappy", "datapage_v2_empty_datapage.snappy", "delta_binary_packed", "delta_byte_array",
      "delta_encoding_optional_column", "delta_encoding_required_column", "delta_length_byte_array",
      "dict-page-offset-zero", "encrypt_columns_plaintext_footer", "fixed_length_byte_array", "fixed_length_decimal",
      "fixed_length_decimal_legacy", "float16_nonzeros_and_nans", "float16_zeros_and_nans", "floating_orders_nan_count",
      "int32_decimal", "int32_with_null_pages", "int64_decimal", "lz4_raw_compressed", "lz4_raw_compressed_larger",
      "nan_in_stats", "nested_lists.snappy", "nested_maps.snappy", "nonnullable.impala", "nullable.impala",
      "overflow_i16_page_cnt", "page_v2_empty_compressed", "plain-dict-uncompressed-checksum", "repeated_no_annotation",
      "rle-dict-snappy-checksum", "rle_boolean_encoding", "single_nan", "sort_columns",
      // a logical type newer than parquet-java knows: read as its physical type (BINARY), as DuckDB does
      "unknown-logical-type");

  /** Read whole and compared with another oracle, because DuckDB cannot read them (see each test). */
  static final List<String> OTHER_ORACLE = List.of(
      "hadoop_lz4_compressed", "hadoop_lz4_compressed_larger", "byte_stream_split_extended.gzip", "int96_from_spark");

  /** Only nested or otherwise unsupported columns: each is UNIMPLEMENTED by name; count(*) still answers. */
  static final List<String> NO_FLAT_COLUMN = List.of(
      "incorrect_map_schema", "large_string_map.brotli", "list_columns", "map_no_value", "nested_structs.rust",
      "null_list", "nulls.snappy", "old_list_structure", "repeated_primitive_no_list");

  /**
   * Files no query can read, with the status and a part of the message every query touching them gets
   * (besides the file's name), and why. Where the scan notices a damaged page ("cannot read row group",
   * "cannot decode") depends on how it reads, so only "Parquet file" is required there.
   */
  record Failure(FlightStatusCode status, String message, String why) {}

  static final Map<String, Failure> FAILS = failures();

  private static Map<String, Failure> failures() {
    Map<String, Failure> m = new LinkedHashMap<>();
    Failure encrypted = new Failure(FlightStatusCode.UNIMPLEMENTED, "Parquet modular encryption is not supported",
        "encrypted footer: Quiver has no key management");
    for (String f : List.of("encrypt_columns_and_footer", "encrypt_columns_and_footer_aad",
        "encrypt_columns_and_footer_bloom_filter", "encrypt_columns_and_footer_ctr",
        "encrypt_columns_and_footer_disable_aad_storage", "external_key_material_java", "uniform_encryption")) {
      m.put(f, encrypted);
    }
    m.put("non_hadoop_lz4_compressed", new Failure(FlightStatusCode.UNKNOWN, "Parquet file",
        "codec LZ4 holding raw LZ4 blocks (old parquet-cpp), not the Hadoop framing parquet-java decodes; "
            + "DuckDB cannot read LZ4 either; hadoop_lz4_compressed holds the same rows"));
    m.put("nation.dict-malformed", new Failure(FlightStatusCode.UNKNOWN, "Parquet file",
        "a truncated data page, on purpose (Arrow C++ expects an error); DuckDB reads it anyway, wrongly"));
    m.put("datapage_v1-corrupt-checksum", new Failure(FlightStatusCode.UNKNOWN, "CRC checksum verification failed",
        "page CRC mismatch, on purpose; DuckDB does not verify CRCs (the -uncompressed- twin reads)"));
    m.put("rle-dict-uncompressed-corrupt-checksum", new Failure(FlightStatusCode.UNKNOWN,
        "dictionary page integrity, CRC checksum verification failed",
        "dictionary page CRC mismatch, on purpose; DuckDB does not verify CRCs (the -snappy- twin reads)"));
    return m;
  }

  /**
   * The columns Quiver cannot serve, by file, with the reason its error gives ("*": every column).
   * Every other column of every file is served.
   */
  static final Map<String, Map<String, String>> UNSUPPORTED = Map.ofEntries(
      entry("datapage_v2.snappy", Map.of("e", "nested type LIST")),
      entry("encrypt_columns_plaintext_footer", Map.of("int32_field", "INT32 annotated TIME(MILLIS,true)",
          "int64_field", "repeated (list) column", "float_field", "column encrypted with Parquet modular encryption",
          "double_field", "column encrypted with Parquet modular encryption")),
      entry("nested_lists.snappy", Map.of("a", "nested type LIST")),
      entry("nested_maps.snappy", Map.of("a", "nested type MAP")),
      entry("nonnullable.impala", Map.of("Int_Array", "nested type LIST", "int_array_array", "nested type LIST",
          "Int_Map", "nested type MAP", "int_map_array", "nested type LIST", "nested_Struct", "nested type STRUCT")),
      entry("nullable.impala", Map.of("int_array", "nested type LIST", "int_array_Array", "nested type LIST",
          "int_map", "nested type MAP", "int_Map_Array", "nested type LIST", "nested_struct", "nested type STRUCT")),
      entry("repeated_no_annotation", Map.of("phoneNumbers", "nested type STRUCT")),
      entry("incorrect_map_schema", Map.of("my_map", "nested type MAP")),
      entry("large_string_map.brotli", Map.of("arr", "nested type MAP")),
      entry("list_columns", Map.of("int64_list", "nested type LIST", "utf8_list", "nested type LIST")),
      entry("map_no_value", Map.of("my_map", "nested type MAP", "my_map_no_v", "nested type MAP", "my_list", "nested type LIST")),
      entry("nested_structs.rust", Map.of("*", "nested type STRUCT")),
      entry("null_list", Map.of("emptylist", "nested type LIST")),
      entry("nulls.snappy", Map.of("b_struct", "nested type STRUCT")),
      entry("old_list_structure", Map.of("a", "nested type LIST")),
      entry("repeated_primitive_no_list", Map.of("Int32_list", "repeated (list) column", "String_list",
          "repeated (list) column", "group_of_lists", "nested type STRUCT")),
      entry("ARROW-GH-45185", Map.of("x", "nested type LIST")),
      entry("ARROW-RS-GH-6229-LEVELS", Map.of("outer", "nested type LIST")));

  /** What each file of bad_data/ gives: the status and message of a query reading its flat columns. */
  static final Map<String, Failure> BAD = Map.of(
      "PARQUET-1481", new Failure(FlightStatusCode.UNKNOWN, "cannot read Parquet footer",
          "the Thrift schema is corrupt (a column without type)"),
      "ARROW-GH-41317", new Failure(FlightStatusCode.UNKNOWN, "cannot read Parquet footer",
          "the column chunks do not match the schema"),
      "ARROW-GH-41321", new Failure(FlightStatusCode.UNKNOWN, "Parquet file",
          "decoded levels fewer than the page's num_values (a bit width out of range)"),
      "ARROW-GH-47662", new Failure(FlightStatusCode.UNKNOWN, "Parquet file",
          "NULLs in a REQUIRED column"),
      "ARROW-RS-GH-6229-DICTHEADER", new Failure(FlightStatusCode.UNKNOWN, "Parquet file",
          "a dictionary page header with a negative number of values"),
      // the corruption is in repetition levels of a nested column, which Quiver refuses before reading
      "ARROW-GH-45185", new Failure(FlightStatusCode.UNIMPLEMENTED, "column x of table ARROW_GH_45185 is a nested type LIST",
          "repetition levels starting with 1"),
      "ARROW-RS-GH-6229-LEVELS", new Failure(FlightStatusCode.UNIMPLEMENTED,
          "column outer of table ARROW_RS_GH_6229_LEVELS is a nested type LIST", "too few repetition levels"));

  /**
   * In bad_data/ but valid: RLE dictionary indexes with bit width 0 (a one-value dictionary) crashed Arrow
   * Go's reader; Quiver reads it like DuckDB does.
   */
  static final String BAD_BUT_VALID = "ARROW-GH-43605";

  @TempDir
  static Path dir;
  TestServer server;
  Connection quiver;
  Connection duck;
  BufferAllocator allocator;
  FlightSqlClient flight;

  @BeforeAll
  void start() throws Exception {
    for (String resource : corpus("")) copy(resource);
    for (String resource : corpus("bad_data/")) copy(resource);
    server = TestServer.start(dir); // unreadable files among the tables must not stop it
    quiver = server.jdbc();
    try (Statement s = quiver.createStatement()) {
      s.execute("SET quiver.statement_timeout_ms = 20000");
    }
    duck = DriverManager.getConnection("jdbc:duckdb:");
    allocator = new RootAllocator();
    flight = server.flightSqlSession(allocator);
    flight.executeUpdate("SET quiver.statement_timeout_ms = 20000"); // kept in the session the cookie names
  }

  @AfterAll
  void stop() throws Exception {
    flight.close();
    allocator.close();
    quiver.close();
    duck.close();
    server.close(); // fails if a query leaked a buffer
  }

  /** The Parquet files under {@code parquet-testing/<sub>}, as resource paths. */
  private List<String> corpus(String sub) throws Exception {
    try (Stream<Path> files = Files.list(Path.of(getClass().getResource(RESOURCES + sub).toURI()))) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".parquet") || n.endsWith(".parquet.encrypted"))
          .sorted().map(n -> sub + n).toList();
    }
  }

  private void copy(String resource) throws Exception {
    try (InputStream in = getClass().getResourceAsStream(RESOURCES + resource)) {
      Files.copy(in, dir.resolve(table(name(resource)) + ".parquet"));
    }
  }

  /** A corpus file's name without directory and Parquet suffixes. */
  static String name(String resource) {
    return resource.replaceFirst("^.*/", "").replaceFirst("\\.parquet(\\.encrypted)?$", "");
  }

  /** The table a corpus file is served as (Quiver serves {@code *.parquet}; dots and dashes become '_'). */
  static String table(String file) {
    return file.replaceAll("[.-]", "_");
  }

  private String path(String file) {
    return "'" + dir.resolve(table(file) + ".parquet") + "'";
  }

  private static String quote(String column) {
    return "\"" + column + "\"";
  }

  @Test
  void everyFileOfTheCorpusIsCheckedExactlyOnce() throws Exception {
    List<String> checked = new ArrayList<>();
    checked.addAll(MATCH_DUCKDB);
    checked.addAll(OTHER_ORACLE);
    checked.addAll(NO_FLAT_COLUMN);
    checked.addAll(FAILS.keySet());
    assertThat(checked).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(
        corpus("").stream().map(ParquetTestingTest::name).toList()).hasSize(73);
    List<String> bad = new ArrayList<>(BAD.keySet());
    bad.add(BAD_BUT_VALID);
    assertThat(bad).containsExactlyInAnyOrderElementsOf(corpus("bad_data/").stream().map(ParquetTestingTest::name).toList());
  }

  @Test
  void everyTableIsListedEvenUnreadableOnes() throws Exception {
    Set<String> listed = new HashSet<>();
    try (ResultSet rs = quiver.getMetaData().getTables(null, null, "%", null)) {
      while (rs.next()) listed.add(rs.getString("TABLE_NAME"));
    }
    for (String f : corpus("")) assertThat(listed).contains(table(name(f)));
    for (String f : corpus("bad_data/")) assertThat(listed).contains(table(name(f)));
  }

  /** The columns Quiver serves for a table, quoted, in file order. */
  private List<String> servedColumns(String file) throws Exception {
    List<String> columns = new ArrayList<>();
    try (ResultSet rs = quiver.getMetaData().getColumns(null, null, table(file), "%")) {
      while (rs.next()) columns.add(quote(rs.getString("COLUMN_NAME")));
    }
    return columns;
  }

  private List<String> rows(Connection c, String sql) throws Exception {
    return TestServer.rows(c, sql).stream().map(ParquetTestingTest::row).toList();
  }

  static List<String> matchDuckDb() {
    return MATCH_DUCKDB;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("matchDuckDb")
  void everyRowMatchesDuckDb(String file) throws Exception {
    List<String> columns = servedColumns(file);
    assertThat(columns).isNotEmpty();
    String select = "SELECT " + String.join(", ", columns) + " FROM ";
    List<String> mine = rows(quiver, select + table(file));
    List<String> theirs = rows(duck, select + path(file));
    assertThat(mine).hasSameSizeAs(theirs).containsExactlyInAnyOrderElementsOf(theirs);
    // Quiver's own decoders read every column chunk of a file whose columns it serves
    Map<String, Long> metrics = TestServer.scanMetrics(quiver, select + table(file));
    assertThat(metrics).containsKey("rows_scanned");
    assertThat(metrics.getOrDefault("decoder_fallbacks", 0L)).as("chunks read by parquet-java").isZero();
  }

  static List<String> unsupported() {
    return List.copyOf(UNSUPPORTED.keySet());
  }

  /** Every unserved column is named as unsupported with its reason, and no column silently disappears. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("unsupported")
  void unsupportedColumnsAreNamedWhileTheOthersAreServed(String file) throws Exception {
    List<String> all = topLevelColumns(file);
    Set<String> served = new HashSet<>(servedColumns(file).stream().map(c -> c.substring(1, c.length() - 1)).toList());
    Map<String, String> expected = UNSUPPORTED.get(file);
    List<String> unserved = all.stream().filter(c -> !served.contains(c)).toList();
    if (expected.containsKey("*")) {
      assertThat(served).isEmpty();
    } else {
      assertThat(unserved).containsExactlyInAnyOrderElementsOf(expected.keySet());
    }
    for (String c : unserved) {
      String reason = expected.getOrDefault(c, expected.get("*"));
      FlightRuntimeException e = flightError("SELECT " + quote(c) + " FROM " + table(file));
      assertThat(e.status().code()).as(c).isEqualTo(FlightStatusCode.UNIMPLEMENTED);
      assertThat(e.getMessage()).contains("column " + c + " of table " + table(file) + " is a " + reason + ", which is not supported");
    }
  }

  /** A file's top-level column names, as DuckDB reads them, else (DuckDB failing) from its footer. */
  private List<String> topLevelColumns(String file) throws Exception {
    List<String> columns = new ArrayList<>();
    try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("DESCRIBE SELECT * FROM " + path(file))) {
      while (rs.next()) columns.add(rs.getString(1));
      return columns;
    } catch (java.sql.SQLException duckCannot) {
      var footer = org.apache.parquet.hadoop.ParquetFileReader.readFooter(
          org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
              new org.apache.hadoop.fs.Path(dir.resolve(table(file) + ".parquet").toUri()), new org.apache.hadoop.conf.Configuration()),
          org.apache.parquet.format.converter.ParquetMetadataConverter.NO_FILTER);
      return footer.getFileMetaData().getSchema().getFields().stream().map(org.apache.parquet.schema.Type::getName).toList();
    }
  }

  static List<String> noFlatColumn() {
    return NO_FLAT_COLUMN;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("noFlatColumn")
  void filesWithOnlyNestedColumnsStillCount(String file) throws Exception {
    assertThat(servedColumns(file)).isEmpty();
    // map_no_value.md: 3 rows (DuckDB refuses a MAP without a value column, which the format allows)
    long expected = file.equals("map_no_value") ? 3 : TestServer.scalarLong(duck, "SELECT count(*) FROM " + path(file));
    assertThat(TestServer.scalarLong(quiver, "SELECT count(*) FROM " + table(file))).isEqualTo(expected);
  }

  static List<String> fails() {
    return List.copyOf(FAILS.keySet());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fails")
  void unreadableFilesFailClearly(String file) throws Exception {
    Failure f = FAILS.get(file);
    List<String> columns = servedColumns(file);
    String sql = "SELECT " + (columns.isEmpty() ? "count(*)" : String.join(", ", columns)) + " FROM " + table(file);
    FlightRuntimeException e = flightError(sql);
    assertThat(e.status().code()).as(f.why()).isEqualTo(f.status());
    assertThat(e.getMessage()).as(f.why()).contains(f.message()).contains(table(file));
    assertThat(TestServer.scalarLong(quiver, "SELECT count(*) FROM alltypes_plain")).isEqualTo(8);
  }

  static List<String> bad() {
    return List.copyOf(BAD.keySet());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bad")
  void badDataFailsClearlyAndTheServerKeepsServing(String file) throws Exception {
    Failure f = BAD.get(file);
    List<String> columns = servedColumns(file);
    String sql = "SELECT " + (columns.isEmpty() ? "*" : String.join(", ", columns)) + " FROM " + table(file);
    if (f.status() == FlightStatusCode.UNIMPLEMENTED) {
      sql = "SELECT " + quote(UNSUPPORTED.get(file).keySet().iterator().next()) + " FROM " + table(file);
    }
    FlightRuntimeException e = flightError(sql);
    assertThat(e.status().code()).as(f.why()).isEqualTo(f.status());
    assertThat(e.getMessage()).as(f.why()).contains(f.message()).contains(table(file));
    assertThat(TestServer.scalarLong(quiver, "SELECT count(*) FROM alltypes_plain")).isEqualTo(8);
  }

  @Test
  void badButValidFileReadsLikeDuckDb() throws Exception {
    String select = "SELECT min_fl FROM ";
    assertThat(rows(quiver, select + table(BAD_BUT_VALID))).hasSize(21_186)
        .containsExactlyInAnyOrderElementsOf(rows(duck, select + path(BAD_BUT_VALID)));
  }

  /** Runs {@code sql} to its end through Flight SQL and returns the error it must fail with. */
  private FlightRuntimeException flightError(String sql) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> {
      FlightInfo info = flight.execute(sql);
      try (FlightStream s = flight.getStream(info.getEndpoints().get(0).getTicket())) {
        while (s.next()) {
          // drain
        }
      }
    });
    assertThat(t).as(sql).isInstanceOf(FlightRuntimeException.class);
    return (FlightRuntimeException) t;
  }

  /** DuckDB cannot read Hadoop-framed LZ4; the lz4_raw files hold the same rows. */
  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"hadoop_lz4_compressed", "hadoop_lz4_compressed_larger"})
  void hadoopLz4MatchesItsLz4RawTwin(String file) throws Exception {
    String select = "SELECT " + String.join(", ", servedColumns(file)) + " FROM ";
    List<String> theirs = rows(duck, select + path(file.replace("hadoop_lz4", "lz4_raw")));
    assertThat(rows(quiver, select + table(file))).isNotEmpty().hasSameSizeAs(theirs).containsExactlyInAnyOrderElementsOf(theirs);
  }

  /**
   * DuckDB reads BYTE_STREAM_SPLIT only for FLOAT and DOUBLE; the file's README says each column comes
   * twice with the same values, PLAIN and BYTE_STREAM_SPLIT: both must equal DuckDB's PLAIN ones.
   */
  @Test
  void byteStreamSplitOfEveryTypeEqualsItsPlainTwin() throws Exception {
    String file = "byte_stream_split_extended.gzip";
    List<String> bss = new ArrayList<>();
    List<String> plain = new ArrayList<>();
    for (String t : List.of("float16", "float", "double", "int32", "int64", "flba5", "decimal")) {
      bss.add(t + "_plain");
      bss.add(t + "_byte_stream_split");
      plain.add(t + "_plain");
      plain.add(t + "_plain");
    }
    List<String> mine = rows(quiver, "SELECT " + String.join(", ", bss) + " FROM " + table(file));
    List<String> theirs = rows(duck, "SELECT " + String.join(", ", plain) + " FROM " + path(file));
    assertThat(mine).hasSize(200).containsExactlyInAnyOrderElementsOf(theirs);
  }

  /**
   * Spark INT96 timestamps beyond the nanosecond range: the values are those int96_from_spark.md says
   * Spark wrote, in UTC (DuckDB overflows the last one, so it cannot be the oracle here). The first
   * value was written without a zone by a writer at UTC-8, as the corpus' other readers also show.
   */
  @Test
  void int96TimestampsKeepSparksWholeRange() throws Exception {
    assertThat(rows(quiver, "SELECT a FROM int96_from_spark")).containsExactly("2024-01-01T20:34:56.123456|",
        "2024-01-01T01:00|", "9999-12-31T03:00|", "2024-12-30T23:00|", "NULL|", "+290000-12-30T23:00|");
  }

  /** The delta-encoded files come with the values they hold, as CSV (empty unquoted: NULL). */
  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"delta_binary_packed", "delta_byte_array",
      "delta_encoding_optional_column", "delta_encoding_required_column"})
  void deltaEncodingsMatchTheCorpusExpectedValues(String file) throws Exception {
    List<String> expected;
    try (InputStream in = getClass().getResourceAsStream(RESOURCES + file + "_expect.csv")) {
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().skip(1).map(ParquetTestingTest::csvRow).toList();
    }
    List<String> mine = rows(quiver, "SELECT " + String.join(", ", servedColumns(file)) + " FROM " + table(file));
    assertThat(mine).hasSize(expected.size()).containsExactlyElementsOf(expected);
  }

  /** Values int32_with_null_pages.md and fixed_length_byte_array.md give: counts, NULLs, min and max. */
  @Test
  void documentedStatisticsMatch() throws Exception {
    assertThat(TestServer.rows(quiver, "SELECT count(*), count(int32_field), min(int32_field), max(int32_field) "
        + "FROM int32_with_null_pages").get(0)).map(o -> ((Number) o).longValue())
        .containsExactly(1000L, 725L, -2136906554L, 2145722375L);
    List<String> flba = rows(quiver, "SELECT flba_field FROM fixed_length_byte_array");
    assertThat(flba).hasSize(1000).filteredOn(v -> v.equals("NULL|")).hasSize(105);
    List<String> values = flba.stream().filter(v -> !v.equals("NULL|")).sorted().toList();
    assertThat(values.get(0)).isEqualTo("00000001|");
    assertThat(values.get(values.size() - 1)).isEqualTo("000003e8|");
    // "written in the descending order"
    assertThat(flba.stream().filter(v -> !v.equals("NULL|")).toList()).isSortedAccordingTo(java.util.Comparator.reverseOrder());
  }

  @Test
  void nestedColumnIsNamedAsUnsupportedWhileFlatColumnsRead() throws Exception {
    try (Statement s = quiver.createStatement()) {
      assertThatThrownBy(() -> s.executeQuery("SELECT e FROM datapage_v2_snappy"))
          .hasMessageContaining("column e of table datapage_v2_snappy")
          .hasMessageContaining("not supported");
    }
    assertThat(rows(quiver, "SELECT a, b, c, d FROM datapage_v2_snappy"))
        .containsExactlyInAnyOrderElementsOf(rows(duck, "SELECT a, b, c, d FROM " + path("datapage_v2.snappy")));
  }

  /** One CSV line as {@link #row} writes a row: quoted fields as text, empty unquoted ones as NULL. */
  private static String csvRow(String line) {
    StringBuilder out = new StringBuilder();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    boolean wasQuoted = false;
    for (int i = 0; i <= line.length(); i++) {
      char c = i < line.length() ? line.charAt(i) : ',';
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
        wasQuoted = true;
      } else if (c == ',') {
        out.append(field.isEmpty() && !wasQuoted ? "NULL" : field).append('|');
        field.setLength(0);
        wasQuoted = false;
      } else {
        field.append(c);
      }
    }
    return out.toString();
  }

  private static String row(List<Object> r) {
    StringBuilder sb = new StringBuilder();
    for (Object o : r) {
      sb.append(DuckDbInteropTest.normalize(o)).append('|');
    }
    return sb.toString();
  }
}
