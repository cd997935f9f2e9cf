package dev.quiver.it;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * Random SQL queries, deterministic for a seed, over the eight TPC-H tables and {@code alltypes} (a table
 * with every core type, NULLs, NaN, infinities, -0.0 and boundary values; {@link #alltypesSql} builds it
 * in DuckDB). Shapes, in about equal numbers: (a) filters with expressions, (b) GROUP BY with aggregates
 * and HAVING, (c) inner/left joins along TPC-H's key relationships, (d) ORDER BY ... LIMIT, (e) DISTINCT
 * and UNION [ALL] / EXCEPT / INTERSECT.
 *
 * <p>Every query is meant to have one right answer that both engines agree on: no LIMIT without a total
 * ORDER BY (or ties the comparison allows for), explicit NULLS FIRST/LAST, no {@code /}, no arithmetic that
 * can overflow (boundary-value columns are only compared, cast, counted, min/maxed), no SUM over BIGINT
 * near overflow, sums of DOUBLE only over dyadic fractions (exact in any order), no float-to-text casts,
 * no case mapping of non-ASCII text. The big TPC-H tables get a key-range "guard" conjunct so that results
 * stay a few thousand rows.
 */
final class QueryGenerator {
  enum Kind { INT, DEC, DOUBLE, STRING, DATE, TIMESTAMP, BOOL }

  /**
   * A column. {@code literals} are SQL literals of values in the data and boundary values;
   * {@code summable}: SUM/AVG cannot overflow; {@code arithmetic}: {@code + - * %} with small constants
   * cannot overflow; {@code groupable}: few enough distinct values to GROUP BY / DISTINCT.
   */
  record Col(String name, Kind kind, boolean summable, boolean arithmetic, boolean groupable, List<String> literals) {}

  /** A table; {@code guard} is a key column and {@code guardRange} the bound that keeps ~3000 rows, or null. */
  record Table(String name, String alias, List<Col> cols, String guard, long guardRange) {}

  /** A key relationship: {@code a.aCols[i] = b.bCols[i]}. */
  record Edge(Table a, List<String> aCols, Table b, List<String> bCols) {}

  /** A column of a table in a query; qualified with the table alias when the query joins. */
  record Ref(Table table, Col col, boolean qualified) {
    String sql() {
      return qualified ? table.alias + "." + col.name : col.name;
    }

    Kind kind() {
      return col.kind;
    }
  }

  /** A select-list item: its SQL, its kind and its alias (null for a bare column). */
  record Item(String sql, Kind kind, String alias, boolean plainColumn) {
    String render() {
      return plainColumn && alias == null ? sql : sql + " AS " + alias;
    }
  }

  // ------------------------------------------------------------------ the alltypes table

  static final String ALLTYPES = "alltypes";
  static final int ALLTYPES_ROWS = 4000;
  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

  /**
   * DuckDB SQL for {@code alltypes}: {@value #ALLTYPES_ROWS} rows; {@code id} BIGINT 0..n-1 unique;
   * {@code i64} BIGINT, {@code i32} INTEGER, {@code i16} SMALLINT with NULLs and their type's extremes;
   * {@code k} BIGINT 0..100002 with NULLs; {@code g} INTEGER 0..6 with NULLs; {@code f} DOUBLE eighths in
   * -125..125 with NULL, NaN, +-Infinity, -0.0, 0.0, 1e300 and the smallest subnormal; {@code dm}
   * DECIMAL(18,3) with NULLs and +-999999999999999.999; {@code s} VARCHAR with NULLs, empty strings,
   * upper case and non-ASCII; {@code dt} DATE 1900..2199 with NULLs; {@code ts} TIMESTAMP (microseconds)
   * with NULLs; {@code b} BOOLEAN with NULLs.
   */
  static String alltypesSql() {
    return "SELECT "
        + "CAST(i AS BIGINT) AS id, "
        + "CAST(CASE WHEN i % 11 = 0 THEN NULL WHEN i % 1000 = 1 THEN 9223372036854775807 "
        + "  WHEN i % 1000 = 2 THEN -9223372036854775808 WHEN i % 1000 = 3 THEN 9223372036854775806 "
        + "  WHEN i % 1000 = 4 THEN -9223372036854775807 WHEN i % 1000 = 5 THEN 0 WHEN i % 1000 = 6 THEN -1 "
        + "  ELSE (i * 7919) % 100003 - 50000 END AS BIGINT) AS i64, "
        + "CAST(CASE WHEN i % 13 = 0 THEN NULL WHEN i % 1000 = 7 THEN 2147483647 WHEN i % 1000 = 8 THEN -2147483648 "
        + "  WHEN i % 1000 = 9 THEN 2147483646 ELSE (i * 31) % 20011 - 10000 END AS INTEGER) AS i32, "
        + "CAST(CASE WHEN i % 17 = 0 THEN NULL WHEN i % 1000 = 10 THEN 32767 WHEN i % 1000 = 11 THEN -32768 "
        + "  ELSE i % 600 - 300 END AS SMALLINT) AS i16, "
        + "CAST(CASE WHEN i % 19 = 0 THEN NULL ELSE (i * 7919) % 100003 END AS BIGINT) AS k, "
        + "CAST(CASE WHEN i % 23 = 0 THEN NULL ELSE i % 7 END AS INTEGER) AS g, "
        + "CASE WHEN i % 29 = 0 THEN NULL WHEN i % 97 = 1 THEN CAST('NaN' AS DOUBLE) "
        + "  WHEN i % 500 = 12 THEN CAST('Infinity' AS DOUBLE) WHEN i % 500 = 13 THEN CAST('-Infinity' AS DOUBLE) "
        + "  WHEN i % 50 = 14 THEN CAST('-0.0' AS DOUBLE) WHEN i % 50 = 15 THEN CAST(0 AS DOUBLE) "
        + "  WHEN i % 1000 = 16 THEN CAST(1e300 AS DOUBLE) WHEN i % 1000 = 17 THEN CAST('4.9e-324' AS DOUBLE) "
        + "  ELSE CAST((i * 37) % 2001 - 1000 AS DOUBLE) / 8 END AS f, "
        + "CAST(CASE WHEN i % 31 = 0 THEN NULL WHEN i % 1000 = 18 THEN 999999999999999.999 "
        + "  WHEN i % 1000 = 19 THEN -999999999999999.999 "
        + "  ELSE ((i * 7) % 100000 - 50000) * 0.001 END AS DECIMAL(18,3)) AS dm, "
        + "CASE WHEN i % 37 = 0 THEN NULL WHEN i % 41 = 0 THEN '' WHEN i % 43 = 0 THEN 'é-' || (i % 5) "
        + "  WHEN i % 47 = 0 THEN 'Name ' || (i % 3) ELSE 'name-' || (i % 50) END AS s, "
        + "CASE WHEN i % 53 = 0 THEN NULL WHEN i % 1000 = 20 THEN DATE '1900-01-01' WHEN i % 1000 = 21 THEN DATE '2199-12-31' "
        + "  WHEN i % 1000 = 22 THEN DATE '1969-12-31' WHEN i % 1000 = 23 THEN DATE '1970-01-01' "
        + "  ELSE DATE '2020-01-01' + CAST((i * 13) % 500 AS INTEGER) END AS dt, "
        + "CASE WHEN i % 59 = 0 THEN NULL WHEN i % 1000 = 24 THEN TIMESTAMP '1900-01-01 00:00:00' "
        + "  WHEN i % 1000 = 25 THEN TIMESTAMP '2199-12-31 23:59:59.999999' "
        + "  ELSE TIMESTAMP '2020-01-01 00:00:00' + to_seconds(CAST(i * 3797 AS BIGINT)) "
        + "    + to_microseconds(CAST((i % 7) * 123457 AS BIGINT)) END AS ts, "
        + "CASE WHEN i % 61 = 0 THEN NULL ELSE i % 3 = 0 END AS b "
        + "FROM range(0, " + ALLTYPES_ROWS + ") r(i)";
  }

  /** Values of the alltypes formulas for a few rows, as literals (nulls skipped). */
  private static List<String> sampled(IntFunction<String> value) {
    List<String> out = new ArrayList<>();
    for (int i : new int[] {33, 77, 101, 1234, 2500, 3998}) {
      String v = value.apply(i);
      if (v != null) out.add(v);
    }
    return out;
  }

  private static List<String> lits(List<String> fixed, List<String> sampled) {
    List<String> out = new ArrayList<>(fixed);
    out.addAll(sampled);
    return List.copyOf(out);
  }

  private static String q(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private static String date(String iso) {
    return "DATE '" + iso + "'";
  }

  private static String ts(LocalDateTime t) {
    return "TIMESTAMP '" + TS.format(t) + "'";
  }

  private static LocalDateTime tsValue(int i) {
    return LocalDateTime.of(2020, 1, 1, 0, 0).plusSeconds(i * 3797L).plusNanos((i % 7) * 123457L * 1000);
  }

  static final Table T = new Table(ALLTYPES, "t", List.of(
      new Col("id", Kind.INT, true, true, false, List.of("0", "1", "999", "1000", "1023", "1024", "2047", "3999", "4000", "-1")),
      new Col("i64", Kind.INT, false, false, true, lits(List.of("9223372036854775807", "9223372036854775806",
          "-9223372036854775808", "-9223372036854775807", "9223372036854775808", "-9223372036854775809", "0", "-1", "1",
          "2147483647", "2147483648", "-50000", "50002"), sampled(i -> i % 11 == 0 ? null : String.valueOf((i * 7919L) % 100003 - 50000)))),
      new Col("i32", Kind.INT, true, false, true, lits(List.of("2147483647", "2147483646", "-2147483648", "-2147483647",
          "2147483648", "-2147483649", "0", "-1", "10010", "-10000", "32767"), sampled(i -> i % 13 == 0 ? null
              : String.valueOf((i * 31L) % 20011 - 10000)))),
      new Col("i16", Kind.INT, true, false, true, List.of("32767", "32766", "-32768", "-32767", "32768", "-32769", "0", "-1",
          "-300", "299", "300", "150", "-42")),
      new Col("k", Kind.INT, true, true, true, lits(List.of("0", "1", "50000", "100002", "100003", "-1"),
          sampled(i -> i % 19 == 0 ? null : String.valueOf((i * 7919L) % 100003)))),
      new Col("g", Kind.INT, true, true, true, List.of("0", "1", "2", "3", "5", "6", "7", "-1")),
      new Col("f", Kind.DOUBLE, true, false, true, List.of("0.0", "-0.0", "1.5", "-1.5", "0.125", "-0.125", "125.0",
          "-125.0", "124.875", "1e300", "4.9e-324", "1e308", "CAST('NaN' AS DOUBLE)", "CAST('Infinity' AS DOUBLE)",
          "CAST('-Infinity' AS DOUBLE)", "7.25", "-99.5")),
      new Col("dm", Kind.DEC, true, false, true, lits(List.of("0", "0.000", "12.345", "-12.345", "49.999", "50.000",
          "-50.000", "999999999999999.999", "-999999999999999.999", "1000000000000000", "0.0005", "12.3455", "-0.001"),
          sampled(i -> i % 31 == 0 ? null : BigDecimal.valueOf((i * 7L) % 100000 - 50000, 3).toPlainString()))),
      new Col("s", Kind.STRING, false, false, true, List.of(q(""), q("name-1"), q("name-10"), q("name-49"), q("name-5"),
          q("name-"), q("name"), q("é-1"), q("Name 0"), q("NAME-1"), q("zzz"), q(" "))),
      new Col("dt", Kind.DATE, false, false, true, List.of(date("2020-01-01"), date("2020-06-15"), date("2021-05-14"),
          date("2021-05-15"), date("1900-01-01"), date("2199-12-31"), date("1969-12-31"), date("1970-01-01"),
          date("2020-02-29"), date("2020-12-31"), date("2021-01-01"))),
      new Col("ts", Kind.TIMESTAMP, false, false, true, lits(List.of("TIMESTAMP '2020-01-01 00:00:00'",
          "TIMESTAMP '2020-03-01 12:00:00'", "TIMESTAMP '1900-01-01 00:00:00'", "TIMESTAMP '2199-12-31 23:59:59.999999'",
          "TIMESTAMP '2020-06-25 00:00:00'"), sampled(i -> i % 59 == 0 ? null : ts(tsValue(i))))),
      new Col("b", Kind.BOOL, false, false, true, List.of("TRUE", "FALSE"))), null, 0);

  // ------------------------------------------------------------------ TPC-H (SF 0.1)

  private static final List<String> NATIONS = List.of("ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA",
      "FRANCE", "GERMANY", "INDIA", "INDONESIA", "IRAN", "IRAQ", "JAPAN", "JORDAN", "KENYA", "MOROCCO", "MOZAMBIQUE",
      "PERU", "CHINA", "ROMANIA", "SAUDI ARABIA", "VIETNAM", "RUSSIA", "UNITED KINGDOM", "UNITED STATES");
  private static final List<String> COMMENT = List.of(q("a"), q("furiously"), q("the"), q("ironic"), q("s"), q("z"),
      q("carefully final"), q(""));

  private static Col key(String name, String... literals) {
    return new Col(name, Kind.INT, true, true, false, List.of(literals));
  }

  private static Col smallInt(String name, String... literals) {
    return new Col(name, Kind.INT, true, true, true, List.of(literals));
  }

  private static Col money(String name, boolean groupable, String... literals) {
    return new Col(name, Kind.DEC, true, true, groupable, List.of(literals));
  }

  private static Col text(String name, boolean groupable, List<String> literals) {
    return new Col(name, Kind.STRING, false, false, groupable, literals);
  }

  private static Col text(String name, boolean groupable, String... values) {
    return text(name, groupable, List.of(values).stream().map(QueryGenerator::q).toList());
  }

  private static Col day(String name, String... isoDates) {
    return new Col(name, Kind.DATE, false, false, false, List.of(isoDates).stream().map(QueryGenerator::date).toList());
  }

  static final Table REGION = new Table("region", "r", List.of(
      smallInt("r_regionkey", "0", "1", "2", "4", "5", "-1"),
      text("r_name", true, "AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST", "ASIAN", "A"),
      text("r_comment", false, COMMENT)), null, 0);

  static final Table NATION = new Table("nation", "n", List.of(
      smallInt("n_nationkey", "0", "1", "7", "12", "24", "25", "-1"),
      text("n_name", true, lits(NATIONS.subList(0, 12).stream().map(QueryGenerator::q).toList(), List.of(q("UNITED"), q("Z")))),
      smallInt("n_regionkey", "0", "1", "2", "3", "4", "5"),
      text("n_comment", false, COMMENT)), null, 0);

  static final Table SUPPLIER = new Table("supplier", "s", List.of(
      key("s_suppkey", "1", "2", "10", "500", "999", "1000", "1001", "0"),
      text("s_name", false, "Supplier#000000001", "Supplier#000000500", "Supplier#000001000", "Supplier#"),
      text("s_address", false, COMMENT),
      smallInt("s_nationkey", "0", "3", "7", "20", "24", "25"),
      text("s_phone", false, "10-", "17-", "25-", "30-000-000-0000", "34-999-999-9999"),
      money("s_acctbal", false, "-999.99", "-999.98", "0", "0.00", "4500.50", "5000", "9999.99", "10000.00"),
      text("s_comment", false, COMMENT)), null, 0);

  static final Table CUSTOMER = new Table("customer", "c", List.of(
      key("c_custkey", "1", "2", "100", "1500", "7500", "14999", "15000", "15001", "0"),
      text("c_name", false, "Customer#000000001", "Customer#000001500", "Customer#000015000", "Customer#"),
      text("c_address", false, COMMENT),
      smallInt("c_nationkey", "0", "3", "7", "20", "24", "25"),
      text("c_phone", false, "10-", "13-", "31-", "23-", "34-999-999-9999", "2"),
      money("c_acctbal", false, "-999.99", "-999.98", "0", "0.00", "4500.50", "5000", "9999.99", "10000.00"),
      text("c_mktsegment", true, "AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY", "BUILD"),
      text("c_comment", false, COMMENT)), "c_custkey", 3000);

  static final Table PART = new Table("part", "p", List.of(
      key("p_partkey", "1", "2", "100", "10000", "19999", "20000", "20001", "0"),
      text("p_name", false, "forest", "green", "almond antique", "lace", "z"),
      text("p_mfgr", true, "Manufacturer#1", "Manufacturer#3", "Manufacturer#5", "Manufacturer#6"),
      text("p_brand", true, "Brand#11", "Brand#12", "Brand#23", "Brand#34", "Brand#45", "Brand#55", "Brand#56"),
      text("p_type", true, "ECONOMY ANODIZED STEEL", "STANDARD POLISHED TIN", "PROMO BRUSHED COPPER", "MEDIUM POLISHED",
          "SMALL PLATED BRASS", "LARGE BURNISHED NICKEL", "PROMO", "ECONOMY"),
      smallInt("p_size", "1", "15", "23", "49", "50", "51", "0"),
      text("p_container", true, "SM CASE", "MED BOX", "LG PACK", "JUMBO JAR", "WRAP DRUM", "SM", "LG"),
      money("p_retailprice", false, "901.00", "900.99", "1500.50", "2000.00", "2098.99", "2099.00"),
      text("p_comment", false, COMMENT)), "p_partkey", 3000);

  static final Table PARTSUPP = new Table("partsupp", "ps", List.of(
      key("ps_partkey", "1", "2", "100", "10000", "20000", "20001"),
      key("ps_suppkey", "1", "2", "250", "500", "1000", "1001"),
      smallInt("ps_availqty", "1", "2", "5000", "9998", "9999", "10000", "0"),
      money("ps_supplycost", false, "1.00", "0.99", "500.00", "999.99", "1000.00", "1000.01"),
      text("ps_comment", false, COMMENT)), "ps_partkey", 750);

  static final Table ORDERS = new Table("orders", "o", List.of(
      key("o_orderkey", "1", "2", "3", "7", "32", "33", "100000", "599974", "600000", "600001"),
      key("o_custkey", "1", "2", "100", "7500", "14999", "15000"),
      text("o_orderstatus", true, "F", "O", "P", "Q", ""),
      money("o_totalprice", false, "857.71", "1000.00", "100000.00", "200000.50", "555285.16", "600000.00"),
      day("o_orderdate", "1992-01-01", "1993-07-01", "1994-01-01", "1995-03-15", "1996-12-31", "1998-08-02", "1998-08-03"),
      text("o_orderpriority", true, "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW", "3"),
      text("o_clerk", true, "Clerk#000000001", "Clerk#000000050", "Clerk#000000100", "Clerk#000000101"),
      smallInt("o_shippriority", "0", "1", "-1"),
      text("o_comment", false, COMMENT)), "o_orderkey", 12000);

  static final Table LINEITEM = new Table("lineitem", "l", List.of(
      key("l_orderkey", "1", "2", "3", "32", "100000", "600000", "600001"),
      key("l_partkey", "1", "100", "10000", "20000", "20001"),
      key("l_suppkey", "1", "100", "500", "1000", "1001"),
      smallInt("l_linenumber", "1", "2", "4", "7", "8", "0"),
      money("l_quantity", true, "1", "1.00", "24", "25.5", "49", "50", "51", "0"),
      money("l_extendedprice", false, "901.00", "1000.00", "50000.00", "104949.50", "105000"),
      money("l_discount", true, "0.00", "0.05", "0.06", "0.07", "0.10", "0.11", "0.065"),
      money("l_tax", true, "0.00", "0.04", "0.08", "0.09"),
      text("l_returnflag", true, "A", "N", "R", "S"),
      text("l_linestatus", true, "F", "O", "P"),
      day("l_shipdate", "1992-01-02", "1992-01-01", "1994-01-01", "1995-03-15", "1995-06-17", "1998-09-02", "1998-12-01"),
      day("l_commitdate", "1992-01-31", "1994-01-01", "1995-06-17", "1998-10-31"),
      day("l_receiptdate", "1992-01-03", "1994-01-01", "1995-06-17", "1998-12-31"),
      text("l_shipinstruct", true, "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN", "DELIVER"),
      text("l_shipmode", true, "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB", "BOAT"),
      text("l_comment", false, COMMENT)), "l_orderkey", 3000);

  static final List<Table> TPCH = List.of(LINEITEM, ORDERS, CUSTOMER, PART, PARTSUPP, SUPPLIER, NATION, REGION);

  static final List<Edge> EDGES = List.of(
      new Edge(LINEITEM, List.of("l_orderkey"), ORDERS, List.of("o_orderkey")),
      new Edge(LINEITEM, List.of("l_partkey"), PART, List.of("p_partkey")),
      new Edge(LINEITEM, List.of("l_suppkey"), SUPPLIER, List.of("s_suppkey")),
      new Edge(LINEITEM, List.of("l_partkey", "l_suppkey"), PARTSUPP, List.of("ps_partkey", "ps_suppkey")),
      new Edge(ORDERS, List.of("o_custkey"), CUSTOMER, List.of("c_custkey")),
      new Edge(CUSTOMER, List.of("c_nationkey"), NATION, List.of("n_nationkey")),
      new Edge(SUPPLIER, List.of("s_nationkey"), NATION, List.of("n_nationkey")),
      new Edge(NATION, List.of("n_regionkey"), REGION, List.of("r_regionkey")),
      new Edge(PARTSUPP, List.of("ps_partkey"), PART, List.of("p_partkey")),
      new Edge(PARTSUPP, List.of("ps_suppkey"), SUPPLIER, List.of("s_suppkey")),
      new Edge(T, List.of("g"), NATION, List.of("n_nationkey")),
      new Edge(T, List.of("g"), REGION, List.of("r_regionkey")),
      new Edge(T, List.of("i16"), NATION, List.of("n_nationkey")));

  /** Columns of two tables that a set operation may combine. */
  private static final List<List<String>> SET_PAIRS = List.of(
      List.of("customer.c_nationkey", "supplier.s_nationkey"), List.of("orders.o_custkey", "customer.c_custkey"),
      List.of("partsupp.ps_partkey", "part.p_partkey"), List.of("partsupp.ps_suppkey", "supplier.s_suppkey"),
      List.of("nation.n_regionkey", "region.r_regionkey"), List.of("lineitem.l_suppkey", "supplier.s_suppkey"),
      List.of("alltypes.g", "nation.n_nationkey"), List.of("alltypes.s", "nation.n_name"),
      List.of("alltypes.i16", "nation.n_nationkey"), List.of("alltypes.dt", "orders.o_orderdate"),
      List.of("customer.c_acctbal", "supplier.s_acctbal"), List.of("alltypes.dm", "customer.c_acctbal"));

  static final List<Table> ALL_TABLES = List.of(T, LINEITEM, ORDERS, CUSTOMER, PART, PARTSUPP, SUPPLIER, NATION, REGION);

  static Table table(String name) {
    return ALL_TABLES.stream().filter(t -> t.name.equals(name)).findFirst().orElseThrow();
  }

  // ------------------------------------------------------------------ generation

  private final Random rnd;
  private int aliasCounter;

  QueryGenerator(long seed) {
    this.rnd = new Random(seed);
  }

  /** {@code n} queries: shapes (a)..(e) in turn, so each gets a fifth. */
  List<String> generate(int n) {
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(next(i % 5));
    return out;
  }

  String next(int shape) {
    aliasCounter = 0;
    return switch (shape) {
      case 0 -> filterQuery();
      case 1 -> groupQuery();
      case 2 -> joinQuery(false);
      case 3 -> orderLimitQuery();
      default -> rnd.nextInt(5) < 2 ? distinctQuery() : setOperationQuery();
    };
  }

  private boolean chance(double p) {
    return rnd.nextDouble() < p;
  }

  private <E> E pick(List<E> list) {
    return list.get(rnd.nextInt(list.size()));
  }

  /** alltypes for 40 %, the TPC-H tables for the rest (the big ones guarded). */
  private Table pickTable() {
    if (chance(0.4)) return T;
    double x = rnd.nextDouble();
    if (x < 0.12) return LINEITEM;
    if (x < 0.27) return ORDERS;
    if (x < 0.42) return CUSTOMER;
    if (x < 0.57) return PART;
    if (x < 0.67) return PARTSUPP;
    if (x < 0.80) return SUPPLIER;
    if (x < 0.92) return NATION;
    return REGION;
  }

  private List<Ref> refs(List<Table> tables, boolean qualified) {
    List<Ref> out = new ArrayList<>();
    for (Table t : tables) for (Col c : t.cols) out.add(new Ref(t, c, qualified));
    return out;
  }

  private String guard(Table t, String alias, int factor) {
    if (t.guard == null) return null;
    long bound = 1 + rnd.nextLong(Math.max(2, t.guardRange * factor));
    return (alias == null ? "" : alias + ".") + t.guard + " < " + bound;
  }

  private static String and(String... parts) {
    List<String> present = new ArrayList<>();
    for (String p : parts) if (p != null) present.add(p);
    if (present.isEmpty()) return null;
    if (present.size() == 1) return present.get(0);
    return present.stream().map(p -> "(" + p + ")").collect(Collectors.joining(" AND "));
  }

  private static String where(String condition) {
    return condition == null ? "" : " WHERE " + condition;
  }

  // ---- literals

  private String literal(Col c) {
    String base = pick(c.literals);
    if (chance(0.25)) return neighbour(c.kind, base);
    return base;
  }

  /** A value next to {@code lit}, to probe off-by-one boundaries. */
  private String neighbour(Kind kind, String lit) {
    int delta = chance(0.5) ? 1 : -1;
    try {
      switch (kind) {
        case INT:
          return new BigInteger(lit).add(BigInteger.valueOf(delta)).toString();
        case DEC: {
          BigDecimal v = new BigDecimal(lit);
          return v.add(BigDecimal.ONE.movePointLeft(Math.max(2, v.scale())).multiply(BigDecimal.valueOf(delta))).toPlainString();
        }
        case DATE: {
          String iso = lit.substring(6, 16);
          return date(LocalDate.parse(iso).plusDays(delta).toString());
        }
        case TIMESTAMP: {
          LocalDateTime t = LocalDateTime.parse(lit.substring(11, lit.length() - 1).replace(' ', 'T'));
          return ts(chance(0.5) ? t.plusNanos(delta * 1000L) : t.plusSeconds(delta));
        }
        case STRING: {
          String s = lit.substring(1, lit.length() - 1);
          return chance(0.5) || s.isEmpty() ? q(s.replace("''", "'") + "a") : q(s.substring(0, s.length() - 1));
        }
        default:
          return lit;
      }
    } catch (RuntimeException e) {
      return lit; // e.g. a CAST('NaN' AS DOUBLE): no neighbour
    }
  }

  private String compareOp() {
    return pick(List.of("=", "<>", "<", "<=", ">", ">=", "=", "<", ">"));
  }

  // ---- predicates

  String predicate(List<Ref> refs, int depth) {
    if (depth > 0 && chance(0.4)) {
      int k = rnd.nextInt(3);
      if (k == 0) return "NOT (" + predicate(refs, depth - 1) + ")";
      String op = k == 1 ? " AND " : " OR ";
      int n = 2 + (chance(0.25) ? 1 : 0);
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < n; i++) parts.add("(" + predicate(refs, depth - 1) + ")");
      return String.join(op, parts);
    }
    return atom(predicateRef(refs), refs);
  }

  /** A column to constrain: mostly one whose literals hit the data (not free text), so fewer results are empty. */
  private Ref predicateRef(List<Ref> refs) {
    if (chance(0.7)) {
      List<Ref> preferred = refs.stream().filter(r -> r.table == T || r.col.groupable || r.col.name.endsWith("key")
          || r.kind() == Kind.DATE || r.kind() == Kind.DEC).toList();
      if (!preferred.isEmpty()) return pick(preferred);
    }
    return pick(refs);
  }

  /** Two literals in ascending order (most of the time), for BETWEEN. */
  private String[] range(Col col) {
    String lo = literal(col);
    String hi = literal(col);
    if (chance(0.85) && compareLiterals(col.kind, lo, hi) > 0) return new String[] {hi, lo};
    return new String[] {lo, hi};
  }

  private static int compareLiterals(Kind kind, String a, String b) {
    try {
      return switch (kind) {
        case INT, DEC -> new BigDecimal(a).compareTo(new BigDecimal(b));
        case DOUBLE -> Double.compare(Double.parseDouble(a), Double.parseDouble(b));
        default -> a.compareTo(b); // quoted text, DATE '...', TIMESTAMP '...': the literal text sorts like the value
      };
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private String atom(Ref r, List<Ref> refs) {
    String c = r.sql();
    Col col = r.col;
    int x = rnd.nextInt(100);
    if (x < 8) return c + (chance(0.5) ? " IS NULL" : " IS NOT NULL");
    if (r.kind() == Kind.BOOL) {
      return pick(List.of(c, "NOT " + c, c + " IS TRUE", c + " IS NOT TRUE", c + " IS FALSE", c + " IS NOT FALSE",
          c + " = TRUE", c + " <> FALSE", c + " = " + c));
    }
    if (x < 40) return c + " " + compareOp() + " " + literal(col);
    if (x < 48) {
      String[] bounds = range(col);
      return c + (chance(0.2) ? " NOT BETWEEN " : " BETWEEN ") + bounds[0] + " AND " + bounds[1];
    }
    if (x < 60) {
      int n = 1 + rnd.nextInt(4);
      List<String> items = new ArrayList<>();
      for (int i = 0; i < n; i++) items.add(literal(col));
      if (chance(0.08)) items.add("NULL");
      return c + (chance(0.25) ? " NOT IN (" : " IN (") + String.join(", ", items) + ")";
    }
    if (x < 65) return c + (chance(0.5) ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ") + literal(col);
    if (x < 80) {
      switch (r.kind()) {
        case STRING: {
          String lit = pick(col.literals);
          String s = lit.substring(1, lit.length() - 1);
          String prefix = s.substring(0, rnd.nextInt(s.length() + 1));
          return c + (chance(0.25) ? " NOT LIKE " : " LIKE ") + q(prefix + "%");
        }
        case INT:
        case DEC:
          if (chance(0.5) || !col.arithmetic) {
            return "CAST(" + c + " AS DOUBLE) " + compareOp() + " " + pick(List.of("0.5", "-1.5", "100.25", "1e18", "-0.0",
                literal(col)));
          }
          if (r.kind() == Kind.INT && chance(0.5)) {
            int m = 2 + rnd.nextInt(9);
            return c + " % " + m + " = " + rnd.nextInt(m);
          }
          return c + " + " + (1 + rnd.nextInt(10)) + " " + compareOp() + " " + literal(col);
        case DOUBLE:
          return "CAST(" + c + " AS DOUBLE) " + compareOp() + " " + literal(col);
        case DATE:
          return "extract(year from " + c + ") " + compareOp() + " " + (1992 + rnd.nextInt(8) + (r.table == T ? 28 : 0));
        case TIMESTAMP:
          return "CAST(" + c + " AS DATE) " + compareOp() + " " + pick(List.of(date("2020-01-01"), date("2020-03-15"),
              date("2020-06-25"), date("1900-01-01")));
        default:
          return c + " " + compareOp() + " " + literal(col);
      }
    }
    // column against column of a compatible kind
    List<Ref> same = refs.stream().filter(o -> o != r && compatible(o.kind(), r.kind())).toList();
    if (!same.isEmpty()) return c + " " + pick(List.of("<", "<=", ">", ">=", "<>", "=")) + " " + pick(same).sql();
    return c + " " + compareOp() + " " + literal(col);
  }

  private static boolean numeric(Kind k) {
    return k == Kind.INT || k == Kind.DEC || k == Kind.DOUBLE;
  }

  private static boolean compatible(Kind a, Kind b) {
    return a == b || (numeric(a) && numeric(b));
  }

  // ---- select items

  private String nextAlias() {
    return "c" + (++aliasCounter);
  }

  private Item column(Ref r) {
    return new Item(r.sql(), r.kind(), null, true);
  }

  private Item selectItem(List<Ref> refs) {
    Ref r = pick(refs);
    String c = r.sql();
    Col col = r.col;
    int x = rnd.nextInt(100);
    if (x < 45) return column(r);
    if (x < 53) return new Item("coalesce(" + c + ", " + literal(col) + ")", r.kind(), nextAlias(), false);
    if (x < 61) {
      return new Item("CASE WHEN " + predicate(refs, 0) + " THEN " + c + " ELSE " + literal(col) + " END", r.kind(),
          nextAlias(), false);
    }
    if (x < 68) return new Item("(" + atom(r, refs) + ")", Kind.BOOL, nextAlias(), false);
    switch (r.kind()) {
      case INT:
        if (chance(0.4)) return new Item("CAST(" + c + " AS DOUBLE)", Kind.DOUBLE, nextAlias(), false);
        if (chance(0.3)) return new Item("CAST(" + c + " AS VARCHAR)", Kind.STRING, nextAlias(), false);
        if (col.arithmetic) {
          return new Item(pick(List.of(c + " + " + rnd.nextInt(100), c + " * 2", c + " - 7", c + " % 5", "abs(" + c + " - 1000)")),
              Kind.INT, nextAlias(), false);
        }
        return new Item("CAST(" + c + " AS BIGINT)", Kind.INT, nextAlias(), false);
      case DEC:
        if (chance(0.4)) return new Item("CAST(" + c + " AS DOUBLE)", Kind.DOUBLE, nextAlias(), false);
        if (col.arithmetic) {
          return new Item(pick(List.of(c + " * 2", c + " + 1.5", c + " - 0.001", "abs(" + c + ")", "-" + c,
              c + " * (1 - " + c + ")")), Kind.DEC, nextAlias(), false);
        }
        return new Item("abs(" + c + ")", Kind.DEC, nextAlias(), false);
      case DOUBLE:
        return new Item(pick(List.of("abs(" + c + ")", c + " * 2", c + " + 0.5", "-" + c)), Kind.DOUBLE, nextAlias(), false);
      case STRING:
        if (chance(0.25)) return new Item("length(" + c + ")", Kind.INT, nextAlias(), false);
        return new Item(pick(List.of(c + " || '-x'", "substring(" + c + ", 1, 3)", "substring(" + c + ", 2)")),
            Kind.STRING, nextAlias(), false);
      case DATE:
        return chance(0.5) ? new Item("extract(year from " + c + ")", Kind.INT, nextAlias(), false)
            : new Item("CAST(" + c + " AS VARCHAR)", Kind.STRING, nextAlias(), false);
      case TIMESTAMP:
        return chance(0.5) ? new Item("extract(month from " + c + ")", Kind.INT, nextAlias(), false)
            : new Item("CAST(" + c + " AS DATE)", Kind.DATE, nextAlias(), false);
      default:
        return new Item("NOT " + c, Kind.BOOL, nextAlias(), false);
    }
  }

  private List<Item> selectItems(List<Ref> refs, int min, int max) {
    int n = min + rnd.nextInt(max - min + 1);
    List<Item> items = new ArrayList<>();
    Map<String, Boolean> seen = new LinkedHashMap<>();
    for (int tries = 0; items.size() < n && tries < 50; tries++) {
      Item it = selectItem(refs);
      if (seen.putIfAbsent(it.sql, true) == null) items.add(it);
    }
    return items;
  }

  private static String list(List<Item> items) {
    return items.stream().map(Item::render).collect(Collectors.joining(", "));
  }

  // ---- (a) filters

  private String filterQuery() {
    Table t = pickTable();
    List<Ref> refs = refs(List.of(t), false);
    List<Item> items = selectItems(refs, 1, 4);
    String p = chance(0.9) ? predicate(refs, 2) : null;
    return "SELECT " + list(items) + " FROM " + t.name + where(and(p, guard(t, null, 1)));
  }

  // ---- (b) GROUP BY

  /** A grouping key: a groupable column, or an expression of one. */
  private Item groupKey(List<Ref> refs) {
    List<Ref> groupable = refs.stream().filter(r -> r.col.groupable || r.kind() == Kind.DATE).toList();
    Ref r = pick(groupable);
    String c = r.sql();
    if (r.kind() == Kind.DATE) return new Item("extract(year from " + c + ")", Kind.INT, nextAlias(), false);
    if (chance(0.8)) return column(r);
    switch (r.kind()) {
      case INT:
        return r.col.arithmetic ? new Item(c + " % 3", Kind.INT, nextAlias(), false) : column(r);
      case TIMESTAMP:
        return new Item("extract(month from " + c + ")", Kind.INT, nextAlias(), false);
      case STRING:
        return new Item("substring(" + c + ", 1, 1)", Kind.STRING, nextAlias(), false);
      case DEC:
        return new Item("CAST(" + c + " AS DOUBLE)", Kind.DOUBLE, nextAlias(), false);
      default:
        return column(r);
    }
  }

  private Item aggregate(List<Ref> refs) {
    Ref r = pick(refs);
    String c = r.sql();
    int x = rnd.nextInt(100);
    if (x < 15) return new Item("count(*)", Kind.INT, nextAlias(), false);
    if (x < 27) return new Item("count(" + c + ")", Kind.INT, nextAlias(), false);
    if (x < 39) return new Item("count(DISTINCT " + c + ")", Kind.INT, nextAlias(), false);
    if (x < 45) {
      return new Item("sum(CASE WHEN " + predicate(refs, 1) + " THEN 1 ELSE 0 END)", Kind.INT, nextAlias(), false);
    }
    if (x < 72) {
      List<Ref> summable = refs.stream().filter(o -> o.col.summable).toList();
      if (!summable.isEmpty()) {
        Ref s = pick(summable);
        String fn = chance(0.6) ? "sum" : "avg";
        return new Item(fn + "(" + s.sql() + ")", fn.equals("sum") ? s.kind() : Kind.DOUBLE, nextAlias(), false);
      }
    }
    if (r.kind() == Kind.BOOL && chance(0.7)) return new Item("count(" + c + ")", Kind.INT, nextAlias(), false);
    return new Item((chance(0.5) ? "min(" : "max(") + c + ")", r.kind(), nextAlias(), false);
  }

  /** A HAVING condition over aggregates of {@code refs}. */
  private String having(List<Ref> refs) {
    int x = rnd.nextInt(3);
    if (x == 0) return "count(*) " + pick(List.of(">", ">=", "<", "=")) + " " + rnd.nextInt(12);
    Ref r = pick(refs);
    if (x == 1 && r.kind() != Kind.BOOL) return (chance(0.5) ? "min(" : "max(") + r.sql() + ") " + compareOp() + " " + literal(r.col);
    List<Ref> summable = refs.stream().filter(o -> o.col.summable).toList();
    if (summable.isEmpty()) return "count(" + r.sql() + ") > " + rnd.nextInt(5);
    Ref s = pick(summable);
    return "sum(" + s.sql() + ") " + compareOp() + " " + literal(s.col);
  }

  private record Grouped(String sql, List<Item> items) {}

  private Grouped grouped(List<Ref> refs, String from, String condition) {
    int nKeys = chance(0.12) ? 0 : 1 + (chance(0.4) ? 1 : 0);
    List<Item> keys = new ArrayList<>();
    for (int tries = 0; keys.size() < nKeys && tries < 20; tries++) {
      Item k = groupKey(refs);
      if (keys.stream().noneMatch(o -> o.sql.equals(k.sql))) keys.add(k);
    }
    List<Item> aggs = new ArrayList<>();
    int nAggs = 1 + rnd.nextInt(4);
    for (int tries = 0; aggs.size() < nAggs && tries < 20; tries++) {
      Item a = aggregate(refs);
      if (aggs.stream().noneMatch(o -> o.sql.equals(a.sql))) aggs.add(a);
    }
    List<Item> items = new ArrayList<>(keys);
    items.addAll(aggs);
    StringBuilder sb = new StringBuilder("SELECT ").append(list(items)).append(" FROM ").append(from).append(where(condition));
    if (!keys.isEmpty()) {
      sb.append(" GROUP BY ").append(keys.stream().map(Item::sql).collect(Collectors.joining(", ")));
      if (chance(0.3)) sb.append(" HAVING ").append(having(refs));
    }
    return new Grouped(sb.toString(), items);
  }

  private String groupQuery() {
    return groupedSingle().sql;
  }

  private Grouped groupedSingle() {
    Table t = pickTable();
    List<Ref> refs = refs(List.of(t), false);
    String p = chance(0.6) ? predicate(refs, 1) : null;
    return grouped(refs, t.name, and(p, guard(t, null, 10)));
  }

  // ---- (c) joins

  private record Joined(String from, List<Table> tables, String where) {}

  private Joined joinTables(boolean aggregated) {
    Table start = chance(0.2) ? T : pick(TPCH);
    List<Table> tables = new ArrayList<>(List.of(start));
    int extra = 1 + (chance(0.45) ? 1 : 0);
    boolean comma = chance(0.3);
    StringBuilder from = new StringBuilder(start.name + " " + start.alias);
    List<String> where = new ArrayList<>();
    int factor = aggregated ? 10 : 1;
    String g0 = guard(start, start.alias, factor);
    if (g0 != null) where.add(g0);
    for (int i = 0; i < extra; i++) {
      List<Edge> candidates = new ArrayList<>();
      for (Edge e : EDGES) {
        if (tables.contains(e.a) && !tables.contains(e.b)) candidates.add(e);
        else if (tables.contains(e.b) && !tables.contains(e.a)) candidates.add(new Edge(e.b, e.bCols, e.a, e.aCols));
      }
      if (candidates.isEmpty()) break;
      Edge e = pick(candidates);
      Table next = e.b;
      tables.add(next);
      List<String> on = new ArrayList<>();
      for (int k = 0; k < e.aCols.size(); k++) {
        on.add(e.a.alias + "." + e.aCols.get(k) + " = " + next.alias + "." + e.bCols.get(k));
      }
      String g = guard(next, next.alias, factor);
      if (comma) {
        from.append(", ").append(next.name).append(' ').append(next.alias);
        where.addAll(on);
        if (g != null) where.add(g);
        continue;
      }
      boolean left = chance(0.4);
      if (left) {
        if (g != null) on.add(g);
        if (chance(0.4)) on.add(predicate(refs(List.of(next), true), 0));
      } else if (g != null) {
        where.add(g);
      }
      from.append(left ? " LEFT JOIN " : chance(0.5) ? " JOIN " : " INNER JOIN ").append(next.name).append(' ')
          .append(next.alias).append(" ON ").append(String.join(" AND ", on));
    }
    if (chance(0.7)) where.add(predicate(refs(List.of(pick(tables)), true), 1));
    return new Joined(from.toString(), tables, where.isEmpty() ? null : and(where.toArray(String[]::new)));
  }

  private String joinQuery(boolean forceFlat) {
    boolean aggregated = !forceFlat && chance(0.5);
    Joined j = joinTables(aggregated);
    List<Ref> refs = refs(j.tables, true);
    if (aggregated) return grouped(refs, j.from, j.where).sql;
    List<Item> items = selectItems(refs, 2, 4);
    return "SELECT " + list(items) + " FROM " + j.from + where(j.where);
  }

  // ---- (d) ORDER BY ... LIMIT

  private String orderLimitQuery() {
    String base;
    List<Item> items;
    int x = rnd.nextInt(100);
    if (x < 60) {
      Table t = pickTable();
      List<Ref> refs = refs(List.of(t), false);
      items = selectItems(refs, 1, 4);
      String p = chance(0.7) ? predicate(refs, 1) : null;
      base = "SELECT " + list(items) + " FROM " + t.name + where(and(p, guard(t, null, 10)));
    } else if (x < 85) {
      Grouped g = groupedSingle();
      base = g.sql;
      items = g.items;
    } else {
      Joined j = joinTables(false);
      List<Ref> refs = refs(j.tables, true);
      items = selectItems(refs, 2, 4);
      base = "SELECT " + list(items) + " FROM " + j.from + where(j.where);
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) order.add(i);
    Collections.shuffle(order, rnd);
    if (chance(0.25) && order.size() > 1) order = order.subList(0, 1 + rnd.nextInt(order.size() - 1)); // not total
    List<String> keys = new ArrayList<>();
    for (int i : order) {
      Item it = items.get(i);
      String ref = it.alias != null ? (chance(0.5) ? it.alias : String.valueOf(i + 1))
          : chance(0.8) ? it.sql : String.valueOf(i + 1);
      keys.add(ref + (chance(0.5) ? " ASC" : " DESC") + (chance(0.5) ? " NULLS FIRST" : " NULLS LAST"));
    }
    String sql = base + " ORDER BY " + String.join(", ", keys) + " LIMIT " + (1 + rnd.nextInt(40));
    if (chance(0.3)) sql += " OFFSET " + rnd.nextInt(10);
    return sql;
  }

  // ---- (e) DISTINCT and set operations

  private String distinctQuery() {
    Table t = pickTable();
    List<Ref> refs = refs(List.of(t), false);
    List<Item> keys = new ArrayList<>();
    int n = 1 + rnd.nextInt(2);
    for (int tries = 0; keys.size() < n && tries < 20; tries++) {
      Item k = groupKey(refs);
      if (keys.stream().noneMatch(o -> o.sql.equals(k.sql))) keys.add(k);
    }
    String p = chance(0.6) ? predicate(refs, 1) : null;
    return "SELECT DISTINCT " + list(keys) + " FROM " + t.name + where(and(p, guard(t, null, 10)));
  }

  private String simpleSelect(Table t, List<String> columns) {
    List<Ref> refs = refs(List.of(t), false);
    String p = chance(0.8) ? predicate(refs, 1) : null;
    return "SELECT " + String.join(", ", columns) + " FROM " + t.name + where(and(p, guard(t, null, 1)));
  }

  private String setOperationQuery() {
    String op = pick(List.of("UNION", "UNION ALL", "EXCEPT", "INTERSECT"));
    String left;
    String right;
    if (chance(0.35)) {
      List<String> pair = new ArrayList<>(pick(SET_PAIRS));
      if (chance(0.5)) Collections.reverse(pair);
      String[] a = pair.get(0).split("\\.");
      String[] b = pair.get(1).split("\\.");
      left = simpleSelect(table(a[0]), List.of(a[1]));
      right = simpleSelect(table(b[0]), List.of(b[1]));
    } else {
      Table t = pickTable();
      List<Col> cols = t.cols.stream().filter(c -> c.groupable || t == T).toList();
      List<String> chosen = new ArrayList<>();
      int n = 1 + rnd.nextInt(2);
      for (int tries = 0; chosen.size() < n && tries < 20; tries++) {
        String c = pick(cols).name;
        if (!chosen.contains(c)) chosen.add(c);
      }
      left = simpleSelect(t, chosen);
      right = simpleSelect(t, chosen);
    }
    return left + " " + op + " " + right;
  }
}
