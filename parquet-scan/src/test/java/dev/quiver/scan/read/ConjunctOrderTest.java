package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.RowPredicate;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/** The adaptive order of a scan's conjuncts: cheapest per row dropped first, and never when one can fail. */
class ConjunctOrderTest {
  static RowPredicate conjunct(boolean canFail) {
    return new RowPredicate() {
      @Override public List<String> columns() {
        return List.of("x");
      }

      @Override public boolean canFail() {
        return canFail;
      }

      @Override public int select(VectorSchemaRoot batch, BufferAllocator allocator, boolean[] keep) {
        throw new AssertionError();
      }
    };
  }

  @Test
  void cheapAndSelectiveGoFirst() {
    ConjunctOrder o = new ConjunctOrder(List.of(conjunct(false), conjunct(false), conjunct(false)));
    assertThat(o.order()).containsExactly(0, 1, 2);
    for (int b = 0; b < ConjunctOrder.EVERY / 2; b++) {
      o.record(0, 100_000, 1_000, 900); // 100 ns a row, drops 10%: 1,000 ns per row dropped
      o.record(1, 20_000, 900, 90); // 22 ns a row, drops 90%: 25 ns per row dropped
    }
    // conjunct 2 never measured (no row reached it): last
    assertThat(o.order()).containsExactly(1, 0, 2);
  }

  @Test
  void aConjunctThatCanFailKeepsTheGivenOrder() {
    ConjunctOrder o = new ConjunctOrder(List.of(conjunct(false), conjunct(true)));
    for (int b = 0; b < 4 * ConjunctOrder.EVERY; b++) {
      o.record(0, 100_000, 1_000, 999);
      o.record(1, 1_000, 999, 1);
    }
    assertThat(o.order()).containsExactly(0, 1);
  }
}
