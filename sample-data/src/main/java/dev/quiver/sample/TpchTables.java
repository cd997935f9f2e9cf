package dev.quiver.sample;

import io.trino.tpch.Customer;
import io.trino.tpch.CustomerGenerator;
import io.trino.tpch.Nation;
import io.trino.tpch.NationGenerator;
import io.trino.tpch.Order;
import io.trino.tpch.OrderGenerator;
import io.trino.tpch.Part;
import io.trino.tpch.PartGenerator;
import io.trino.tpch.PartSupplier;
import io.trino.tpch.PartSupplierGenerator;
import io.trino.tpch.Region;
import io.trino.tpch.RegionGenerator;
import io.trino.tpch.Supplier;
import io.trino.tpch.SupplierGenerator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The TPC-H tables other than {@code lineitem} ({@link Lineitem}), from {@code io.trino.tpch}, written
 * with the same conventions: keys INT64, money {@code DECIMAL(12,2)} in cents, dates {@code DATE}, strings
 * UTF-8, every column required, SNAPPY, no dictionary for the free-text {@code *_comment} column.
 */
public final class TpchTables {
  private static final LogicalTypeAnnotation MONEY = LogicalTypeAnnotation.decimalType(2, 12);
  private static final LogicalTypeAnnotation DATE = LogicalTypeAnnotation.dateType();
  private static final LogicalTypeAnnotation STRING = LogicalTypeAnnotation.stringType();

  /**
   * One TPC-H table: its Parquet schema (named after the table), its generator at a scale factor, in
   * primary-key order, and the Parquet row of one generated entity.
   */
  public record Table<T>(MessageType schema, DoubleFunction<Iterable<T>> generator, Function<T, Object[]> row) {
    public String name() {
      return schema.getName();
    }

    /** Writes the table at {@code scaleFactor} in generator order, with row groups of {@code rowGroupRows}. */
    public long write(Path file, double scaleFactor, int rowGroupRows, UnaryOperator<RowWriter.Builder> tune)
        throws IOException {
      long rows = 0;
      String comment = schema.getFieldName(schema.getFieldCount() - 1);
      try (ParquetWriter<Object[]> w = RowWriter.open(file, schema, b -> tune.apply(b
          .withRowGroupRowCountLimit(rowGroupRows)
          .withCompressionCodec(CompressionCodecName.SNAPPY)
          .withDictionaryEncoding(comment, false)))) {
        for (T entity : generator.apply(scaleFactor)) {
          w.write(row.apply(entity));
          rows++;
        }
      }
      return rows;
    }
  }

  public static final Table<Order> ORDERS = new Table<>(Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("o_orderkey")
      .required(PrimitiveTypeName.INT64).named("o_custkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("o_orderstatus")
      .required(PrimitiveTypeName.INT64).as(MONEY).named("o_totalprice")
      .required(PrimitiveTypeName.INT32).as(DATE).named("o_orderdate")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("o_orderpriority")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("o_clerk")
      .required(PrimitiveTypeName.INT32).named("o_shippriority")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("o_comment")
      .named("orders"),
      sf -> new OrderGenerator(sf, 1, 1),
      o -> new Object[] {
          o.getOrderKey(), o.getCustomerKey(), String.valueOf(o.getOrderStatus()), o.getTotalPriceInCents(),
          o.getOrderDate(), o.getOrderPriority(), o.getClerk(), o.getShipPriority(), o.getComment()});

  public static final Table<Customer> CUSTOMER = new Table<>(Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("c_custkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("c_name")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("c_address")
      .required(PrimitiveTypeName.INT64).named("c_nationkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("c_phone")
      .required(PrimitiveTypeName.INT64).as(MONEY).named("c_acctbal")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("c_mktsegment")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("c_comment")
      .named("customer"),
      sf -> new CustomerGenerator(sf, 1, 1),
      c -> new Object[] {
          c.getCustomerKey(), c.getName(), c.getAddress(), c.getNationKey(), c.getPhone(),
          c.getAccountBalanceInCents(), c.getMarketSegment(), c.getComment()});

  public static final Table<Part> PART = new Table<>(Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("p_partkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("p_name")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("p_mfgr")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("p_brand")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("p_type")
      .required(PrimitiveTypeName.INT32).named("p_size")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("p_container")
      .required(PrimitiveTypeName.INT64).as(MONEY).named("p_retailprice")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("p_comment")
      .named("part"),
      sf -> new PartGenerator(sf, 1, 1),
      p -> new Object[] {
          p.getPartKey(), p.getName(), p.getManufacturer(), p.getBrand(), p.getType(), p.getSize(),
          p.getContainer(), p.getRetailPriceInCents(), p.getComment()});

  public static final Table<PartSupplier> PARTSUPP = new Table<>(Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("ps_partkey")
      .required(PrimitiveTypeName.INT64).named("ps_suppkey")
      .required(PrimitiveTypeName.INT32).named("ps_availqty")
      .required(PrimitiveTypeName.INT64).as(MONEY).named("ps_supplycost")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("ps_comment")
      .named("partsupp"),
      sf -> new PartSupplierGenerator(sf, 1, 1),
      ps -> new Object[] {
          ps.getPartKey(), ps.getSupplierKey(), ps.getAvailableQuantity(), ps.getSupplyCostInCents(),
          ps.getComment()});

  public static final Table<Supplier> SUPPLIER = new Table<>(Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("s_suppkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("s_name")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("s_address")
      .required(PrimitiveTypeName.INT64).named("s_nationkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("s_phone")
      .required(PrimitiveTypeName.INT64).as(MONEY).named("s_acctbal")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("s_comment")
      .named("supplier"),
      sf -> new SupplierGenerator(sf, 1, 1),
      s -> new Object[] {
          s.getSupplierKey(), s.getName(), s.getAddress(), s.getNationKey(), s.getPhone(),
          s.getAccountBalanceInCents(), s.getComment()});

  /** Fixed at 25 rows: the scale factor is ignored. */
  public static final Table<Nation> NATION = new Table<>(Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("n_nationkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("n_name")
      .required(PrimitiveTypeName.INT64).named("n_regionkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("n_comment")
      .named("nation"),
      sf -> new NationGenerator(),
      n -> new Object[] {n.getNationKey(), n.getName(), n.getRegionKey(), n.getComment()});

  /** Fixed at 5 rows: the scale factor is ignored. */
  public static final Table<Region> REGION = new Table<>(Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("r_regionkey")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("r_name")
      .required(PrimitiveTypeName.BINARY).as(STRING).named("r_comment")
      .named("region"),
      sf -> new RegionGenerator(),
      r -> new Object[] {r.getRegionKey(), r.getName(), r.getComment()});

  /** Every table here, {@code lineitem} excluded. */
  public static final List<Table<?>> ALL = List.of(ORDERS, CUSTOMER, PART, PARTSUPP, SUPPLIER, NATION, REGION);

  private TpchTables() {}
}
