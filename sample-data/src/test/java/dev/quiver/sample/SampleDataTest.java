package dev.quiver.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.tpch.LineItem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SampleDataTest {
  @TempDir
  Path dir;

  private static ParquetMetadata footer(Path p) throws Exception {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(p))) {
      return r.getFooter();
    }
  }

  @Test
  void lineitemIsSortedByShipdateInBoundedRowGroupsWithLogicalTypes() throws Exception {
    Path f = dir.resolve("lineitem.parquet");
    long rows = Lineitem.write(f, 0.01, Lineitem.Order.SHIPDATE, 5_000, b -> b);
    List<LineItem> generated = Lineitem.generate(0.01);
    assertThat(rows).isEqualTo(generated.size());
    ParquetMetadata m = footer(f);
    assertThat(m.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum()).isEqualTo(rows);
    assertThat(m.getBlocks()).allMatch(b -> b.getRowCount() <= 5_000);
    int previousMax = Integer.MIN_VALUE;
    for (BlockMetaData b : m.getBlocks()) {
      Statistics<?> s = b.getColumns().stream().filter(c -> c.getPath().toDotString().equals("l_shipdate"))
          .findFirst().orElseThrow().getStatistics();
      assertThat((Integer) s.genericGetMin()).isGreaterThanOrEqualTo(previousMax);
      previousMax = (Integer) s.genericGetMax();
    }
    var schema = m.getFileMetaData().getSchema();
    assertThat(schema.getType("l_shipdate").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.dateType());
    assertThat(schema.getType("l_extendedprice").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.decimalType(2, 12));
  }

  @Test
  void generationIsDeterministic() throws Exception {
    Events.write(dir.resolve("a.parquet"), 3_000, 5, 1_000);
    Events.write(dir.resolve("b.parquet"), 3_000, 5, 1_000);
    assertThat(Files.readAllBytes(dir.resolve("a.parquet"))).isEqualTo(Files.readAllBytes(dir.resolve("b.parquet")));
    Events.write(dir.resolve("c.parquet"), 3_000, 6, 1_000);
    assertThat(Files.readAllBytes(dir.resolve("c.parquet"))).isNotEqualTo(Files.readAllBytes(dir.resolve("a.parquet")));
  }

  @Test
  void ensureGeneratesOnceIntoTheGivenDirectory() throws Exception {
    Path target = dir.resolve("cache/sample-test");
    // a pre-existing complete directory (the full generation is ensureWritesAllEightTpchTables...)
    Files.createDirectories(target);
    Files.writeString(target.resolve("_COMPLETE"), "v1\n");
    assertThat(SampleData.ensure(target)).isEqualTo(target);
    assertThat(Files.list(target).count()).isEqualTo(1); // complete marker present: nothing regenerated
  }

  private static long rows(ParquetMetadata m) {
    return m.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
  }

  private static Statistics<?> stats(BlockMetaData b, String column) {
    return b.getColumns().stream().filter(c -> c.getPath().toDotString().equals(column))
        .findFirst().orElseThrow().getStatistics();
  }

  private static PrimitiveTypeName physical(MessageType schema, String column) {
    return schema.getType(column).asPrimitiveType().getPrimitiveTypeName();
  }

  @Test
  void ensureWritesAllEightTpchTablesAtTheirCardinalities() throws Exception {
    Path target = SampleData.ensure(dir.resolve("sample"));
    double sf = SampleData.TPCH_SCALE_FACTOR;
    long part = Math.round(200_000 * sf);
    // TPC-H spec 4.2.5: cardinalities of the base tables at scale factor SF (lineitem's is not exact)
    Map<String, Long> expected = Map.of(
        "orders", Math.round(1_500_000 * sf),
        "customer", Math.round(150_000 * sf),
        "part", part,
        "partsupp", 4 * part,
        "supplier", Math.round(10_000 * sf),
        "nation", 25L,
        "region", 5L);
    Map<String, List<String>> columns = Map.of(
        "lineitem", List.of("l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity",
            "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate",
            "l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"),
        "orders", List.of("o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate",
            "o_orderpriority", "o_clerk", "o_shippriority", "o_comment"),
        "customer", List.of("c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal",
            "c_mktsegment", "c_comment"),
        "part", List.of("p_partkey", "p_name", "p_mfgr", "p_brand", "p_type", "p_size", "p_container",
            "p_retailprice", "p_comment"),
        "partsupp", List.of("ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost", "ps_comment"),
        "supplier", List.of("s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal",
            "s_comment"),
        "nation", List.of("n_nationkey", "n_name", "n_regionkey", "n_comment"),
        "region", List.of("r_regionkey", "r_name", "r_comment"));

    try (Stream<Path> files = Files.list(target)) {
      assertThat(files.map(p -> p.getFileName().toString()).collect(Collectors.toSet()))
          .containsExactlyInAnyOrder("_COMPLETE", "events.parquet", "lineitem.parquet", "orders.parquet",
              "customer.parquet", "part.parquet", "partsupp.parquet", "supplier.parquet", "nation.parquet",
              "region.parquet");
    }
    for (var e : columns.entrySet()) {
      ParquetMetadata m = footer(target.resolve(e.getKey() + ".parquet"));
      MessageType schema = m.getFileMetaData().getSchema();
      assertThat(schema.getFields()).as(e.getKey()).extracting(Type::getName)
          .containsExactlyElementsOf(e.getValue());
      assertThat(schema.getFields()).as(e.getKey()).allMatch(f -> f.isRepetition(Type.Repetition.REQUIRED));
      assertThat(m.getBlocks()).as(e.getKey())
          .allMatch(b -> b.getColumns().stream().allMatch(c -> c.getCodec() == CompressionCodecName.SNAPPY));
      if (expected.containsKey(e.getKey())) {
        assertThat(rows(m)).as(e.getKey()).isEqualTo(expected.get(e.getKey()));
      }
      if (!e.getKey().equals("orders") && !e.getKey().equals("lineitem")) {
        assertThat(m.getBlocks()).as(e.getKey()).hasSize(1);
      }
    }
    assertThat(rows(footer(target.resolve("lineitem.parquet")))).isEqualTo(600_572); // SF 0.1, as documented

    ParquetMetadata orders = footer(target.resolve("orders.parquet"));
    assertThat(orders.getBlocks()).hasSizeGreaterThan(1)
        .allMatch(b -> b.getRowCount() <= SampleData.ORDERS_ROW_GROUP_ROWS);
    MessageType o = orders.getFileMetaData().getSchema();
    assertThat(physical(o, "o_orderkey")).isEqualTo(PrimitiveTypeName.INT64);
    assertThat(physical(o, "o_shippriority")).isEqualTo(PrimitiveTypeName.INT32);
    assertThat(o.getType("o_totalprice").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.decimalType(2, 12));
    assertThat(o.getType("o_orderdate").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.dateType());
    assertThat(o.getType("o_clerk").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.stringType());
    // dates are days since 1970-01-01, like lineitem's: TPC-H orders span 1992-01-01 .. 1998-08-02
    int minDate = orders.getBlocks().stream()
        .mapToInt(b -> (Integer) stats(b, "o_orderdate").genericGetMin()).min().orElseThrow();
    int maxDate = orders.getBlocks().stream()
        .mapToInt(b -> (Integer) stats(b, "o_orderdate").genericGetMax()).max().orElseThrow();
    assertThat(LocalDate.ofEpochDay(minDate)).isBetween(LocalDate.of(1992, 1, 1), LocalDate.of(1992, 1, 31));
    assertThat(LocalDate.ofEpochDay(maxDate)).isBetween(LocalDate.of(1998, 7, 1), LocalDate.of(1998, 8, 2));
    long previousMax = Long.MIN_VALUE; // generator (o_orderkey) order
    for (BlockMetaData b : orders.getBlocks()) {
      assertThat((Long) stats(b, "o_orderkey").genericGetMin()).isGreaterThan(previousMax);
      previousMax = (Long) stats(b, "o_orderkey").genericGetMax();
    }
    MessageType ps = footer(target.resolve("partsupp.parquet")).getFileMetaData().getSchema();
    assertThat(physical(ps, "ps_availqty")).isEqualTo(PrimitiveTypeName.INT32);
    assertThat(ps.getType("ps_supplycost").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.decimalType(2, 12));
  }
}
