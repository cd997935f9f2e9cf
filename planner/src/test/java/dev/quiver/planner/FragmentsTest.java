package dev.quiver.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import dev.quiver.scan.table.Catalog;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Splitting a scan/filter/project query into fragments over the sample lineitem (10 row groups sorted by
 * l_shipdate; row group 0 ends 1992-11-17, so the query below leaves groups 1..9).
 */
class FragmentsTest {
  static final String QUERY = "SELECT l_orderkey, l_quantity * 2 AS q2 FROM lineitem WHERE l_shipdate >= DATE '1993-01-01'";

  private static long rows(QueryEngine engine, PreparedQuery q, BufferAllocator a) {
    long n = 0;
    try (QueryExecution e = engine.execute(q, a)) {
      VectorSchemaRoot b;
      while ((b = e.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          n += batch.getRowCount();
        }
      }
    }
    return n;
  }

  @Test
  void splitsTheSurvivingRowGroupsIntoBalancedNonEmptyFragmentsThatTogetherReadTheWholeAnswer() {
    QueryEngine engine = new QueryEngine(Catalog.open(SampleData.ensure().toString()));
    try (BufferAllocator a = new RootAllocator()) {
      PreparedQuery q = engine.prepare(QUERY, a);
      List<Fragments.Fragment> four = Fragments.split(q, 4);
      assertThat(four).hasSize(4);
      List<Integer> groups = new ArrayList<>();
      long lightest = Long.MAX_VALUE;
      long heaviest = 0;
      for (Fragments.Fragment f : four) {
        assertThat(f.parts()).isNotEmpty();
        f.parts().forEach(p -> groups.addAll(p.rowGroups()));
        lightest = Math.min(lightest, f.compressedBytes());
        heaviest = Math.max(heaviest, f.compressedBytes());
      }
      assertThat(groups).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9); // 0 pruned, each once
      // 8 row groups of ~3.5 MB and one of 0.6 MB in 4: 3 small+large, the others 2 large each
      assertThat(heaviest - lightest).isLessThan(heaviest / 2);
      long whole = rows(engine, q, a);
      long sum = 0;
      for (Fragments.Fragment f : four) {
        long part = rows(engine, Fragments.restrict(engine.prepare(QUERY, a), f.parts()), a);
        assertThat(part).isPositive().isLessThan(whole);
        sum += part;
      }
      assertThat(sum).isEqualTo(whole);
      assertThat(Fragments.split(q, 20)).hasSize(9); // fewer row groups than asked: one each
      assertThat(Fragments.split(q, 1)).isNull();
      assertThat(Fragments.split(engine.prepare(QUERY + " LIMIT 5", a), 4)).isNull();
      assertThat(Fragments.split(engine.prepare("SELECT count(*) FROM lineitem", a), 4)).isNull();
      assertThat(Fragments.split(engine.prepare("SELECT DISTINCT l_shipmode FROM lineitem", a), 4)).isNull();
      assertThat(Fragments.split(engine.prepare("SELECT l_orderkey FROM lineitem ORDER BY 1", a), 4)).isNull();
      assertThat(Fragments.split(engine.prepare("EXPLAIN " + QUERY, a), 4)).isNull();
    }
  }
}
