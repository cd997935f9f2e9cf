package dev.quiver.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Names outside the console's folders are refused before the class loader sees them. Here the class path is a
 * directory ({@code target/classes}), where {@code console/../simplelogger.properties} would be found (in the
 * server jar a dot segment finds nothing anyway, so the end-to-end test cannot tell).
 */
class StaticFilesTest {
  @Test
  void onlyPlainNamesAreServed() throws Exception {
    assertThat(StaticFiles.class.getClassLoader().getResource("console/../simplelogger.properties"))
        .as("the class loader itself resolves dot segments here").isNotNull();
    for (String name : new String[] {"../simplelogger.properties", "..", ".", "", "/etc/passwd", "a/b", "a\\b",
        ".hidden", "%2e%2e", "..%2fsimplelogger.properties", "index.html\u0000", "x".repeat(200)}) {
      assertThat(StaticFiles.plainName(name)).as(name).isFalse();
      assertThat(StaticFiles.read(StaticFiles.PAGE, name)).as(name).isNull();
    }
    assertThat(StaticFiles.read(StaticFiles.PAGE, "index.html")).isNotNull();
    assertThat(StaticFiles.plainName("console.js")).isTrue();
  }

  @Test
  void theBenchmarkResultsAreListed() throws Exception {
    assertThat(StaticFiles.benchNames()).contains("pruning.md", "pruning.svg").allMatch(StaticFiles::plainName);
  }
}
