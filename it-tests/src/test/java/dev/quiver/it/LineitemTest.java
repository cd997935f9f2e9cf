package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.Lineitem;
import io.trino.tpch.LineItem;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Date;
import java.sql.ResultSetMetaData;
import java.sql.Types;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TPC-H lineitem (SF 0.01, sorted by l_shipdate, 4096-row row groups) through the real JDBC driver.
 * Every expected value is computed by brute force over the TPC-H generator's rows, never by Quiver.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LineitemTest {
  static final double SF = 0.01;
  static final int ROW_GROUP = 4096;

  @TempDir
  static Path dir;
  TestServer server;
  Connection jdbc;
  List<LineItem> rows;

  @BeforeAll
  void start() throws Exception {
    Lineitem.write(dir.resolve("lineitem.parquet"), SF, Lineitem.Order.SHIPDATE, ROW_GROUP, b -> b);
    rows = Lineitem.generate(SF);
    rows.sort(Comparator.comparingInt(LineItem::getShipDate).thenComparingLong(LineItem::getOrderKey)
        .thenComparingInt(LineItem::getLineNumber));
    server = TestServer.start(dir);
    jdbc = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    jdbc.close();
    server.close();
  }

  private long count(Predicate<LineItem> p) {
    return rows.stream().filter(p).count();
  }

  private static int day(String iso) {
    return (int) LocalDate.parse(iso).toEpochDay();
  }

  @ParameterizedTest
  @ValueSource(strings = {"1992-01-01", "1992-03-01", "1994-06-15", "1998-08-01", "1999-01-01"})
  void countWithShipdatePredicateMatchesBruteForce(String cutoff) throws Exception {
    long got = TestServer.scalarLong(jdbc, "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '" + cutoff + "'");
    assertThat(got).isEqualTo(count(li -> li.getShipDate() < day(cutoff)));
  }

  /** Row groups (as the file was written: ROW_GROUP rows each, in {@code rows} order) and their sizes. */
  private List<List<LineItem>> groups() {
    List<List<LineItem>> out = new ArrayList<>();
    for (int from = 0; from < rows.size(); from += ROW_GROUP) out.add(rows.subList(from, Math.min(rows.size(), from + ROW_GROUP)));
    return out;
  }

  /**
   * Expected pruning, computed from the rows of each group: statistics skip a group iff no value in
   * [min, max] of {@code key} can match; the dictionary level (every column but l_comment is fully
   * dictionary-encoded) then skips every remaining group that has no matching row.
   */
  private void assertPruning(String query, java.util.function.ToLongFunction<LineItem> key,
      java.util.function.LongPredicate matches) throws Exception {
    long byStats = 0;
    long byDictionary = 0;
    long scanned = 0;
    for (List<LineItem> g : groups()) {
      long min = g.stream().mapToLong(key).min().orElseThrow();
      long max = g.stream().mapToLong(key).max().orElseThrow();
      boolean might = false;
      for (long v = min; v <= max && !might; v++) might = matches.test(v);
      boolean any = g.stream().anyMatch(li -> matches.test(key.applyAsLong(li)));
      if (!might) byStats++;
      else if (!any) byDictionary++;
      else scanned += g.size();
    }
    Map<String, Long> m = TestServer.scanMetrics(jdbc, query);
    assertThat(m.get("row_groups_total")).isEqualTo(groups().size());
    assertThat(m.get("row_groups_pruned_statistics")).isEqualTo(byStats);
    assertThat(m.get("row_groups_pruned_dictionary")).isEqualTo(byDictionary);
    assertThat(m.get("row_groups_pruned")).isEqualTo(byStats + byDictionary);
    assertThat(m.get("rows_scanned")).isEqualTo(scanned);
  }

  @Test
  void selectivePredicateOnSortedColumnPrunesRowGroups() throws Exception {
    int cutoff = day("1992-03-01");
    String q = "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'";
    assertPruning(q, LineItem::getShipDate, d -> d < cutoff);
    Map<String, Long> m = TestServer.scanMetrics(jdbc, q);
    assertThat(m.get("row_groups_pruned")).isGreaterThan(m.get("row_groups_total") / 2);
  }

  @Test
  void rangeOnSortedColumnAndPointOnUnsortedColumn() throws Exception {
    int lo = day("1995-01-01");
    int hi = day("1995-01-31");
    assertPruning("SELECT count(*) FROM lineitem WHERE l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'",
        LineItem::getShipDate, d -> d >= lo && d <= hi);
    // l_orderkey is not sorted here: min/max exclude some groups, dictionaries most of the rest
    String q = "SELECT count(*) FROM lineitem WHERE l_orderkey = 7";
    assertThat(TestServer.scalarLong(jdbc, q)).isEqualTo(count(li -> li.getOrderKey() == 7));
    assertPruning(q, LineItem::getOrderKey, k -> k == 7);
  }

  @Test
  void aggregatesMatchBruteForce() throws Exception {
    List<Object> r = TestServer.rows(jdbc, "SELECT sum(l_extendedprice), min(l_shipdate), max(l_shipdate), "
        + "count(l_comment), avg(l_quantity), max(l_comment), min(l_partkey) FROM lineitem "
        + "WHERE l_shipmode = 'AIR' AND l_quantity < 10").get(0);
    List<LineItem> match = rows.stream().filter(li -> li.getShipMode().equals("AIR") && li.getQuantity() < 10).toList();
    BigDecimal sum = BigDecimal.valueOf(match.stream().mapToLong(LineItem::getExtendedPriceInCents).sum(), 2);
    assertThat((BigDecimal) r.get(0)).isEqualByComparingTo(sum);
    assertThat(r.get(1).toString()).isEqualTo(LocalDate.ofEpochDay(match.stream().mapToInt(LineItem::getShipDate).min().orElseThrow()).toString());
    assertThat(r.get(2).toString()).isEqualTo(LocalDate.ofEpochDay(match.stream().mapToInt(LineItem::getShipDate).max().orElseThrow()).toString());
    assertThat(((Number) r.get(3)).longValue()).isEqualTo(match.size());
    assertThat(((Number) r.get(4)).doubleValue())
        .isCloseTo(match.stream().mapToLong(LineItem::getQuantity).average().orElseThrow(), org.assertj.core.data.Offset.offset(1e-9));
    String maxComment = match.stream().map(LineItem::getComment).max(Comparator.naturalOrder()).orElseThrow();
    assertThat(r.get(5)).isEqualTo(maxComment);
    assertThat(((Number) r.get(6)).longValue()).isEqualTo(match.stream().mapToLong(LineItem::getPartKey).min().orElseThrow());
  }

  @Test
  void projectionWithArithmeticAndAliases() throws Exception {
    List<List<Object>> got = TestServer.rows(jdbc, "SELECT l_orderkey AS k, l_linenumber, l_quantity * 2 AS q2, "
        + "l_extendedprice * (1 - l_discount) AS disc, l_linenumber + 1000000000 AS big FROM lineitem "
        + "WHERE l_orderkey < 40 AND l_linenumber <> 1");
    List<String> expected = new ArrayList<>();
    for (LineItem li : rows) {
      if (li.getOrderKey() < 40 && li.getLineNumber() != 1) {
        BigDecimal price = BigDecimal.valueOf(li.getExtendedPriceInCents(), 2);
        BigDecimal disc = price.multiply(BigDecimal.ONE.subtract(BigDecimal.valueOf(li.getDiscountPercent(), 2)));
        expected.add(li.getOrderKey() + "|" + li.getLineNumber() + "|" + BigDecimal.valueOf(li.getQuantity() * 2)
            .stripTrailingZeros().toPlainString() + "|" + disc.stripTrailingZeros().toPlainString() + "|"
            + (li.getLineNumber() + 1_000_000_000L));
      }
    }
    List<String> actual = got.stream().map(r -> r.get(0) + "|" + r.get(1) + "|"
        + ((BigDecimal) r.get(2)).stripTrailingZeros().toPlainString() + "|"
        + ((BigDecimal) r.get(3)).stripTrailingZeros().toPlainString() + "|" + r.get(4)).toList();
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected).isNotEmpty();
  }

  @Test
  void inBetweenOrNotAndLimit() throws Exception {
    long got = TestServer.scalarLong(jdbc, "SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL') "
        + "OR NOT (l_discount BETWEEN 0.02 AND 0.09)");
    assertThat(got).isEqualTo(count(li -> li.getShipMode().equals("AIR") || li.getShipMode().equals("MAIL")
        || li.getDiscountPercent() < 2 || li.getDiscountPercent() > 9));
    assertThat(TestServer.rows(jdbc, "SELECT l_orderkey FROM lineitem WHERE l_returnflag = 'R' LIMIT 17")).hasSize(17);
    assertThat(TestServer.rows(jdbc, "SELECT l_orderkey FROM lineitem LIMIT 5 OFFSET " + (rows.size() - 3))).hasSize(3);
  }

  @Test
  void everyRowStreamsBackInBoundedBatches() throws Exception {
    long sumKeys = 0;
    long n = 0;
    try (var s = jdbc.createStatement(); var rs = s.executeQuery("SELECT * FROM lineitem")) {
      while (rs.next()) {
        sumKeys += rs.getLong("l_orderkey") * 31 + rs.getString("l_comment").length();
        n++;
      }
    }
    assertThat(n).isEqualTo(rows.size());
    assertThat(sumKeys).isEqualTo(rows.stream().mapToLong(li -> li.getOrderKey() * 31 + li.getComment().length()).sum());
  }

  @Test
  void resultMetadataCarriesSqlTypes() throws Exception {
    try (var s = jdbc.createStatement();
        var rs = s.executeQuery("SELECT l_quantity, l_shipdate, l_comment, l_orderkey, l_linenumber FROM lineitem LIMIT 1")) {
      ResultSetMetaData md = rs.getMetaData();
      assertThat(md.getColumnType(1)).isEqualTo(Types.DECIMAL);
      assertThat(md.getPrecision(1)).isEqualTo(12);
      assertThat(md.getScale(1)).isEqualTo(2);
      assertThat(md.getColumnType(2)).isEqualTo(Types.DATE);
      assertThat(md.getColumnType(3)).isEqualTo(Types.VARCHAR);
      assertThat(md.getColumnType(4)).isEqualTo(Types.BIGINT);
      assertThat(md.getColumnType(5)).isEqualTo(Types.INTEGER);
      assertThat(rs.next()).isTrue();
      assertThat(rs.getObject(2)).isInstanceOf(Date.class);
    }
  }
}
