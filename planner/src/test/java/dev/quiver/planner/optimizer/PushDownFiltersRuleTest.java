package dev.quiver.planner.optimizer;

import org.junit.jupiter.api.Test;

/** PushDownFilters alone, on small plans ({@link PushDownFiltersTest} reads it from whole optimized queries). */
class PushDownFiltersRuleTest extends RuleTest {
  @Test
  void throughAProjectionSubstitutingItsExpressions() {
    RuleTester.Applied once = tester.apply(new PushDownFilters(),
        tester.analyzed("SELECT * FROM (SELECT i32 + 1 AS k, s FROM t) q WHERE k > 3")).becomes(
        "Projection: k, s",
        "  Projection: (i32 + 1) AS k, s",
        "    Filter: (i32 + 1) > 3",
        "      " + SCAN_T);
    tester.apply(new PushDownFilters(), once.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void intoEachSideOfAnInnerJoin() {
    tester.apply(new PushDownFilters(), tester.analyzed("SELECT * FROM t JOIN bools ON bools.x = t.b WHERE y AND i32 > 0"))
        .becomes(
            "Projection: i8, i32, i64, f64, dec, s, d, b, x, y",
            "  INNER Join: x = b",
            "    Filter: i32 > 0",
            "      " + SCAN_T,
            "    Filter: y",
            "      " + SCAN_BOOLS);
  }

  @Test
  void aJoinsOwnOneSidedConditionGoesToItsSide() {
    tester.apply(new PushDownFilters(), tester.analyzed("SELECT * FROM t JOIN bools ON bools.x = t.b AND t.i32 > 0"))
        .becomes(
            "Projection: i8, i32, i64, f64, dec, s, d, b, x, y",
            "  INNER Join: x = b",
            "    Filter: i32 > 0",
            "      " + SCAN_T,
            "    " + SCAN_BOOLS);
  }

  @Test
  void notBelowALimitNorAVolatileCallNorWhereItAlreadyIs() {
    tester.apply(new PushDownFilters(), tester.analyzed("SELECT * FROM (SELECT i32 FROM t LIMIT 3) q WHERE i32 > 3")).doesNotFire();
    tester.apply(new PushDownFilters(), tester.analyzed("SELECT * FROM (SELECT i32 + 1 AS k FROM t) q WHERE k > random()"))
        .doesNotFire();
    tester.apply(new PushDownFilters(), tester.analyzed("SELECT i32 FROM t WHERE i32 > 3")).doesNotFire();
    // the NULL-padded side of a LEFT join keeps a filter that accepts NULLs above the join
    tester.apply(new PushDownFilters(), tester.analyzed("SELECT * FROM t LEFT JOIN bools ON bools.x = t.b WHERE y IS NULL"))
        .doesNotFire();
  }
}
