package dev.quiver.planner.optimizer;

import org.junit.jupiter.api.Test;

class PruneColumnsTest extends RuleTest {
  @Test
  void theScanReadsOnlyWhatIsReadAbove() {
    RuleTester.Applied once = tester.apply(new PruneColumns(), tester.analyzed("SELECT i32 FROM t WHERE s = 's1'")).becomes(
        "Projection: i32",
        "  Filter: s = 's1'",
        "    TableScan: t projection=[i32, s]");
    tester.apply(new PruneColumns(), once.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void joinsCarryOnlyWhatIsRead() {
    tester.apply(new PruneColumns(), tester.analyzed("SELECT y FROM t JOIN bools ON bools.x = t.b")).becomes(
        "Projection: y",
        "  INNER Join: x = b",
        "    TableScan: t projection=[b]",
        "    " + SCAN_BOOLS);
  }

  @Test
  void theRootsOutputIsNeverNarrowed() {
    tester.apply(new PruneColumns(), tester.scan("t")).doesNotFire();
    tester.apply(new PruneColumns(), tester.analyzed("SELECT * FROM t")).doesNotFire();
  }
}
