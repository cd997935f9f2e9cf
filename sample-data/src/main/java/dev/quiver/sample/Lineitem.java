package dev.quiver.sample;

import io.trino.tpch.LineItem;
import io.trino.tpch.LineItemGenerator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/** TPC-H {@code lineitem} from {@code io.trino.tpch}, written with real Parquet logical types. */
public final class Lineitem {
  public static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("l_orderkey")
      .required(PrimitiveTypeName.INT64).named("l_partkey")
      .required(PrimitiveTypeName.INT64).named("l_suppkey")
      .required(PrimitiveTypeName.INT32).named("l_linenumber")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_quantity")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_extendedprice")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_discount")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("l_tax")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("l_returnflag")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("l_linestatus")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("l_shipdate")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("l_commitdate")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("l_receiptdate")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("l_shipinstruct")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("l_shipmode")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("l_comment")
      .named("lineitem");

  /** Row order of a generated file. */
  public enum Order { NATURAL, SHIPDATE, SHUFFLED }

  private Lineitem() {}

  /** Every row of TPC-H lineitem at {@code scaleFactor}, in generator ({@code l_orderkey}) order. */
  public static List<LineItem> generate(double scaleFactor) {
    List<LineItem> rows = new ArrayList<>();
    for (LineItem li : new LineItemGenerator(scaleFactor, 1, 1)) rows.add(li);
    return rows;
  }

  /** Writes lineitem at {@code scaleFactor} in {@code order}, with row groups of {@code rowGroupRows}. */
  public static long write(Path file, double scaleFactor, Order order, int rowGroupRows,
      UnaryOperator<RowWriter.Builder> tune) throws IOException {
    if (order == Order.NATURAL) {
      // generator order: streamed, so any scale factor fits in memory
      long n = 0;
      try (ParquetWriter<Object[]> w = open(file, rowGroupRows, tune)) {
        for (LineItem li : new LineItemGenerator(scaleFactor, 1, 1)) {
          w.write(row(li));
          n++;
        }
      }
      return n;
    }
    List<LineItem> rows = generate(scaleFactor);
    if (order == Order.SHIPDATE) {
      rows.sort(Comparator.comparingInt(LineItem::getShipDate).thenComparingLong(LineItem::getOrderKey)
          .thenComparingInt(LineItem::getLineNumber));
    } else if (order == Order.SHUFFLED) {
      java.util.Collections.shuffle(rows, new java.util.Random(42));
    }
    try (ParquetWriter<Object[]> w = open(file, rowGroupRows, tune)) {
      for (LineItem li : rows) w.write(row(li));
    }
    return rows.size();
  }

  private static ParquetWriter<Object[]> open(Path file, int rowGroupRows, UnaryOperator<RowWriter.Builder> tune)
      throws IOException {
    return RowWriter.open(file, SCHEMA, b -> tune.apply(b
        .withRowGroupRowCountLimit(rowGroupRows)
        .withCompressionCodec(CompressionCodecName.SNAPPY)
        .withDictionaryEncoding("l_comment", false)));
  }

  static Object[] row(LineItem li) {
    return new Object[] {
        li.getOrderKey(), li.getPartKey(), li.getSupplierKey(), li.getLineNumber(),
        li.getQuantity() * 100, li.getExtendedPriceInCents(), li.getDiscountPercent(), li.getTaxPercent(),
        li.getReturnFlag(), li.getStatus(), li.getShipDate(), li.getCommitDate(), li.getReceiptDate(),
        li.getShipInstructions(), li.getShipMode(), li.getComment()};
  }

}
