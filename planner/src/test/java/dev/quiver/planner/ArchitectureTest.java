package dev.quiver.planner;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The planner's own rules, checked in its own build: its layers point down and it does not serve. */
class ArchitectureTest {
  static final JavaClasses PLANNER = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.quiver.planner");

  @Test
  void layersPointDown() {
    noClasses().that().resideInAnyPackage("dev.quiver.planner.kernel..", "dev.quiver.planner.expr..",
            "dev.quiver.planner.types..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.quiver.planner.sql..", "dev.quiver.planner.optimizer..",
            "dev.quiver.planner.exec..")
        .check(PLANNER);
  }

  @Test
  void plansRulesAndOperatorsSeeTablesOnlyAsTableSources() {
    // Parquet is one TableSource: plans, rules and operators never reach the files' catalog, so they run in memory too
    noClasses().that().resideInAnyPackage("dev.quiver.planner.plan..", "dev.quiver.planner.optimizer..",
            "dev.quiver.planner.exec..")
        .should().dependOnClassesThat().resideInAPackage("dev.quiver.scan.table..")
        .check(PLANNER);
  }

  @Test
  void doesNotServe() {
    noClasses().that().resideInAPackage("dev.quiver.planner..")
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.arrow.flight..", "dev.quiver.server..")
        .check(PLANNER);
  }

  @Test
  void onlyTheFrontEndParsesSql() {
    // JSqlParser's tree stops at the analyzer: plans, rules and operators see only Quiver's own IR
    noClasses().that().resideOutsideOfPackage("dev.quiver.planner.sql..")
        .should().dependOnClassesThat().resideInAPackage("net.sf.jsqlparser..")
        .check(PLANNER);
  }
}
