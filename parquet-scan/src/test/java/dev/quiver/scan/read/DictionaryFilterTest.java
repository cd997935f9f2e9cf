package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.scan.predicate.RowPredicate;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.ScanMetrics;
import dev.quiver.scan.table.Catalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A row predicate on a dictionary-encoded string column judged once per dictionary entry: every answer equals the
 * same scan asked row by row and a brute-force evaluation over the generator's rows, with NULLs (kept and dropped),
 * the filtered column output or not, chunks whose pages fell back from the dictionary to PLAIN, pages skipped by the
 * page index, and a predicate that fails on an entry no selected row holds.
 */
class DictionaryFilterTest {
  static final int ROWS = 30_000;
  static final int GROUP = 10_000;
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .named("t");

  @TempDir static Path dir;
  static Catalog catalog;
  final BufferAllocator allocator = new RootAllocator();

  /** The generator: NULL every 7th row, 40 values, and "bad" only in rows 9,000–9,999 of the first row group. */
  static String value(long id, boolean manyValues) {
    if (id % 7 == 3) return null;
    if (!manyValues && id >= 9_000 && id < 10_000 && id % 2 == 0) return "bad";
    return manyValues ? "value-" + (id * 7919 % 20_011) : "v" + (id * 31 % 40);
  }

  @BeforeAll
  static void write() throws Exception {
    write("dict", false, 1 << 20, ParquetProperties.WriterVersion.PARQUET_1_0);
    write("dict2", false, 1 << 20, ParquetProperties.WriterVersion.PARQUET_2_0);
    // 20,011 distinct values and a 4 KiB dictionary page: each chunk falls back to PLAIN pages after a few
    write("mixed", true, 4096, ParquetProperties.WriterVersion.PARQUET_2_0);
    catalog = Catalog.open(dir.toString());
  }

