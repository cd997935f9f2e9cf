package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.it.SqlLogicRunner.Outcome;
import dev.quiver.it.SqlLogicRunner.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite's sqllogictest corpus (select1–5 and the evidence files, in {@code src/test/resources/sqllogictest/})
 * through a real server: see {@link SqlLogicRunner}. A wrong answer fails the test. Every query Quiver cannot answer
 * is listed, with its Flight status and the first line of the message, in {@code expected-failures.tsv}; the test
 * fails when the actual list differs from it in either direction (a new failure, or a query that now passes). After a
 * change that is meant to alter the list, regenerate it and review the diff:
 * <pre>
 * mvn -B -pl it-tests -am verify -Dtest=SqlLogicTest -Dsurefire.failIfNoSpecifiedTests=false -Dquiver.sltUpdate=true
 * </pre>
 */
class SqlLogicTest {
  static final Path DIR = Path.of("src/test/resources/sqllogictest");
  static final Path EXPECTED = DIR.resolve("expected-failures.tsv");
  static final Path SELF_TEST = Path.of("src/test/resources/sqllogictest-selftest/runner.test");
  static final String HEADER = """
      # Queries of the sqllogictest corpus (this directory) that Quiver cannot answer: file, line of the record,
      # Flight status, first line of the message (tab-separated). SqlLogicTest fails when this list differs from
      # the actual one, in either direction; wrong answers are never listed (they fail the test outright).
      # Regenerate (then review the diff):
      #   mvn -B -pl it-tests -am verify -Dtest=SqlLogicTest -Dsurefire.failIfNoSpecifiedTests=false -Dquiver.sltUpdate=true
      """;

  static List<String> corpus() throws IOException {
    List<String> files = new ArrayList<>();
    for (Path dir : List.of(DIR, DIR.resolve("evidence"))) {
      try (Stream<Path> s = Files.list(dir)) {
        s.filter(p -> p.toString().endsWith(".test")).map(p -> DIR.relativize(p).toString().replace('\\', '/'))
            .sorted().forEach(files::add);
      }
    }
    return files;
  }

  @Test
  void corpusMatchesExpectedFailures(@TempDir Path work) throws Exception {
    // -Dquiver.sltFiles=select5.test,evidence/in1.test runs only those (no comparison with the expectation file)
    String only = System.getProperty("quiver.sltFiles", "");
    List<String> files = only.isEmpty() ? corpus() : List.of(only.split(","));
    assertThat(files).hasSizeGreaterThanOrEqualTo(only.isEmpty() ? 17 : 1);
    long start = System.nanoTime();
    List<Result> results = new ArrayList<>();
    int serverStarts;
    int ignored;
    List<String> notes;
    try (SqlLogicRunner runner = new SqlLogicRunner(work)) {
      for (String f : files) {
        long t0 = System.nanoTime();
        List<Result> r = runner.run(f, Files.readAllLines(DIR.resolve(f), StandardCharsets.UTF_8));
        System.out.printf("%s: %d queries in %.1f s%n", f, r.size(), (System.nanoTime() - t0) / 1e9);
        results.addAll(r);
      }
      serverStarts = runner.serverStarts;
      ignored = runner.ignoredStatements;
      notes = runner.referenceNotes;
    }
    double seconds = (System.nanoTime() - start) / 1e9;

    List<Result> wrong = results.stream().filter(r -> r.outcome() == Outcome.WRONG).toList();
    List<Result> errors = results.stream().filter(r -> r.outcome() == Outcome.ERROR).toList();
    Map<String, Integer> byReason = new TreeMap<>();
    for (Result r : errors) byReason.merge(reason(r.detail()), 1, Integer::sum);
    StringBuilder summary = new StringBuilder(String.format(
        "sqllogictest: %d files, %d queries in %.1f s (%d server starts): %d pass, %d unsupported, %d wrong%n",
        files.size(), results.size(), seconds, serverStarts, results.size() - errors.size() - wrong.size(),
        errors.size(), wrong.size()));
    byReason.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue())
        .forEach(e -> summary.append(String.format("  %5d  %s%n", e.getValue(), e.getKey())));
    summary.append("  reference engine (DuckDB): ").append(ignored).append(" trigger/index statements ignored");
    notes.forEach(n -> summary.append("\n  ").append(n));
    summary.append("\n  slowest:");
    results.stream().sorted((a, b) -> Long.compare(b.millis(), a.millis())).limit(5)
        .forEach(r -> summary.append(" ").append(r.file()).append(':').append(r.line()).append(' ').append(r.millis())
            .append(" ms"));
    System.out.println(summary);

    assertThat(notes).as("statements the reference engine did not run as SQLite does").isEmpty();
    List<String> actual = errors.stream().map(Result::expectationLine).toList();
    if (!only.isEmpty()) {
      assertThat(wrong).as("wrong answers").isEmpty();
      return;
    }
    if (Boolean.getBoolean("quiver.sltUpdate")) {
      Files.writeString(EXPECTED, HEADER + String.join("\n", actual) + "\n", StandardCharsets.UTF_8);
    }
    assertThat(wrong).as("wrong answers (never allowed):\n" + String.join("\n\n",
        wrong.stream().map(r -> r.file() + ":" + r.line() + "\n" + r.detail()).toList())).isEmpty();
    assertThat(diff(expectedFailures(), actual)).as("changes against " + EXPECTED
        + " ('+' a new failure, '-' no longer fails so; regenerate with -Dquiver.sltUpdate=true)").isEmpty();
  }

  /** The runner can fail: a wrong value, a wrong hash, a wrong row order and a SELECT that should error are caught. */
  @Test
  void runnerDetectsWrongAnswers(@TempDir Path work) throws Exception {
    List<Result> results;
    try (SqlLogicRunner runner = new SqlLogicRunner(work)) {
      results = runner.run("runner.test", Files.readAllLines(SELF_TEST, StandardCharsets.UTF_8));
    }
    Map<Integer, Outcome> byLine = new TreeMap<>();
    for (Result r : results) byLine.put(r.line(), r.outcome());
    // the lines of the query records in runner.test, and what each must give
    assertThat(byLine).isEqualTo(Map.ofEntries(
        Map.entry(12, Outcome.PASS),
        Map.entry(26, Outcome.PASS),
        Map.entry(32, Outcome.WRONG),
        Map.entry(38, Outcome.WRONG),
        Map.entry(44, Outcome.WRONG),
        Map.entry(59, Outcome.PASS),
        Map.entry(63, Outcome.WRONG),
        Map.entry(67, Outcome.ERROR),
        Map.entry(76, Outcome.PASS)));
  }

  private static List<String> expectedFailures() throws IOException {
    if (!Files.exists(EXPECTED)) return List.of();
    return Files.readAllLines(EXPECTED, StandardCharsets.UTF_8).stream()
        .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
  }

  private static List<String> diff(List<String> expected, List<String> actual) {
    Set<String> e = new LinkedHashSet<>(expected);
    Set<String> a = new LinkedHashSet<>(actual);
    List<String> out = new ArrayList<>();
    for (String l : actual) if (!e.contains(l)) out.add("+ " + l);
    for (String l : expected) if (!a.contains(l)) out.add("- " + l);
    return out;
  }

  /** A failure's kind for the summary: the status and message with quoted text and numbers taken out. */
  static String reason(String detail) {
    String r = detail.replaceAll("'[^']*'", "'…'").replaceAll("\"[^\"]*\"", "\"…\"").replaceAll("\\d+", "N");
    return r.length() > 110 ? r.substring(0, 110) + "…" : r;
  }
}
