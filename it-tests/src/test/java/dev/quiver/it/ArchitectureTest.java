package dev.quiver.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The module directions of DESIGN.md: arrows only point down, across modules. The rules inside one module run in
 * that module's own build ({@code dev.quiver.scan.ArchitectureTest}, {@code dev.quiver.planner.ArchitectureTest}).
 */
class ArchitectureTest {
  static final JavaClasses QUIVER = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      // planner's test-jar (the SQL fuzzer the server-level fuzz test shares) is tests too
      .withImportOption(location -> !location.contains("-tests.jar"))
      .importPackages("dev.quiver");

  @Test
  void parquetScanKnowsNothingOfSqlOrServing() {
    noClasses().that().resideInAPackage("dev.quiver.scan..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.quiver.planner..", "dev.quiver.server..",
            "dev.quiver.sample..", "net.sf.jsqlparser..", "org.apache.arrow.flight..")
        .check(QUIVER);
  }

  @Test
  void plannerDoesNotServe() {
    noClasses().that().resideInAPackage("dev.quiver.planner..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.quiver.server..", "dev.quiver.sample..",
            "org.apache.arrow.flight..")
        .check(QUIVER);
  }

  @Test
  void sampleDataStandsAlone() {
    noClasses().that().resideInAPackage("dev.quiver.sample..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.quiver.scan..", "dev.quiver.planner..",
            "dev.quiver.server..")
        .check(QUIVER);
  }

  @Test
  void onlyTheServerTouchesFlight() {
    noClasses().that().resideOutsideOfPackage("dev.quiver.server..")
        .should().dependOnClassesThat().resideInAPackage("org.apache.arrow.flight..")
        .check(QUIVER);
  }
}