  private static void write(String table, boolean manyValues, int dictionaryPageSize,
      ParquetProperties.WriterVersion version) throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve(table));
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(dir.resolve(table).resolve("a.parquet")))
        .withType(SCHEMA).withRowGroupRowCountLimit(GROUP).withPageRowCountLimit(500)
        .withDictionaryPageSize(dictionaryPageSize).withWriterVersion(version).build()) {
      for (long id = 0; id < ROWS; id++) {
        Group g = f.newGroup().append("id", id);
        String s = value(id, manyValues);
        if (s != null) g.append("s", s);
        w.write(g);
      }
    }
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  /** A predicate on the strings of {@code column} (NULL judged {@code onNull}); fails on "bad" when asked to. */
  record StringPredicate(String column, Predicate<String> test, boolean onNull, boolean perValue, boolean failOnBad,
      AtomicLong rowsAsked) implements RowPredicate {
    StringPredicate(Predicate<String> test, boolean onNull, boolean perValue) {
      this("s", test, onNull, perValue, false, new AtomicLong());
    }

    StringPredicate(Predicate<String> test, boolean onNull, boolean perValue, boolean failOnBad, AtomicLong rowsAsked) {
      this("s", test, onNull, perValue, failOnBad, rowsAsked);
    }

    @Override public List<String> columns() {
      return List.of(column);
    }

    @Override public boolean perValue() {
      return perValue;
    }

    @Override public int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep) {
      FieldVector v = batch.getVector(0);
      rowsAsked.addAndGet(batch.getRowCount());
      int count = 0;
      for (int i = 0; i < batch.getRowCount(); i++) {
        Object o = v.getObject(i);
        if (failOnBad && o != null && o.toString().equals("bad")) throw new ArithmeticException("bad value");
        keep[i] = o == null ? onNull : test.test(o.toString());
        if (keep[i]) count++;
      }
      return count;
    }
  }

  private List<String> scan(String table, List<String> columns, ScanPredicate pruning, RowPredicate rows,
      ScanMetrics m) {
    List<String> out = new ArrayList<>();
    try (ParquetScan scan = new ParquetScan(catalog, catalog.table(table), columns, pruning, rows, allocator, m, 256,
        true, ScanOptions.shared())) {
      VectorSchemaRoot next;
      while ((next = scan.next()) != null) {
        try (VectorSchemaRoot b = next) {
          for (int i = 0; i < b.getRowCount(); i++) {
            StringBuilder row = new StringBuilder();
            for (int c = 0; c < columns.size(); c++) row.append(c == 0 ? "" : "|").append(b.getVector(c).getObject(i));
            out.add(row.toString());
          }
        }
      }
    }
    return out;
  }

  /** The rows the generator made for which the predicate holds, as the scan prints them. */
  private static List<String> expected(boolean manyValues, List<String> columns, Predicate<String> test,
      boolean onNull, long fromId, long toId) {
    List<String> out = new ArrayList<>();
    for (long id = fromId; id < toId; id++) {
      String s = value(id, manyValues);
      if (!(s == null ? onNull : test.test(s))) continue;
      StringBuilder row = new StringBuilder();
      for (int c = 0; c < columns.size(); c++) row.append(c == 0 ? "" : "|").append(columns.get(c).equals("id") ? id : s);
      out.add(row.toString());
    }
    return out;
  }

  @Test
  void judgedByEntryEqualsRowByRowAndBruteForce() {
    Predicate<String> test = s -> s.equals("v3") || s.compareTo("v35") > 0;
    for (String table : List.of("dict", "dict2")) {
      for (boolean onNull : new boolean[] {false, true}) {
        for (List<String> columns : List.of(List.of("id"), List.of("id", "s"), List.of("s"))) {
          ScanMetrics byEntry = new ScanMetrics();
          StringPredicate p = new StringPredicate(test, onNull, true);
          List<String> got = scan(table, columns, new ScanPredicate.Const(true), p, byEntry);
          ScanMetrics byRow = new ScanMetrics();
          List<String> rowByRow = scan(table, columns, new ScanPredicate.Const(true),
              new StringPredicate(test, onNull, false), byRow);
          assertThat(got).as(table + " " + columns + " NULL " + onNull)
              .isEqualTo(rowByRow).isEqualTo(expected(false, columns, test, onNull, 0, ROWS));
          assertThat(byEntry.dictionaryFilterRows()).isEqualTo(ROWS);
          assertThat(byRow.dictionaryFilterRows()).isZero();
          // asked once per entry and for NULL per row group, never per row: the first group's dictionary holds 40
          // values and "bad", the others 40
          assertThat(p.rowsAsked().get()).isEqualTo(42 + 41 + 41);
          assertThat(byEntry.rowsFilteredLate()).isEqualTo(byRow.rowsFilteredLate());
        }
      }
    }
  }

  /** A predicate made of conjuncts (as the planner's ScanFilter is): kept when every one keeps the row. */
  record Both(List<RowPredicate> conjuncts) implements RowPredicate {
    @Override public List<String> columns() {
      List<String> out = new ArrayList<>();
      for (RowPredicate c : conjuncts) for (String col : c.columns()) if (!out.contains(col)) out.add(col);
      return out;
    }

    @Override public int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep) {
      throw new AssertionError("the scan asks the conjuncts");
    }
  }

  /** A predicate of {@code id}, and of {@code s} too when {@code readsS} (else the test sees NULL); counts rows asked. */
  record IdPredicate(boolean readsS, java.util.function.BiPredicate<Long, String> test, AtomicLong rowsAsked)
      implements RowPredicate {
    @Override public List<String> columns() {
      return readsS ? List.of("id", "s") : List.of("id");
    }

    @Override public int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep) {
      rowsAsked.addAndGet(batch.getRowCount());
      int count = 0;
      for (int i = 0; i < batch.getRowCount(); i++) {
        Object s = readsS ? batch.getVector(1).getObject(i) : null;
        keep[i] = test.test((Long) batch.getVector(0).getObject(i), s == null ? null : s.toString());
        if (keep[i]) count++;
      }
      return count;
    }
  }

  @Test
  void conjunctsAreAskedOnlyAboutTheRowsTheOnesBeforeKept() {
    Predicate<String> test = s -> s.equals("v3") || s.equals("v17"); // 2 of 40 values
    StringPredicate onS = new StringPredicate(test, false, true);
    AtomicLong idAsked = new AtomicLong();
    RowPredicate onId = new IdPredicate(false, (id, s) -> id % 3 != 0, idAsked);
    // and a conjunct of both columns given before the string one: the string one still goes first, by index, and
    // the other is asked about the strings of the rows it kept (the column's decoder moves past a batch once)
    RowPredicate both = new IdPredicate(true, (id, s) -> id % 5 != 1 || s == null || !s.equals("v3"),
        new AtomicLong());
    List<String> columns2 = List.of("id", "s");
    List<String> got2 = scan("dict", columns2, new ScanPredicate.Const(true), new Both(List.of(both, onS, onId)),
        new ScanMetrics());
    List<String> expected2 = new ArrayList<>();
    for (long id = 0; id < ROWS; id++) {
      String s = value(id, false);
      if (s == null || !test.test(s) || id % 3 == 0 || id % 5 == 1 && s.equals("v3")) continue;
      expected2.add(id + "|" + s);
    }
    assertThat(got2).isEqualTo(expected2);
    for (List<String> columns : List.of(List.of("id"), List.of("s"), List.of("id", "s"))) {
      idAsked.set(0);
      onS.rowsAsked().set(0);
      ScanMetrics m = new ScanMetrics();
      List<String> got = scan("dict", columns, new ScanPredicate.Const(true), new Both(List.of(onS, onId)), m);
      List<String> expected = new ArrayList<>();
      for (long id = 0; id < ROWS; id++) {
        String s = value(id, false);
        if (s == null || !test.test(s) || id % 3 == 0) continue;
        expected.add(columns.equals(List.of("id")) ? "" + id : columns.equals(List.of("s")) ? s : id + "|" + s);
      }
      assertThat(got).as(columns.toString()).isEqualTo(expected);
      assertThat(m.dictionaryFilterRows()).isPositive();
      // the id conjunct was asked only about the rows the string conjunct kept (under a tenth), not about every row
      assertThat(idAsked.get()).isPositive().isLessThan(ROWS / 10);
    }
  }

  @Test
  void chunksFallenBackToPlainAreReadAsBefore() {
    Predicate<String> test = s -> s.endsWith("7");
    List<String> columns = List.of("id", "s");
    ScanMetrics m = new ScanMetrics();
    List<String> got = scan("mixed", columns, new ScanPredicate.Const(true), new StringPredicate(test, false, true), m);
    assertThat(got).isEqualTo(expected(true, columns, test, false, 0, ROWS));
    assertThat(m.dictionaryFilterRows()).isZero(); // the footer says the chunks hold PLAIN pages
    assertThat(m.decoderFallbacks()).isZero();
  }

  @Test
  void anEntryNoSelectedRowHoldsMayFailWithoutFailingTheQuery() {
    // the page index keeps rows < 1,000 of the first row group; its dictionary still holds "bad" (rows 9,000+)
    ScanPredicate early = new ScanPredicate.Compare("id", ScanPredicate.Op.LT, 1_000L,
        new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true));
    List<String> columns = List.of("id", "s");
    Predicate<String> test = s -> s.startsWith("v1");
    StringPredicate p = new StringPredicate(test, false, true, true, new AtomicLong());
    ScanMetrics m = new ScanMetrics();
    List<String> got = scan("dict", columns, early, p, m);
    assertThat(got).isEqualTo(expected(false, columns, test, false, 0, 1_000));
    assertThat(m.dictionaryFilterRows()).isZero(); // asked per entry, failed, then row by row
    assertThat(m.asMap().get("pages_pruned")).isPositive();

    // after a conjunct judged by index, which drops some rows, the failing one asks about the strings of the rows
    // left; then a conjunct of the same column and another, which keeps most rows, reads the strings of every row
    StringPredicate notV5 = new StringPredicate(s -> !s.equals("v5"), false, true);
    StringPredicate failing = new StringPredicate(s -> !s.equals("v6"), false, true, true, new AtomicLong());
    RowPredicate idAndS = new IdPredicate(true, (id, s) -> s != null && (id % 4 != 0 || !s.equals("v9")),
        new AtomicLong());
    List<String> got2 = scan("dict", columns, early, new Both(List.of(notV5, failing, idAndS)), new ScanMetrics());
    List<String> expected2 = new ArrayList<>();
    for (String row : scan("dict", columns, early, null, new ScanMetrics())) {
      String[] f = row.split("\\|");
      long id = Long.parseLong(f[0]);
      if (f[1].equals("null") || f[1].equals("v5") || f[1].equals("v6") || id % 4 == 0 && f[1].equals("v9")) continue;
      expected2.add(row);
    }
    assertThat(got2).isNotEmpty().isEqualTo(expected2);
  }

  @Test
  void aRowThatFailsFailsTheScanEitherWay() {
    for (boolean perValue : new boolean[] {true, false}) {
      StringPredicate p = new StringPredicate(s -> true, false, perValue, true, new AtomicLong());
      assertThatThrownBy(() -> scan("dict", List.of("id"), new ScanPredicate.Const(true), p, new ScanMetrics()))
          .as("per value " + perValue).isInstanceOf(ArithmeticException.class).hasMessage("bad value");
    }
  }
}
