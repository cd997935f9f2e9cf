package dev.quiver.common;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** common's own rule, checked in its own build: the shared vocabulary depends on Arrow and the JDK only. */
class ArchitectureTest {
  static final JavaClasses COMMON = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.quiver.common");

  @Test
  void dependsOnArrowAndTheJdkOnly() {
    noClasses().that().resideInAPackage("dev.quiver.common..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.quiver.scan..", "dev.quiver.planner..",
            "dev.quiver.server..", "org.apache.parquet..", "org.apache.hadoop..", "net.sf.jsqlparser..",
            "org.apache.arrow.flight..")
        .check(COMMON);
  }
}
