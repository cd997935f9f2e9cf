package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.quiver.sample.SampleData;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser: Debian's headless {@code chromium} driven through {@code chromedriver} against
 * a real server with the console on a free port. One browser for the whole class; a second server with users for
 * the login tests. Without chromium the tests fail (they never skip): run {@code .ci/run}, or
 * {@code apt-get install chromium chromium-driver}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserTest {
  static final String PRUNING = "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1992-03-01'";
  static final String CHROMIUM = System.getProperty("quiver.chromium", "/usr/bin/chromium");
  static final String CHROMEDRIVER = System.getProperty("quiver.chromedriver", "/usr/bin/chromedriver");
  static final Duration WAIT = Duration.ofSeconds(60);

  TestServer server;
  TestServer secured;
  ChromeDriver driver;

  @BeforeAll
  void start() throws Exception {
    if (!new File(CHROMIUM).canExecute() || !new File(CHROMEDRIVER).canExecute()) {
      fail("the console's browser tests need Debian's chromium and chromedriver (" + CHROMIUM + ", " + CHROMEDRIVER
          + "): run .ci/run, or apt-get install -y chromium chromium-driver");
    }
    Path data = SampleData.ensure();
    server = TestServer.startWithConsole(data);
    secured = TestServer.start(dev.quiver.server.ServerConfig.of(data.toString(), "127.0.0.1", 0)
        .withUsers(dev.quiver.server.Users.none().with("alice", "s3cret")).withConsole("127.0.0.1", 0));
    // the driver path given explicitly, so Selenium Manager never tries to download one
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
        .usingAnyFreePort().build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
        "--hide-scrollbars", "--force-device-scale-factor=1");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    driver = new ChromeDriver(service, options);
    driver.manage().timeouts().scriptTimeout(WAIT);
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (driver != null) driver.quit();
    } finally {
      try {
        if (server != null) server.close();
      } finally {
        if (secured != null) secured.close();
      }
    }
  }

  @BeforeEach
  void freshPage() {
    driver.get(server.consoleUrl());
    waitFor(d -> !d.findElement(By.id("samples")).findElements(By.tagName("option")).isEmpty()
        && d.findElement(By.id("samples")).findElements(By.tagName("option")).size() > 1);
    browserLog(); // drop what earlier pages logged
  }

  // ---- helpers ---------------------------------------------------------------------------------------------------

  private <T> T waitFor(java.util.function.Function<org.openqa.selenium.WebDriver, T> condition) {
    return new WebDriverWait(driver, WAIT).until(condition);
  }

  private WebElement byId(String id) {
    return driver.findElement(By.id(id));
  }

  private void setSql(String sql) {
    ((JavascriptExecutor) driver).executeScript(
        "const t = document.getElementById('sql'); t.value = arguments[0]; t.dispatchEvent(new Event('input'));", sql);
  }

  /** Runs {@code sql} in the page and waits until it answered (rows or an error). */
  private void runInPage(String sql) {
    setSql(sql);
    byId("run").click();
    waitFor(d -> byId("run").isEnabled() && (byId("error").isDisplayed() || !byId("results").getText().isEmpty()));
  }

  /** A screenshot in it-tests/target, for a person to look at. */
  private void shot(String name) {
    try {
      Files.createDirectories(Paths.get("target"));
      Files.write(Paths.get("target", name), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private List<LogEntry> browserLog() {
    return driver.manage().logs().get(LogType.BROWSER).getAll();
  }

  private void assertNoAlert() {
    try {
      driver.switchTo().alert();
      fail("an alert opened: injected script ran");
    } catch (NoAlertPresentException expected) {
      // good
    }
  }

  private static Matcher lineColumn(String message) {
    Matcher m = Pattern.compile("(\\d+):(\\d+)").matcher(message);
    if (!m.find()) fail("no line:column in " + message);
    return m;
  }

  // ---- the query page ----------------------------------------------------------------------------------------

  @Test
  void samplePruningQueryShowsCountPlanAndRowGroupMap() throws SQLException {
    long expected;
    try (Connection c = server.jdbc()) {
      expected = TestServer.scalarLong(c, PRUNING);
    }
    Select samples = new Select(byId("samples"));
    samples.selectContaining("l_shipdate < DATE '1992-03-01'");
    assertThat(byId("sql").getAttribute("value")).isEqualTo(PRUNING);
    byId("run").click();
    waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());

    // the results grid: one column, one row, the count JDBC gets
    List<WebElement> cells = driver.findElements(By.cssSelector("#results tbody td"));
    assertThat(cells).hasSize(1);
    assertThat(cells.get(0).getText()).isEqualTo(Long.toString(expected));
    assertThat(byId("status").getText()).contains("1 row");

    // the physical plan tree has the scan, with bars and the scan expanded
    List<WebElement> scans = driver.findElements(
        By.cssSelector("#plan [data-tree=physical] li[data-operator=ParquetScanExec]"));
    assertThat(scans).hasSize(1);
    WebElement scan = scans.get(0);
    assertThat(scan.findElements(By.cssSelector(".bar-rows"))).isNotEmpty();
    assertThat(scan.findElements(By.cssSelector(".bar-ms"))).isNotEmpty();
    assertThat(scan.findElement(By.cssSelector(".scan-detail code.pushed")).getText())
        .contains("l_shipdate < DATE '1992-03-01'");
    assertThat(driver.findElements(By.cssSelector("#plan [data-tree=logical] li"))).isNotEmpty();

    // the map: 10 row groups, 9 pruned by statistics, pages pruned in the tenth
    List<WebElement> rgs = driver.findElements(By.cssSelector("#rowgroup-map div.rg"));
    assertThat(rgs).hasSize(10);
    List<String> outcomes = rgs.stream().map(e -> e.getAttribute("data-outcome")).collect(Collectors.toList());
    assertThat(outcomes.stream().filter("PRUNED_STATISTICS"::equals).count()).isEqualTo(9);
    assertThat(outcomes.stream().filter("READ_PAGES_PRUNED"::equals).count()).isEqualTo(1);
    WebElement read = rgs.get(outcomes.indexOf("READ_PAGES_PRUNED"));
    assertThat(read.findElements(By.cssSelector(".shade"))).as("the pruned pages shaded").hasSize(1);
    // each outcome's colour comes from the stylesheet: pruned and read cells differ
    assertThat(rgs.get(outcomes.indexOf("PRUNED_STATISTICS")).getCssValue("background-color"))
        .isNotEqualTo(read.getCssValue("background-color")).isNotEqualTo("rgba(0, 0, 0, 0)");
  }

  @Test
  void theMapsKeyStatesAreColourBlindSafeAndNotToldByColourAlone() {
    runInPage(PRUNING);
    waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
    WebElement pruned = driver.findElement(By.cssSelector("#rowgroup-map div.rg[data-outcome=PRUNED_STATISTICS]"));
    WebElement read = driver.findElement(By.cssSelector("#rowgroup-map div.rg[data-outcome=READ_PAGES_PRUNED]"));
    // not the green / red pair a red-green colour-blind reader cannot tell apart: Okabe-Ito blue and orange
    for (WebElement cell : List.of(pruned, read)) {
      assertThat(cell.getCssValue("background-color")).isNotIn("rgba(18, 183, 106, 1)", "rgba(240, 68, 56, 1)",
          "rgba(247, 144, 9, 1)");
    }
    assertThat(pruned.getCssValue("background-color")).isEqualTo("rgba(0, 114, 178, 1)");
    assertThat(read.getCssValue("background-color")).isEqualTo("rgba(240, 192, 74, 1)");
    // and a pattern and a letter besides the colour: pruned cells are hatched and marked "S", read ones are solid
    assertThat(pruned.getCssValue("background-image")).contains("repeating-linear-gradient");
    assertThat(read.getCssValue("background-image")).isEqualTo("none");
    assertThat(pseudoContent(pruned)).isEqualTo("\"S\"");
    assertThat(pseudoContent(read)).isIn("none", "normal");
    // the legend draws each state as the map does
    WebElement legend = driver.findElement(By.cssSelector("#map-legend [data-outcome=PRUNED_STATISTICS] .swatch"));
    assertThat(legend.getCssValue("background-color")).isEqualTo(pruned.getCssValue("background-color"));
    assertThat(legend.getCssValue("background-image")).isEqualTo(pruned.getCssValue("background-image"));
    assertThat(pseudoContent(legend)).isEqualTo("\"S\"");
  }

  private String pseudoContent(WebElement e) {
    return (String) ((JavascriptExecutor) driver).executeScript(
        "return getComputedStyle(arguments[0], '::after').content;", e);
  }

  @Test
  void aSelectedCellsFactsShowInAVisiblePanel() throws SQLException {
    byId("oracle").click();
    runInPage(PRUNING);
    waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
    WebElement read = driver.findElement(By.cssSelector("#rowgroup-map div.rg[data-outcome=READ_PAGES_PRUNED]"));
    assertThat(read.getDomAttribute("title")).as("no tooltip: the facts are in the panel").isNull();
    assertThat(read.getAttribute("role")).isEqualTo("button");
    assertThat(read.getAttribute("aria-label")).contains("rows:");
    read.click();
    WebElement detail = byId("rg-detail");
    assertThat(detail.isDisplayed()).isTrue();
    assertThat(read.getAttribute("aria-pressed")).isEqualTo("true");
    long rows = Long.parseLong(read.getAttribute("data-rows"));
    assertThat(fact("rows")).isEqualTo(String.format(java.util.Locale.ROOT, "%,d", rows));
    assertThat(fact("row group")).isEqualTo(read.getAttribute("data-index"));
    assertThat(fact("file")).isEqualTo(read.getAttribute("data-file"));
    assertThat(fact("outcome")).isEqualTo("read, pages pruned (hatched part)");
    assertThat(fact("pages pruned")).matches("\\d+ of \\d+");
    assertThat(Long.parseLong(fact("rows read").replace(",", ""))).isBetween(1L, rows);
    assertThat(fact("oracle")).startsWith("3,651 rows match");
    WebElement stats = driver.findElement(By.cssSelector("#rg-detail-stats tr[data-column=l_shipdate]"));
    assertThat(stats.findElement(By.className("min")).getText()).matches("\\d{4}-\\d\\d-\\d\\d");
    assertThat(stats.findElement(By.className("max")).getText()).matches("\\d{4}-\\d\\d-\\d\\d");

    // keyboard: focusing a pruned cell shows its facts
    WebElement pruned = driver.findElement(By.cssSelector("#rowgroup-map div.rg[data-outcome=PRUNED_STATISTICS]"));
    ((JavascriptExecutor) driver).executeScript("arguments[0].focus();", pruned);
    waitFor(d -> "pruned by statistics (min/max)".equals(fact("outcome")));
    assertThat(fact("rows read")).startsWith("0");
    assertThat(fact("oracle")).startsWith("0 rows match");
    assertThat(fact("row group")).isEqualTo(pruned.getAttribute("data-index"));
  }

  private String fact(String name) {
    List<WebElement> dd = driver.findElements(By.cssSelector("#rg-detail dd[data-fact='" + name + "']"));
    return dd.isEmpty() ? null : dd.get(0).getText();
  }

  @Test
  void oracleMarksTheRowGroupsThatHoldAMatch() {
    byId("oracle").click();
    runInPage(PRUNING);
    waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
    List<WebElement> rgs = driver.findElements(By.cssSelector("#rowgroup-map div.rg"));
    // the statistics prove the 9 pruned groups hold no match, and the read group holds all 3,651 matching rows
    List<String> marks = rgs.stream().map(e -> e.getAttribute("data-oracle") + " " + e.getAttribute("data-outcome"))
        .sorted().collect(Collectors.toList());
    List<String> expected = new java.util.ArrayList<>(java.util.Collections.nCopies(9, "none PRUNED_STATISTICS"));
    expected.add(0, "match READ_PAGES_PRUNED");
    assertThat(marks).isEqualTo(expected);
  }

  @Test
  void badSqlIsMarkedAtTheLineAndColumnJdbcReports() {
    String sql = "SELECT l_orderkey\nFROM lineitem\nWHERE l_shipdat < DATE '1992-03-01'";
    String jdbcMessage;
    try (Connection c = server.jdbc()) {
      TestServer.rows(c, sql);
      throw new AssertionError("no error for " + sql);
    } catch (SQLException e) {
      jdbcMessage = e.getMessage();
    }
    Matcher expected = lineColumn(jdbcMessage);
    assertThat(expected.group(1)).isEqualTo("3");
    runInPage(sql);
    assertThat(byId("error").isDisplayed()).isTrue();
    assertThat(byId("error-message").getText()).contains("column l_shipdat does not exist");
    assertThat(byId("error-marker").getText()).isEqualTo(expected.group(1) + ":" + expected.group(2));
    // the editor selects that position and the gutter marks the line
    Number start = (Number) ((JavascriptExecutor) driver).executeScript("return document.getElementById('sql').selectionStart;");
    int offset = "SELECT l_orderkey\nFROM lineitem\n".length() + Integer.parseInt(expected.group(2)) - 1;
    assertThat(start.intValue()).isEqualTo(offset);
    assertThat(driver.findElement(By.cssSelector("#gutter .ln.err")).getText()).isEqualTo(expected.group(1));
  }

  @Test
  void aFailedQueryResetsEveryPanelAndSaysWhy() {
    runInPage(PRUNING);
    waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
    byId("compare").click();
    waitFor(d -> byId("compare-view").isDisplayed() && byId("run").isEnabled());
    driver.findElement(By.cssSelector("#rowgroup-map div.rg")).click();
    assertThat(driver.findElements(By.cssSelector("#rg-detail dd"))).isNotEmpty();

    runInPage("SELECT no_such_column FROM lineitem");
    assertThat(byId("error").isDisplayed()).isTrue();
    assertThat(byId("compare-view").isDisplayed()).as("the earlier comparison is gone").isFalse();
    assertThat(driver.findElements(By.cssSelector("#rowgroup-map div.rg"))).isEmpty();
    assertThat(driver.findElements(By.cssSelector("#plan li"))).isEmpty();
    assertThat(driver.findElements(By.cssSelector("#steps li"))).isEmpty();
    assertThat(driver.findElements(By.cssSelector("#rg-detail dd"))).isEmpty();
    for (String panel : List.of("#results caption", "#plan p", "#steps-empty", "#rowgroup-map p")) {
      WebElement e = driver.findElement(By.cssSelector(panel));
      assertThat(e.isDisplayed()).as(panel).isTrue();
      assertThat(e.getText()).as(panel).startsWith("The query failed").contains("no_such_column")
          .doesNotContain("Waiting");
      assertThat(e.getAttribute("class")).as(panel).contains("failed");
    }

    // a comparison that fails says so too, and the panels do not keep an earlier query's
    runInPage(PRUNING);
    waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
    setSql("SELECT count(*) FROM no_such_table");
    byId("compare").click();
    waitFor(d -> byId("run").isEnabled() && byId("error").isDisplayed());
    assertThat(byId("compare-failed").getText()).contains("no_such_table");
    assertThat(driver.findElements(By.cssSelector("#rowgroup-map div.rg"))).isEmpty();
    assertThat(byId("plan").getText()).startsWith("The comparison failed");
  }

  @Test
  void planBarsShowEachOperatorsOwnTimeBesideItsTotal() {
    new Select(byId("samples")).selectContaining("revenue by nation");
    byId("run").click();
    waitFor(d -> byId("run").isEnabled() && !byId("results").getText().isEmpty());
    @SuppressWarnings("unchecked")
    List<List<Object>> nodes = (List<List<Object>>) ((JavascriptExecutor) driver).executeScript(
        "return Array.from(document.querySelectorAll('#plan [data-tree=physical] li[data-operator]'), li => ["
            + "Number(li.dataset.ms), Number(li.dataset.selfMs), "
            + "Array.from(li.querySelectorAll(':scope > ul > li')).map(c => Number(c.dataset.ms)), "
            + "li.querySelector(':scope > .bars .bar-ms .bar-label').textContent]);");
    assertThat(nodes.size()).isGreaterThan(5);
    int parents = 0;
    for (List<Object> n : nodes) {
      double total = ((Number) n.get(0)).doubleValue();
      double self = ((Number) n.get(1)).doubleValue();
      double children = 0;
      for (Object c : (List<?>) n.get(2)) children += Math.max(0, ((Number) c).doubleValue());
      assertThat(self).as("self time never exceeds the total: " + n).isBetween(0.0, total);
      assertThat(self).as("self = total - children's totals: " + n).isCloseTo(Math.max(0, total - children),
          org.assertj.core.data.Offset.offset(1e-6));
      assertThat((String) n.get(3)).matches("self [0-9.]+ m?s · total [0-9.]+ m?s");
      if (children > 0) {
        parents++;
        assertThat(self).as("a parent's own time leaves out its children's: " + n).isLessThan(total);
      }
    }
    assertThat(parents).isGreaterThan(2);
  }

  @Test
  void cancelStopsALongQueryAndTheServerStillAnswers() throws SQLException {
    setSql("SELECT count(*) FROM orders a JOIN orders b ON a.o_orderstatus = b.o_orderstatus");
    byId("run").click();
    waitFor(d -> byId("cancel").isEnabled());
    // let it get deep into the join
    waitFor(d -> server.runningQueries() > 0);
    byId("cancel").click();
    waitFor(d -> byId("error").isDisplayed());
    assertThat(byId("error-message").getText()).contains("CANCELLED");
    assertThat(byId("status").getText()).isEqualTo("Cancelled.");
    waitFor(d -> server.runningQueries() == 0);
    runInPage("SELECT 41 + 1");
    assertThat(driver.findElement(By.cssSelector("#results tbody td")).getText()).isEqualTo("42");
  }

  @Test
  void simplifierStepsAndCompareView() throws Exception {
    Select samples = new Select(byId("samples"));
    samples.selectContaining("extract(year");
    byId("run").click();
    waitFor(d -> byId("run").isEnabled() && !byId("results").getText().isEmpty());
    List<WebElement> steps = driver.findElements(By.cssSelector("#steps li.step"));
    assertThat(steps).isNotEmpty();
    assertThat(steps.get(0).findElement(By.className("rule")).getText()).isNotBlank();
    assertThat(steps.get(steps.size() - 1).findElement(By.className("after")).getText()).contains("l_shipdate");

    byId("compare").click();
    waitFor(d -> byId("compare-view").isDisplayed() && byId("run").isEnabled());
    WebElement read = driver.findElement(By.cssSelector("#compare-view tr[data-metric=row_groups_read]"));
    String on = read.findElement(By.className("on")).getText();
    String off = read.findElement(By.className("off")).getText();
    java.nio.file.Files.write(Paths.get("target", "console-compare.png"),
        ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    long onRead = Long.parseLong(on.split(" ")[0].replace(",", ""));
    long offRead = Long.parseLong(off.split(" ")[0].replace(",", ""));
    assertThat(onRead).as("the simplifier makes the predicate pushable: fewer row groups read").isLessThan(offRead);
  }

  /** The map's cells as {@code [data-outcome, data-count, data-index, aria-label]} lists, in one round trip. */
  @SuppressWarnings("unchecked")
  private List<List<String>> mapCells() {
    return (List<List<String>>) ((JavascriptExecutor) driver).executeScript(
        "return Array.from(document.querySelectorAll('#rowgroup-map div.rg'), c => [c.getAttribute('data-outcome'), "
            + "c.getAttribute('data-count'), c.getAttribute('data-index'), c.getAttribute('aria-label')]);");
  }

  @Test
  void aLargeTablesMapAggregatesCellsAndZooms(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    // 21,000 rows in row groups of 10, sorted by l_shipdate: 2,100 row groups, the first ones hold 1992
    dev.quiver.sample.Lineitem.write(dir.resolve("lineitem.parquet"), 0.0035, dev.quiver.sample.Lineitem.Order.SHIPDATE,
        10, b -> b);
    String query = "SELECT count(*) FROM lineitem WHERE l_shipdate < DATE '1993-01-01'";
    try (TestServer big = TestServer.startWithConsole(dir)) {
      java.util.Map<String, Long> metrics;
      try (Connection c = big.jdbc()) {
        metrics = TestServer.scanMetrics(c, query);
      }
      long total = metrics.get("row_groups_total");
      long read = total - metrics.get("row_groups_pruned");
      assertThat(total).isGreaterThan(2000);
      assertThat(read).isBetween(1L, 1999L);

      driver.get(big.consoleUrl());
      waitFor(d -> byId("samples").findElements(By.tagName("option")).size() > 1);
      runInPage(query);
      waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
      List<List<String>> cells = mapCells();
      assertThat(cells.size()).isLessThanOrEqualTo(2000).isGreaterThan(100);
      assertThat(cells.stream().mapToLong(c -> Long.parseLong(c.get(1))).sum()).as("aggregate cells cover every row group")
          .isEqualTo(total);
      assertThat(cells.get(0).get(3)).contains("row groups:").contains("read");
      assertThat(byId("map-zoom").isDisplayed()).isTrue();

      // zoomed in to one row group per cell: a window of 2,000 cells, the read ones first (sorted by l_shipdate)
      new org.openqa.selenium.support.ui.Select(byId("map-zoom")).selectByValue("1");
      cells = mapCells();
      assertThat(cells).hasSize(2000);
      assertThat(cells.stream().filter(c -> !c.get(0).startsWith("PRUNED")).count()).isEqualTo(read);
      assertThat(cells.get(0).get(1)).isNull();
      assertThat(cells.get(0).get(2)).isEqualTo("0");
      // the window slid to the end shows the last row group
      ((JavascriptExecutor) driver).executeScript("const w = document.getElementById('map-window'); "
          + "w.value = w.max; w.dispatchEvent(new Event('input'));");
      cells = mapCells();
      assertThat(cells).hasSize(2000);
      assertThat(cells.get(cells.size() - 1).get(2)).isEqualTo(Long.toString(total - 1));
      assertThat(cells.stream().filter(c -> !c.get(0).startsWith("PRUNED")).count())
          .isEqualTo(Math.max(0, read - (total - 2000)));
    }
  }

  // ---- the user's own data -------------------------------------------------------------------------------------

  /** The sample queries of the page now, as [text, sql]. */
  private List<String[]> pageSamples() {
    return byId("samples").findElements(By.tagName("option")).stream().filter(o -> !o.getAttribute("value").isEmpty())
        .map(o -> new String[] {o.getText(), o.getAttribute("value")}).collect(Collectors.toList());
  }

  @Test
  void onTheUsersOwnFilesTheSamplesAndTheFirstQueryWorkAndWhatIsNotServedIsNamed(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    // a newcomer's directory: a table whose name needs quotes, sorted by id in row groups of 2,048, with a LIST column;
    // a CSV, notes and a file named .parquet that is not Parquet
    try (Connection duck = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement st = duck.createStatement()) {
      st.execute("COPY (SELECT i AS id, DATE '2024-01-01' + (i % 365)::INTEGER AS day, "
          + "['a', 'b', 'c'][1 + i % 3] AS kind, [i, i + 1] AS tags FROM range(20480) t(i) ORDER BY i) TO '"
          + dir.resolve("my.data.parquet") + "' (FORMAT parquet, ROW_GROUP_SIZE 2048)");
    }
    Files.writeString(dir.resolve("notes.txt"), "hello\n");
    Files.writeString(dir.resolve("data.csv"), "a,b\n1,2\n");
    Files.writeString(dir.resolve("fake.parquet"), "not parquet at all\n");
    try (TestServer own = TestServer.startWithConsole(dir)) {
      driver.get(own.consoleUrl());
      waitFor(d -> byId("samples").findElements(By.tagName("option")).size() > 1);
      String first = byId("sql").getAttribute("value");
      assertThat(first).as("the pre-filled query names a table served here").contains("\"my.data\"")
          .doesNotContain("lineitem");
      List<String[]> samples = pageSamples();
      assertThat(samples).hasSizeGreaterThanOrEqualTo(4);
      for (String[] sample : samples) {
        assertThat(sample[1]).doesNotContain("lineitem").doesNotContain("events");
      }
      // the first Run works, then every sample
      byId("run").click();
      waitFor(d -> byId("run").isEnabled() && (byId("error").isDisplayed() || !byId("results").getText().isEmpty()));
      assertThat(byId("error").isDisplayed()).as(byId("error").getText()).isFalse();
      for (String[] sample : samples) {
        runInPage(sample[1]);
        assertThat(byId("error").isDisplayed()).as(sample[1] + ": " + byId("error").getText()).isFalse();
      }
      // the generated filter on the sorted column with its smallest value: statistics prune all row groups but one
      String[] pruning = samples.stream().filter(x -> x[0].startsWith("Pruning")).findFirst().orElseThrow();
      assertThat(pruning[1]).contains("WHERE id <= 0");
      runInPage(pruning[1]);
      waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
      assertThat(driver.findElement(By.cssSelector("#results tbody td")).getText()).isEqualTo("1");
      int cells = driver.findElements(By.cssSelector("#rowgroup-map div.rg")).size();
      assertThat(cells).as("row groups").isGreaterThan(2);
      assertThat(driver.findElements(By.cssSelector("#rowgroup-map div.rg[data-outcome=PRUNED_STATISTICS]")))
          .hasSize(cells - 1);
      // and the unsupported column's sample lists it with the reason
      runInPage(samples.stream().filter(x -> x[1].contains("UNSUPPORTED")).findFirst().orElseThrow()[1]);
      assertThat(byId("results").getText()).contains("tags").contains("nested type LIST");

      // the Tables page names what is not served, with the reason
      byId("tab-tables").click();
      waitFor(d -> !d.findElements(By.cssSelector("#unserved li")).isEmpty());
      assertThat(unserved("file", "notes.txt")).contains("not a *.parquet file");
      assertThat(unserved("file", "data.csv")).contains("not a *.parquet file");
      assertThat(unserved("table", "fake")).contains("cannot be read").contains("PAR1")
          .doesNotContain(dir.toAbsolutePath().toString()); // no path of the data directory, as for Flight clients
      assertThat(unserved("column", "my.data.tags")).contains("nested type LIST");
      assertThat(driver.findElements(By.cssSelector("#tables-list button[data-table='my.data']"))).hasSize(1);
      driver.findElement(By.cssSelector("#tables-list button[data-table='my.data']")).click();
      WebElement note = waitFor(ExpectedConditions.visibilityOfElementLocated(By.id("table-unsupported")));
      assertThat(note.getText()).contains("tags (nested type LIST)");
      shot("console-own-data.png");
    }
  }

  private String unserved(String kind, String name) {
    List<WebElement> li = driver.findElements(By.cssSelector("#unserved li[data-kind=" + kind + "][data-name='" + name + "']"));
    assertThat(li).as(kind + " " + name + " in " + byId("unserved").getText()).hasSize(1);
    return li.get(0).getText();
  }

  @Test
  void onAnEmptyDataDirectoryTheSamplesWork(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    try (TestServer empty = TestServer.startWithConsole(dir)) {
      driver.get(empty.consoleUrl());
      waitFor(d -> byId("samples").findElements(By.tagName("option")).size() > 1);
      assertThat(byId("sql").getAttribute("value")).isNotBlank().doesNotContain("lineitem");
      for (String[] sample : pageSamples()) {
        runInPage(sample[1]);
        assertThat(byId("error").isDisplayed()).as(sample[1] + ": " + byId("error").getText()).isFalse();
      }
      byId("tab-tables").click();
      waitFor(d -> !d.findElements(By.id("unserved-none")).isEmpty());
      assertThat(byId("tables-list").getText()).contains("No table is served");
    }
  }

  // ---- tables and benchmarks ----------------------------------------------------------------------------------

  @Test
  void tablesPageDescribesLineitem() {
    byId("tab-tables").click();
    WebElement link = waitFor(ExpectedConditions.elementToBeClickable(By.cssSelector("#tables-list button[data-table=lineitem]")));
    link.click();
    WebElement sorted = waitFor(ExpectedConditions.visibilityOfElementLocated(By.id("table-sorted")));
    assertThat(sorted.getAttribute("data-sorted-by").split(",")).contains("l_shipdate");
    assertThat(sorted.getText()).contains("sorted by").contains("l_shipdate");
    assertThat(driver.findElements(By.cssSelector("#table-columns tr[data-column=l_comment]"))).hasSize(1);
    assertThat(driver.findElements(By.cssSelector("#table-detail details.file"))).isNotEmpty();
    shot("console-tables.png");
  }

  @Test
  void benchmarksPageShowsTablesAndTheChart() {
    byId("tab-bench").click();
    waitFor(d -> !d.findElements(By.cssSelector("#bench-view table.md-table tbody tr")).isEmpty());
    waitFor(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#bench-view svg#bench-chart text")));
    assertThat(byId("bench-view").findElement(By.tagName("h2")).getText()).isEqualTo("Pruning");
    assertThat(driver.findElements(By.cssSelector("#bench-view script"))).isEmpty();
    // no label of the chart is cut: every text lies inside the drawing's view box, and on screen inside the chart
    @SuppressWarnings("unchecked")
    List<String> cut = (List<String>) ((JavascriptExecutor) driver).executeScript(
        "const svg = document.getElementById('bench-chart'); const vb = svg.viewBox.baseVal;"
            + "const box = svg.getBoundingClientRect(); const out = [];"
            + "for (const t of svg.querySelectorAll('text')) { const b = t.getBBox(); const r = t.getBoundingClientRect();"
            + "  if (b.width <= 0 || b.x < vb.x || b.x + b.width > vb.x + vb.width || b.y < vb.y"
            + "      || b.y + b.height > vb.y + vb.height || r.right > box.right + 0.5 || r.left < box.left - 0.5)"
            + "    out.push(t.textContent + ' ' + JSON.stringify([b.x, b.width, vb.x, vb.width, r.right, box.right])); }"
            + "return out;");
    assertThat(cut).isEmpty();
    assertThat(driver.findElements(By.cssSelector("#bench-chart text")).size()).isGreaterThan(10);
    shot("console-bench.png");

    // every page: a readable title, no file names, no development notes
    List<WebElement> items = driver.findElements(By.cssSelector("#bench-list .bench-item"));
    List<String> titles = items.stream().map(WebElement::getText).collect(Collectors.toList());
    assertThat(titles).contains("Pruning", "TPC-H", "IN lists").noneMatch(t -> t.matches(".*\\.(md|svg)$"));
    Pattern devNote = Pattern.compile("this branch|load average|\\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\\b");
    for (int i = 0; i < items.size(); i++) {
      WebElement item = driver.findElements(By.cssSelector("#bench-list .bench-item")).get(i);
      String name = item.getAttribute("data-name");
      item.click();
      waitFor(d -> name.equals(byId("bench-view").getAttribute("data-name"))
          && !d.findElements(By.cssSelector("#bench-view table.md-table")).isEmpty());
      String text = byId("bench-view").getText();
      assertThat(text).as(name).startsWith(titles.get(i));
      Matcher m = devNote.matcher(text);
      boolean found = m.find();
      assertThat(found).as(name + ": development note " + (found ? m.group() : "")).isFalse();
      assertThat(driver.findElements(By.cssSelector("#bench-view .bench-about"))).as(name).hasSize(1);
    }
  }

  // ---- the page itself ----------------------------------------------------------------------------------------

  @Test
  void pageRendersWithoutConsoleErrorsAndIsScreenshot() throws Exception {
    // every sample query runs and renders (a join's several scans, events' partitions)
    List<String> sampleSql = byId("samples").findElements(By.tagName("option")).stream()
        .map(o -> o.getAttribute("value")).filter(v -> !v.isEmpty()).collect(Collectors.toList());
    assertThat(sampleSql).hasSizeGreaterThanOrEqualTo(4);
    Files.createDirectories(Paths.get("target"));
    for (int i = 0; i < sampleSql.size(); i++) {
      String sql = sampleSql.get(i);
      runInPage(sql);
      assertThat(byId("error").isDisplayed()).as(sql + ": " + byId("error").getText()).isFalse();
      assertThat(driver.findElements(By.cssSelector("#plan li[data-operator]"))).as(sql).isNotEmpty();
      Files.write(Paths.get("target", "console-sample-" + (i + 1) + ".png"),
          ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    }
    new Select(byId("samples")).selectContaining("l_shipdate < DATE '1992-03-01'");
    byId("run").click();
    waitFor(d -> !d.findElements(By.cssSelector("#rowgroup-map div.rg")).isEmpty());
    byId("tab-tables").click();
    waitFor(d -> !d.findElements(By.cssSelector("#tables-list button")).isEmpty());
    byId("tab-bench").click();
    waitFor(d -> !d.findElements(By.cssSelector("#bench-view table")).isEmpty());
    byId("tab-query").click();
    List<String> problems = browserLog().stream().filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
        .map(LogEntry::toString).collect(Collectors.toList());
    assertThat(problems).as("browser console errors and warnings (CSP violations among them)").isEmpty();
    byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
    assertThat(png).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    Path out = Paths.get("target", "console-screenshot.png");
    Files.createDirectories(out.getParent());
    Files.write(out, png);
    System.out.println("console screenshot: " + out.toAbsolutePath() + " (" + png.length + " bytes)");
  }

  // ---- security -----------------------------------------------------------------------------------------------

  @Test
  void dataAndErrorMessagesRenderAsText() {
    String value = "<img src=x onerror=alert(1)>";
    String column = "<script>alert(2)</script>";
    runInPage("SELECT '" + value + "' AS \"" + column + "\"");
    assertThat(driver.findElement(By.cssSelector("#results tbody td")).getText()).isEqualTo(value);
    assertThat(driver.findElement(By.cssSelector("#results thead th span")).getText()).isEqualTo(column);
    assertThat(driver.findElements(By.cssSelector("#results img, #results script"))).isEmpty();

    runInPage("SELECT * FROM \"<img src=x onerror=alert(3)>\"");
    assertThat(byId("error-message").getText()).contains("<img src=x onerror=alert(3)>");
    assertThat(driver.findElements(By.cssSelector("#error img, #error script"))).isEmpty();
    assertThat(driver.findElements(By.cssSelector("img[src=x]"))).isEmpty();
    assertNoAlert();
  }

  @Test
  void withUsersNothingWithoutLogin() throws Exception {
    driver.get(secured.consoleUrl());
    WebElement login = waitFor(ExpectedConditions.visibilityOfElementLocated(By.id("login")));
    assertThat(login.isDisplayed()).isTrue();
    assertThat(byId("page-query").isDisplayed()).isFalse();
    assertThat(byId("samples").findElements(By.tagName("option"))).hasSize(1); // only the placeholder

    // the API refuses every data call without a token
    HttpClient http = HttpClient.newHttpClient();
    String page = http.send(HttpRequest.newBuilder(URI.create(secured.consoleUrl())).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher csrf = Pattern.compile("name=\"quiver-csrf\" content=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).isTrue();
    for (String[] call : new String[][] {{"POST", "api/query", "{\"sql\":\"SELECT 1\",\"queryId\":\"x\"}"},
        {"GET", "api/tables", null}, {"GET", "api/tables/lineitem", null}, {"GET", "api/bench", null}}) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(secured.consoleUrl() + call[1]))
          .header("X-Quiver-Csrf", csrf.group(1));
      b = call[2] == null ? b.GET() : b.header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(call[2]));
      assertThat(http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).as(call[1]).isEqualTo(401);
    }

    // a wrong password stays on the form; the right one opens the console, and queries run as that user
    byId("login-user").sendKeys("alice");
    byId("login-password").sendKeys("wrong");
    byId("login-button").click();
    waitFor(ExpectedConditions.visibilityOfElementLocated(By.id("login-error")));
    assertThat(byId("page-query").isDisplayed()).isFalse();
    byId("login-user").clear();
    byId("login-user").sendKeys("alice");
    byId("login-password").sendKeys("s3cret");
    byId("login-button").click();
    waitFor(ExpectedConditions.visibilityOfElementLocated(By.id("page-query")));
    assertThat(byId("login").isDisplayed()).isFalse();
    runInPage("SELECT 6 * 7");
    assertThat(driver.findElement(By.cssSelector("#results tbody td")).getText()).isEqualTo("42");
    ((JavascriptExecutor) driver).executeScript("sessionStorage.clear();");
  }

  /** A select's option whose text or value contains a string. */
  private static final class Select {
    private final WebElement select;

    Select(WebElement select) {
      this.select = select;
    }

    void selectContaining(String part) {
      for (WebElement o : select.findElements(By.tagName("option"))) {
        if (o.getAttribute("value").contains(part) || o.getText().contains(part)) {
          new org.openqa.selenium.support.ui.Select(select).selectByValue(o.getAttribute("value"));
          return;
        }
      }
      fail("no sample containing " + part);
    }
  }
}
