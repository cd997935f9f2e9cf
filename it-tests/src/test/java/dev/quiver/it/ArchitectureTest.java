package dev.quiver.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
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

  /** The planner's API: its top-level package, the profile records and the statement vocabulary; nothing of plans, rules, kernels. */
  static final java.util.Set<String> PLANNER_API_TYPES = java.util.Set.of("dev.quiver.planner.sql.Statement",
      "dev.quiver.planner.sql.StatementClassifier", "dev.quiver.planner.sql.SqlLimits",
      "dev.quiver.planner.sql.FunctionCatalog", "dev.quiver.planner.types.SqlTypes");

  @Test
  void theServerUsesOnlyThePlannersApi() {
    DescribedPredicate<JavaClass> internals = new DescribedPredicate<>("planner internals (not its API)") {
      @Override
      public boolean test(JavaClass c) {
        String name = c.getName();
        if (!name.startsWith("dev.quiver.planner.")) return false;
        if (c.getPackageName().equals("dev.quiver.planner")) return false;
        if (c.getPackageName().equals("dev.quiver.planner.profile")) return false; // the console's profile records
        String outer = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
        return !PLANNER_API_TYPES.contains(outer);
      }
    };
    noClasses().that().resideInAPackage("dev.quiver.server..").should().dependOnClassesThat(internals).check(QUIVER);
  }
}
