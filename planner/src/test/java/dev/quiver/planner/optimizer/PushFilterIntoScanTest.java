package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.plan.LogicalPlan;
import org.junit.jupiter.api.Test;

class PushFilterIntoScanTest extends RuleTest {
  @Test
  void aFilterRightAboveAScanGivesItThePrunableConjuncts() {
    LogicalPlan plan = new LogicalPlan.Filter(tester.scan("t"), tester.predicate("i32 < 5 AND length(s) = 2"));
    RuleTester.Applied once = tester.apply(new PushFilterIntoScan(), plan).fires();
    LogicalPlan.TableScan scan = RuleTester.find(once.plan(), LogicalPlan.TableScan.class);
    assertThat(scan.describe()).contains("predicate=i32 < 5").doesNotContain("predicate=length");
    tester.apply(new PushFilterIntoScan(), once.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void notWhenSomethingStandsBetweenFilterAndScan() {
    tester.apply(new PushFilterIntoScan(), tester.analyzed("SELECT * FROM (SELECT i32 + 1 AS k, s FROM t) q WHERE k > 3"))
        .doesNotFire();
    tester.apply(new PushFilterIntoScan(), tester.analyzed("SELECT i32 FROM t")).doesNotFire();
  }
}
