package dev.quiver.scan.table;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * MetadataCache's bookkeeping: bounded by bytes with the least recently used entry out first, an entry larger than the
 * cache never kept, absent values (null) cached as such, a key of another file version a miss, hits and misses counted.
 */
class MetadataCacheTest {
  static MetadataCache.Key key(long length, int rowGroup, String column) {
    return new MetadataCache.Key("/d/t.parquet", length, 1_000, "v", rowGroup, column, MetadataCache.Kind.DICTIONARY);
  }

  @Test
  void leastRecentlyUsedGoesFirstAndTheBoundHolds() {
    long entry = 100 + MetadataCache.OVERHEAD;
    MetadataCache cache = new MetadataCache(3 * entry);
    for (int g = 0; g < 3; g++) cache.put(key(10, g, "a"), "value" + g, 100);
    assertThat(cache.bytes()).isEqualTo(3 * entry);
    assertThat(cache.get(key(10, 0, "a")).value()).isEqualTo("value0"); // 0 is now the most recent
    cache.put(key(10, 3, "a"), "value3", 100); // evicts 1, the least recently used
    assertThat(cache.get(key(10, 1, "a"))).isNull();
    assertThat(cache.get(key(10, 0, "a"))).isNotNull();
    assertThat(cache.get(key(10, 2, "a"))).isNotNull();
    assertThat(cache.bytes()).isLessThanOrEqualTo(cache.maxBytes());
    assertThat(cache.evictions()).isEqualTo(1);
    assertThat(cache.hits()).isEqualTo(3);
    assertThat(cache.misses()).isEqualTo(1);
  }

  @Test
  void tooLargeIsNotKeptAbsentIsAndAnotherVersionMisses() {
    MetadataCache cache = new MetadataCache(1_000);
    cache.put(key(10, 0, "big"), new byte[5_000], 5_000);
    assertThat(cache.get(key(10, 0, "big"))).isNull();
    assertThat(cache.size()).isZero();
    cache.put(key(10, 0, "none"), null, 0);
    MetadataCache.Entry absent = cache.get(key(10, 0, "none"));
    assertThat(absent).isNotNull();
    assertThat(absent.value()).isNull();
    assertThat(cache.get(key(11, 0, "none"))).as("the same file at another length").isNull();
    cache.put(key(10, 0, "none"), "now", 10); // replacing an entry charges it once
    assertThat(cache.bytes()).isEqualTo(10 + MetadataCache.OVERHEAD);
  }

  @Test
  void aCacheOfNothingKeepsNothing() {
    MetadataCache cache = new MetadataCache(0);
    cache.put(key(10, 0, "a"), "x", 1);
    assertThat(cache.size()).isZero();
    assertThat(cache.bytes()).isZero();
  }
}
