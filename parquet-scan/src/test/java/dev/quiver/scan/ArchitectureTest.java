package dev.quiver.scan;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** parquet-scan's own rules, checked in its own build: it knows nothing of SQL or of serving. */
class ArchitectureTest {
  static final JavaClasses SCAN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.quiver.scan");

  @Test
  void knowsNothingOfSqlOrServing() {
    noClasses().that().resideInAPackage("dev.quiver.scan..")
        .should().dependOnClassesThat().resideInAnyPackage("net.sf.jsqlparser..", "org.apache.arrow.flight..",
            "dev.quiver.planner..", "dev.quiver.server..")
        .check(SCAN);
  }

  @Test
  void thePredicateLanguageStandsOnItsOwn() {
    // ScanPredicate is the contract the planner translates into: it must not reach into how files are read
    noClasses().that().resideInAPackage("dev.quiver.scan.predicate..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.quiver.scan.read..", "dev.quiver.scan.prune..",
            "dev.quiver.scan.table..", "org.apache.parquet..", "org.apache.hadoop..")
        .check(SCAN);
  }
}
