package dev.quiver.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.tpch.LineItem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
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
    // a small stand-in: ensure() is the real entry point, but SF 0.1 is exercised by the server smoke run
    Files.createDirectories(target);
    Files.writeString(target.resolve("_COMPLETE"), "v1\n");
    assertThat(SampleData.ensure(target)).isEqualTo(target);
    assertThat(Files.list(target).count()).isEqualTo(1); // complete marker present: nothing regenerated
  }
}
