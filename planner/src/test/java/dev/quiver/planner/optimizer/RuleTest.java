package dev.quiver.planner.optimizer;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The fixture of plan-rule tests: one {@link RuleTester} over {@code TestTables} per test class. */
abstract class RuleTest {
  static final String SCAN_T = "TableScan: t projection=[i8, i32, i64, f64, dec, s, d, b]";
  static final String SCAN_BOOLS = "TableScan: bools projection=[x, y]";

  @TempDir
  static Path tables;
  static RuleTester tester;

  @BeforeAll
  static void setUpTester() throws IOException {
    tester = new RuleTester(tables);
  }

  @AfterAll
  static void closeTester() {
    tester.close(); // fails if planning leaked a buffer
  }
}
