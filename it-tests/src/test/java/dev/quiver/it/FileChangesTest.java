package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data directory changes under a running server, as ETL jobs change it: files are atomically replaced
 * (same size, even the same modification time), added to and deleted from directory tables, new tables
 * appear and old ones go. Every query sees the files as they are when it is planned (never the footer of a
 * file that is no longer there), and a file that changes while a query reads it fails that query with a
 * clear, retryable error; the server keeps serving. Expected values come from DuckDB reading the same files.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FileChangesTest {
  @TempDir
  Path dir;

  /** The scenario: x in 0..999 in 4 row groups, replaced by x in 1,000,000..1,000,999, same size. */
  @Test
  void atomicallyReplacedFileIsReadWithItsNewFooter() throws Exception {
    Path t = dir.resolve("t.parquet");
    writeLongs(t, 0, 1000, 250);
    assertThat(rowGroups(t)).isEqualTo(4);
    try (TestServer server = TestServer.start(dir); Connection c = server.jdbc();
        PreparedStatement prepared = c.prepareStatement("SELECT count(*) FROM t WHERE x >= ?")) {
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t WHERE x >= 1000000")).isZero();
      assertThat(TestServer.scalarLong(c, "SELECT sum(x) FROM t")).isEqualTo(duckLong("SELECT sum(x) FROM '" + t + "'"));
      prepared.setLong(1, 1_000_000);
      assertThat(count(prepared)).isZero();

      Path next = dir.resolve(".t.parquet.tmp"); // hidden: not a table while it is written
      writeSameSize(next, 1_000_000, t);
      Files.move(next, t, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

      long expected = duckLong("SELECT count(*) FROM '" + t + "' WHERE x >= 1000000");
      assertThat(expected).isEqualTo(1000);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t WHERE x >= 1000000")).isEqualTo(expected);
      assertThat(TestServer.scalarLong(c, "SELECT sum(x) FROM t")).isEqualTo(duckLong("SELECT sum(x) FROM '" + t + "'"));
      // a statement prepared before the replacement and executed after it plans over the new file
      assertThat(count(prepared)).isEqualTo(expected);
    }
  }

  /** The data directory deleted under the server: a clear NOT_FOUND without its absolute path; the server serves again once it is back. */
  @Test
  void deletedDataDirectoryIsNamedWithoutItsPath() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    writeLongs(data.resolve("t.parquet"), 0, 1000, 250);
    try (TestServer server = TestServer.start(data); Connection c = server.jdbc()) {
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t")).isEqualTo(1000);
      Path moved = dir.resolve("moved");
      Files.move(data, moved);
      assertThatThrownBy(() -> TestServer.scalarLong(c, "SELECT count(*) FROM t"))
          .hasMessageContaining("the data directory no longer exists")
          .satisfies(e -> assertThat(String.valueOf(e.getMessage()) + e.getCause()).doesNotContain(dir.toString()));
      Files.move(moved, data);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t")).isEqualTo(1000);
    }
  }

  /** The worst case of a coarse clock: same path, same size and the same modification time as the old file. */
  @Test
  void replacementWithTheSameSizeAndModificationTimeIsSeen() throws Exception {
    Path t = dir.resolve("t.parquet");
    writeLongs(t, 0, 1000, 250);
    try (TestServer server = TestServer.start(dir); Connection c = server.jdbc()) {
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t WHERE x >= 1000000")).isZero();
      FileTime mtime = Files.getLastModifiedTime(t);
      Path next = dir.resolve(".t.parquet.tmp");
      writeSameSize(next, 1_000_000, t);
      Files.setLastModifiedTime(next, mtime);
      Files.move(next, t, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      assertThat(Files.getLastModifiedTime(t)).isEqualTo(mtime);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t WHERE x >= 1000000")).isEqualTo(1000);
      assertThat(TestServer.scalarLong(c, "SELECT min(x) FROM t")).isEqualTo(1_000_000);
    }
  }

  /** A replacement with another layout (rows, row groups, columns): read with its own footer, no "corrupt file". */
  @Test
  void replacedFileWithAnotherLayoutReadsCorrectly() throws Exception {
    Path t = dir.resolve("t.parquet");
    writeLongs(t, 0, 1000, 250);
    try (TestServer server = TestServer.start(dir); Connection c = server.jdbc()) {
      assertThat(TestServer.scalarLong(c, "SELECT sum(x) FROM t")).isEqualTo(499_500);
      Path next = dir.resolve("_t.tmp");
      try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
        s.execute("COPY (SELECT (range * 7)::BIGINT AS x, 'v' || range AS y FROM range(50000)) TO '" + next
            + "' (FORMAT parquet, ROW_GROUP_SIZE 10240, COMPRESSION zstd)");
      }
      Files.move(next, t, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM t")).isEqualTo(50_000);
      assertThat(TestServer.scalarLong(c, "SELECT sum(x) FROM t WHERE x >= 1000"))
          .isEqualTo(duckLong("SELECT sum(x) FROM '" + t + "' WHERE x >= 1000"));
      assertThat(TestServer.rows(c, "SELECT y FROM t WHERE x = 349993")).containsExactly(List.of("v49999"));
      // and back to the first layout: the footer cache keys on the file, not on the name
      writeLongs(next, 0, 1000, 250);
      Files.move(next, t, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      assertThat(TestServer.scalarLong(c, "SELECT sum(x) FROM t")).isEqualTo(499_500);
      assertThatThrownBy(() -> TestServer.rows(c, "SELECT y FROM t")).hasMessageContaining("y");
    }
  }

  /** Files added to and deleted from a directory table, and table files created and deleted, are seen by the next query. */
  @Test
  void newAndDeletedFilesAndTablesAreSeen() throws Exception {
    Path d = Files.createDirectory(dir.resolve("d"));
    writeLongs(d.resolve("part-0.parquet"), 0, 100, 50);
    writeLongs(dir.resolve("old.parquet"), 0, 10, 10);
    try (TestServer server = TestServer.start(dir); Connection c = server.jdbc()) {
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM d")).isEqualTo(100);
      assertThat(tables(c)).containsExactly("d", "old");

      writeLongs(dir.resolve(".part-1.tmp"), 1000, 300, 100);
      Files.move(dir.resolve(".part-1.tmp"), d.resolve("part-1.parquet"), StandardCopyOption.ATOMIC_MOVE);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM d")).isEqualTo(400);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM d WHERE x >= 1000")).isEqualTo(300);

      Files.delete(d.resolve("part-0.parquet"));
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM d")).isEqualTo(300);
      assertThat(TestServer.scalarLong(c, "SELECT min(x) FROM d")).isEqualTo(1000);

      writeLongs(dir.resolve("fresh.parquet"), 5, 7, 7);
      assertThat(tables(c)).containsExactly("d", "fresh", "old");
      assertThat(TestServer.scalarLong(c, "SELECT sum(x) FROM fresh")).isEqualTo(5 + 6 + 7 + 8 + 9 + 10 + 11);
      assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM fresh f JOIN d ON f.x + 995 = d.x")).isEqualTo(7);

      Files.delete(dir.resolve("old.parquet"));
      assertThat(tables(c)).containsExactly("d", "fresh");
      assertThatThrownBy(() -> TestServer.rows(c, "SELECT * FROM old")).hasMessageContaining("table old does not exist");

      Files.delete(d.resolve("part-1.parquet")); // an empty directory is no table
      assertThat(tables(c)).containsExactly("fresh");
    }
  }

  /**
   * A file replaced, or deleted, while a query streams it: that query fails with a clear, retryable error (never
   * rows of two versions), and the server goes on serving the new file.
   */
  @Test
  void fileChangedWhileAQueryReadsItFailsThatQuery() throws Exception {
    Path big = dir.resolve("big.parquet");
    long rows = 3_000_000;
    writeBig(big, 0, rows);
    try (TestServer server = TestServer.start(dir); BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = server.flightSql(allocator); Connection c = server.jdbc()) {
      for (boolean delete : new boolean[] {false, true}) {
        FlightInfo info = client.execute("SELECT x FROM big");
        Throwable failure;
        long base = delete ? 10_000_000 : 0; // the version the query plans over
        minValue = Long.MAX_VALUE;
        maxValue = Long.MIN_VALUE;
        try (FlightStream s = client.getStream(info.getEndpoints().get(0).getTicket())) {
          assertThat(s.next()).isTrue();
          see((BigIntVector) s.getRoot().getVector(0));
          Path next = dir.resolve(".big.tmp");
          if (delete) {
            Files.delete(big);
          } else {
            writeBig(next, 10_000_000, rows);
            Files.move(next, big, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          }
          failure = catchThrowable(() -> {
            while (s.next()) see((BigIntVector) s.getRoot().getVector(0));
          });
        }
        assertThat(failure).as("the stream must fail, not end normally").isInstanceOf(FlightRuntimeException.class);
        FlightRuntimeException f = (FlightRuntimeException) failure;
        assertThat(f.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE);
        assertThat(f.getMessage()).contains("big.parquet")
            .contains(delete ? "was deleted while the query read it" : "changed while the query read it")
            .contains("retry the query");
        assertThat(minValue).as("rows of another version mixed in").isGreaterThanOrEqualTo(base);
        assertThat(maxValue).as("rows of another version mixed in").isLessThan(base + rows);
        if (delete) {
          assertThatThrownBy(() -> TestServer.rows(c, "SELECT count(*) FROM big")).hasMessageContaining("does not exist");
        } else {
          assertThat(TestServer.scalarLong(c, "SELECT min(x) FROM big")).isEqualTo(10_000_000);
          assertThat(TestServer.scalarLong(c, "SELECT count(*) FROM big")).isEqualTo(rows);
        }
      }
      waitForNoRunningQueries(server);
    }
  }

  private long minValue;
  private long maxValue;

  private void see(BigIntVector x) {
    for (int i = 0; i < x.getValueCount(); i++) {
      minValue = Math.min(minValue, x.get(i));
      maxValue = Math.max(maxValue, x.get(i));
    }
  }

  private static void waitForNoRunningQueries(TestServer server) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (server.runningQueries() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
    assertThat(server.runningQueries()).isZero();
  }

  private static long count(PreparedStatement p) throws SQLException {
    try (ResultSet rs = p.executeQuery()) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  private static List<String> tables(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = c.getMetaData().getTables(null, null, "%", null)) {
      while (rs.next()) out.add(rs.getString("TABLE_NAME"));
    }
    return out;
  }

  private static long duckLong(String sql) throws SQLException {
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  /** {@code count} longs from {@code first} in row groups of {@code perRowGroup} rows: plain, uncompressed, no dictionary. */
  static void writeLongs(Path path, long first, int count, int perRowGroup) throws Exception {
    writeLongs(path, first, count, perRowGroup, PAD);
  }

  private static final int PAD = 16;

  /**
   * 1000 longs from {@code first} as {@link #writeLongs} writes them, exactly as long as {@code like}: a footer
   * entry is padded to make up for the statistics' encoded sizes (a minimum of 0 encodes a byte shorter).
   */
  private static void writeSameSize(Path path, long first, Path like) throws Exception {
    writeLongs(path, first, 1000, 250, PAD);
    long diff = Files.size(path) - Files.size(like);
    if (diff != 0) writeLongs(path, first, 1000, 250, PAD - (int) diff);
    assertThat(Files.size(path)).isEqualTo(Files.size(like));
  }

  private static void writeLongs(Path path, long first, int count, int perRowGroup, int pad) throws Exception {
    Files.deleteIfExists(path);
    MessageType schema = Types.buildMessage().required(PrimitiveTypeName.INT64).named("x").named("t");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(path)).withType(schema)
        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).withDictionaryEncoding(false)
        .withExtraMetaData(java.util.Map.of("pad", "p".repeat(pad)))
        .withRowGroupRowCountLimit(perRowGroup).build()) {
      for (long i = 0; i < count; i++) w.write(f.newGroup().append("x", first + i));
    }
  }

  /** {@code rows} longs from {@code first}, in row groups of 100,000 rows (DuckDB). */
  private static void writeBig(Path path, long first, long rows) throws SQLException {
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
      s.execute("COPY (SELECT (range + " + first + ")::BIGINT AS x FROM range(" + rows + ")) TO '" + path
          + "' (FORMAT parquet, ROW_GROUP_SIZE 100000)");
    }
  }

  private static int rowGroups(Path file) throws Exception {
    try (ParquetFileReader r = ParquetFileReader.open(
        HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), new org.apache.hadoop.conf.Configuration()))) {
      return r.getFooter().getBlocks().size();
    }
  }
}
