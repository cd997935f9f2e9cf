package dev.quiver.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TpcdsTablesTest {
  @TempDir
  Path dir;

  @Test
  void twentyFourTables() {
    assertThat(TpcdsTables.tables()).hasSize(24).extracting(Table::getName)
        .contains("store_sales", "date_dim", "customer_demographics", "web_site").doesNotContain("dbgen_version");
  }

  @Test
  void customerHasTheSchemaTypesAndTheGeneratorsRowsAndNulls() throws Exception {
    Path f = dir.resolve("customer.parquet");
    long rows = TpcdsTables.write(Table.CUSTOMER, f, 0.01);
    // the generator's own rows, counted here without the writer: rows and NULLs per column
    Session session = Session.getDefaultSession().withScale(0.01).withTable(Table.CUSTOMER).withNoSexism(false);
    int columns = Table.CUSTOMER.getColumns().length;
    long generated = 0;
    long[] nulls = new long[columns];
    for (List<List<String>> r : Results.constructResults(Table.CUSTOMER, session)) {
      generated++;
      for (int c = 0; c < columns; c++) if (r.get(0).get(c) == null) nulls[c]++;
    }
    assertThat(rows).isEqualTo(generated).isEqualTo(1000);
    assertThat(java.util.Arrays.stream(nulls).sum()).as("the generator gives NULLs in customer at SF 0.01").isPositive();
    ParquetMetadata m;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f))) {
      m = r.getFooter();
    }
    assertThat(m.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum()).isEqualTo(generated);
    for (int c = 0; c < columns; c++) {
      String name = Table.CUSTOMER.getColumns()[c].getName();
      long written = 0;
      for (BlockMetaData b : m.getBlocks()) {
        for (ColumnChunkMetaData col : b.getColumns()) {
          if (col.getPath().toDotString().equals(name)) written += col.getStatistics().getNumNulls();
        }
      }
      assertThat(written).as("NULLs in " + name).isEqualTo(nulls[c]);
    }
    MessageType schema = m.getFileMetaData().getSchema();
    assertThat(schema.getType("c_customer_sk").asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.INT64);
    assertThat(schema.getType("c_birth_year").asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.INT32);
    assertThat(schema.getType("c_customer_id").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.stringType());
  }

  @Test
  void decimalsAndDatesAsTheTpcdsSchemaDeclaresThem() {
    MessageType sales = TpcdsTables.schema(Table.STORE_SALES);
    assertThat(sales.getType("ss_sales_price").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.decimalType(2, 7));
    assertThat(sales.getType("ss_sales_price").asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.INT32);
    MessageType dates = TpcdsTables.schema(Table.DATE_DIM);
    assertThat(dates.getType("d_date").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.dateType());
    assertThat(dates.getType("d_date_sk").asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.INT64);
  }
}
