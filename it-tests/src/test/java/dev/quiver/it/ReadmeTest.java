package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.sample.SampleData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's examples, run as a reader would run them against the bundled sample data, so that they cannot go
 * stale: every SQL block and every statement in a Python example runs; the pyarrow example runs for real under
 * {@code python3}; the EXPLAIN ANALYZE example's plan is the plan the shell prints today (times aside); the error
 * shown is the error given; and every relative link of the README and of {@code docs/} leads to a file and heading
 * that exist.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadmeTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
  private TestServer server;
  private String readme;

  @TempDir
  Path dir;

  @BeforeAll
  void start() throws Exception {
    readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    server = TestServer.start(SampleData.ensure());
  }

  @AfterAll
  void stop() throws Exception {
    if (server != null) server.close();
  }

  /** The fenced blocks of {@code markdown} whose info string is {@code info} (their text). */
  static List<String> blocks(String markdown, String info) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^```" + Pattern.quote(info) + "\\n(.*?)^```$", Pattern.DOTALL).matcher(markdown);
    while (m.find()) out.add(m.group(1));
    return out;
  }

  /** The double-quoted string literals of a Python example that hold SQL (start with SELECT, SHOW, …). */
  static List<String> pythonSql(String python) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("\"((?:SELECT|SHOW|DESCRIBE|WITH|EXPLAIN)\\b[^\"]*)\"").matcher(python);
    while (m.find()) out.add(m.group(1));
    return out;
  }

  @Test
  void everySqlExampleRuns() throws Exception {
    List<String> statements = new ArrayList<>();
    for (String block : blocks(readme, "sql")) {
      for (String s : block.split(";")) if (!s.isBlank()) statements.add(s.strip());
    }
    for (String block : blocks(readme, "python")) statements.addAll(pythonSql(block));
    assertThat(statements).hasSizeGreaterThanOrEqualTo(6);
    try (Connection c = server.jdbc()) {
      for (String sql : statements) {
        assertThat(TestServer.rows(c, sql)).as(sql).isNotEmpty();
      }
    }
  }

  @Test
  void thePyarrowExampleRunsUnderPython() throws Exception {
    String example = blocks(readme, "python").stream().filter(b -> b.contains("pyarrow.flight")).findFirst().orElseThrow();
    String sql = pythonSql(example).get(0);
    Path script = dir.resolve("example.py");
    Files.writeString(script, example.replace("127.0.0.1:31337", "127.0.0.1:" + server.port()));
    Process p = new ProcessBuilder("python3", script.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as("python3 example.py (needs pyarrow: python3 -m pip install pyarrow)\n" + out).isZero();
    // what it prints is the query's answer: every group JDBC returns, and the table's columns
    assertThat(out).startsWith("pyarrow.Table").contains("l_returnflag: string").contains("qty: decimal128");
    try (Connection c = server.jdbc()) {
      List<List<Object>> rows = TestServer.rows(c, sql);
      assertThat(rows).hasSize(4);
      for (List<Object> row : rows) assertThat(out).contains("\"" + row.get(0) + "\"");
    }
  }

  @Test
  void theExplainAnalyzeExampleIsWhatTheShellPrints() throws Exception {
    Matcher command = Pattern.compile("java -jar server/target/quiver-server\\.jar sql --outputformat=tsv -e \"([^\"]+)\"")
        .matcher(readme);
    assertThat(command.find()).as("the README's EXPLAIN ANALYZE command").isTrue();
    String sql = command.group(1);
    String shown = blocks(readme, "text").stream().filter(b -> b.contains("ParquetScanExec")).findFirst().orElseThrow();
    Path log = dir.resolve("shell.log");
    Process p = CommandLineTest.main(log, "sql", "--port", String.valueOf(server.port()), "--outputformat=tsv", "-e", sql);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    List<String> printed = CommandLineTest.lines(log);
    assertThat(p.exitValue()).as(String.join("\n", printed)).isZero();
    List<String> plan = new ArrayList<>();
    for (String line : printed.subList(1, printed.size())) plan.add(line.replaceAll("^\"|\"$", "")); // tsv quotes
    assertThat(withoutTimes(plan)).isEqualTo(withoutTimes(shown.lines().toList()));
  }

  private static List<String> withoutTimes(List<String> lines) {
    return lines.stream().map(l -> l.replaceAll("(elapsed_ms|planning_ms)=[0-9.]+", "$1=…")).toList();
  }

  @Test
  void theErrorShownIsTheErrorGiven() throws Exception {
    Matcher m = Pattern.compile("`(SELECT [^`]+)` fails with `([^`]+)`").matcher(readme.replace("\n", " "));
    assertThat(m.find()).isTrue();
    String sql = m.group(1);
    String message = m.group(2);
    try (Connection c = server.jdbc()) {
      assertThatThrownBy(() -> TestServer.rows(c, sql)).isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(e.getMessage()).contains(message));
    }
  }

  @Test
  void theBannerAndTheJdbcUrlAreTheServers() {
    String url = server.jdbcUrl().replace(":" + server.port() + "/", ":31337/");
    assertThat(readme).contains("JDBC URL: " + url).contains("`" + url + "`");
  }

  @Test
  void everyRelativeLinkLeadsToAFileAndHeading() throws Exception {
    List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    int checked = 0;
    for (Path page : pages) {
      String text = Files.readString(page, StandardCharsets.UTF_8);
      Matcher m = link.matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z]+:.*")) continue; // https:, mailto:
        String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        assertThat(resolved).as(page.getFileName() + " links to " + target).exists();
        if (target.contains("#")) {
          assertThat(anchors(Files.readString(resolved, StandardCharsets.UTF_8)))
              .as(page.getFileName() + " links to " + target).contains(target.substring(target.indexOf('#') + 1));
        }
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(10);
  }

  /** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
  static Set<String> anchors(String markdown) {
    Set<String> out = new TreeSet<>();
    boolean fence = false;
    for (String line : markdown.lines().toList()) {
      if (line.startsWith("```")) fence = !fence;
      if (fence || !line.startsWith("#")) continue;
      String title = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
      out.add(title.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
    }
    return out;
  }
}
