package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.MetadataCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scans' metadata cache (MetadataCache; ParquetScan's TaskMetadata): the dictionaries, bloom filters and page
 * indexes a query read to prune are found in the cache by the next query — the same row groups pruned at the same
 * levels, the same answers, hits instead of misses in EXPLAIN ANALYZE; a file replaced under the cache is read again
 * (its entries are keyed by the file's version) and answers with its new rows; a cache at its byte limit evicts and
 * still answers right; a cache of 0 bytes caches nothing.
 */
class MetadataCacheTest {
  @TempDir
  Path dir;
  static final int GROUP = 1_000;
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT64).named("id")
      .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("tag")
      .required(PrimitiveTypeName.INT64).named("code")
      .named("t");

  /**
   * 10 row groups; {@code tag} one of "a", "m", "z" and the group's number (dictionaries; "b" lies within every group's
   * bounds, so statistics cannot prune it), {@code code} unsorted with bloom filters.
   */
  void write(Path file, String extraTag, long extraCode) throws IOException {
    Path tmp = dir.resolve("tmp.parquet.part");
    Files.deleteIfExists(tmp);
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(tmp))
        .withType(SCHEMA).withRowGroupRowCountLimit(GROUP).withPageRowCountLimit(100).withBloomFilterEnabled("code", true)
        .withDictionaryEncoding("code", false).build()) {
      for (long id = 0; id < 10 * GROUP; id++) {
        boolean extra = extraTag != null && id % GROUP == 7 && id / GROUP == 3;
        w.write(f.newGroup().append("id", id).append("tag", extra ? extraTag : "amz".charAt((int) (id % 3)) + "" + id / GROUP)
            .append("code", extra ? extraCode : id * 7919 % 1_000_003));
      }
    }
    Files.setLastModifiedTime(tmp, FileTime.fromMillis(System.currentTimeMillis() + (extraTag == null ? 0 : 60_000)));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  static final String BY_DICTIONARY = "SELECT count(*) FROM t WHERE tag = 'b'";
  static final String BY_BLOOM = "SELECT count(*) FROM t WHERE code = 500000";
  static final String BY_PAGE_INDEX = "SELECT count(*), sum(id) FROM t WHERE id BETWEEN 1500 AND 1600";

  static String explain(QueryEngine engine, String sql) {
    return TestTables.explain(engine, sql, QuerySettings.DEFAULT);
  }

  static long count(QueryEngine engine, String sql) {
    return (Long) TestTables.run(engine, sql, QuerySettings.DEFAULT).get(0).get(0);
  }

  @Test
  void theNextQueryPrunesFromTheCacheAndAFileReplacedIsReadAgain() throws IOException {
    Path file = dir.resolve("t.parquet");
    write(file, null, 0);
    Catalog catalog = Catalog.open(dir.toString()).metadataCache(64L << 20);
    QueryEngine engine = new QueryEngine(catalog);
    for (String[] q : new String[][] {{BY_DICTIONARY, "row_groups_pruned_dictionary"},
        {BY_BLOOM, "row_groups_pruned_bloom"}}) {
      String first = explain(engine, q[0]);
      assertThat(TestTables.metric(first, q[1])).as(first).isEqualTo(10);
      assertThat(TestTables.metric(first, "metadata_cache_misses")).as(first).isGreaterThanOrEqualTo(10);
      assertThat(TestTables.metric(first, "metadata_cache_hits")).as(first).isZero();
      String second = explain(engine, q[0]);
      assertThat(TestTables.metric(second, q[1])).as(second).isEqualTo(10);
      assertThat(TestTables.metric(second, "metadata_cache_hits")).as(second)
          .isEqualTo(TestTables.metric(first, "metadata_cache_misses"));
      assertThat(TestTables.metric(second, "metadata_cache_misses")).as(second).isZero();
      assertThat(count(engine, q[0])).isZero();
    }
    String first = explain(engine, BY_PAGE_INDEX);
    assertThat(TestTables.metric(first, "pages_pruned")).as(first).isPositive();
    String second = explain(engine, BY_PAGE_INDEX);
    assertThat(TestTables.metric(second, "pages_pruned")).isEqualTo(TestTables.metric(first, "pages_pruned"));
    assertThat(TestTables.metric(second, "metadata_cache_hits")).as(second).isPositive();
    assertThat(TestTables.metric(second, "metadata_cache_misses")).as(second).isZero();
    assertThat(TestTables.run(engine, BY_PAGE_INDEX, QuerySettings.DEFAULT))
        .containsExactly(List.of(101L, (1500L + 1600L) * 101 / 2));

    // replaced: the row groups now hold 'b' and code 500000 in one row, which the cached entries of the old
    // version would prune
    write(file, "b", 500_000);
    String after = explain(engine, BY_DICTIONARY);
    assertThat(TestTables.metric(after, "metadata_cache_hits")).as(after).isZero();
    assertThat(TestTables.metric(after, "row_groups_pruned_dictionary")).as(after).isEqualTo(9);
    assertThat(count(engine, BY_DICTIONARY)).isEqualTo(1);
    assertThat(count(engine, BY_BLOOM)).isEqualTo(1);
  }

  @Test
  void aCacheAtItsLimitEvictsAndStillAnswers() throws IOException {
    write(dir.resolve("t.parquet"), null, 0);
    // room for a few dictionaries of one row group's alphabet, not for all 10
    Catalog catalog = Catalog.open(dir.toString()).metadataCache(4 * (MetadataCache.OVERHEAD + 200));
    QueryEngine engine = new QueryEngine(catalog);
    MetadataCache cache = catalog.metadataCache();
    for (int i = 0; i < 3; i++) {
      String plan = explain(engine, BY_DICTIONARY);
      assertThat(TestTables.metric(plan, "row_groups_pruned_dictionary")).as(plan).isEqualTo(10);
      assertThat(TestTables.metric(plan, "metadata_cache_misses")).as(plan).isPositive();
      assertThat(cache.bytes()).isLessThanOrEqualTo(cache.maxBytes());
      assertThat(count(engine, "SELECT count(*) FROM t WHERE tag = 'm4'")).isEqualTo(334);
    }
    assertThat(cache.evictions()).isPositive();
    assertThat(cache.size()).isBetween(1, 9);
  }

  @Test
  void aCacheOfNothingCachesNothing() throws IOException {
    write(dir.resolve("t.parquet"), null, 0);
    Catalog catalog = Catalog.open(dir.toString()).metadataCache(0);
    QueryEngine engine = new QueryEngine(catalog);
    for (int i = 0; i < 2; i++) {
      String plan = explain(engine, BY_DICTIONARY);
      assertThat(TestTables.metric(plan, "row_groups_pruned_dictionary")).isEqualTo(10);
      assertThat(plan).doesNotContain("metadata_cache");
    }
    assertThat(catalog.metadataCache().size()).isZero();
  }
}
