package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.SampleData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden files for Quiver-specific output ({@code src/test/resources/slt/*.slt}): EXPLAIN plans and
 * error messages, run through the JDBC driver against the sample data. A file is a list of records
 * separated by blank lines, in the format of the planner's in-process {@code .slt} files
 * ({@code planner/src/test/resources/slt}, {@code SltFilesTest}, which documents it):
 * <pre>
 * query [TYPES] [rowsort]    error                    statement ok        statement error [REGEX]
 * SELECT ...                 SELECT ...               SELECT ...          SELECT ...
 * ----                       ----
 * row | by | row             STATUS: message
 * </pre>
 * Rows print their values separated by {@code " | "}, in the order the server returns them ({@code rowsort}:
 * compared sorted). Errors show the Flight status here (the planner's files show Quiver's error code); the
 * column types of a {@code query} header are checked in-process only. With {@code -Dquiver.sltUpdate=true} the
 * expected parts are rewritten from the actual output (review the diff before committing it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SltTest {
  static final Path DIR = Path.of("src/test/resources/slt");
  TestServer server;
  Connection jdbc;

  @BeforeAll
  void start() throws Exception {
    server = TestServer.start(SampleData.ensure());
    jdbc = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    jdbc.close();
    server.close();
  }

  static Stream<String> files() throws IOException {
    try (Stream<Path> s = Files.list(DIR)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".slt")).sorted().toList().stream();
    }
  }

  record Record(String kind, String sql, List<String> expected) {
    boolean rowsort() {
      return List.of(kind.split("\\s+")).contains("rowsort");
    }
  }

  static List<Record> parse(List<String> lines) {
    List<Record> out = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      String l = lines.get(i).strip();
      if (l.isEmpty() || l.startsWith("#")) {
        i++;
        continue;
      }
      String kind = l;
      i++;
      StringBuilder sql = new StringBuilder();
      while (i < lines.size() && !lines.get(i).equals("----") && !lines.get(i).isBlank()) {
        sql.append(sql.length() == 0 ? "" : "\n").append(lines.get(i++));
      }
      List<String> expected = null; // statement records have none
      if (i < lines.size() && lines.get(i).equals("----")) {
        i++;
        expected = new ArrayList<>();
        while (i < lines.size() && !lines.get(i).isEmpty()) expected.add(lines.get(i++));
      }
      out.add(new Record(kind, sql.toString(), expected));
    }
    return out;
  }

  List<String> actual(Record r) {
    try {
      List<String> rows = new ArrayList<>();
      for (List<Object> row : TestServer.rows(jdbc, r.sql())) {
        List<String> v = new ArrayList<>();
        for (Object o : row) v.add(String.valueOf(o));
        rows.add(String.join(" | ", v));
      }
      return rows;
    } catch (SQLException e) {
      String message = null;
      for (Throwable t = e; t != null; t = t.getCause()) {
        // the driver's (shaded) FlightRuntimeException prints as "<class>: STATUS: message"
        String s = t.toString();
        if (t.getClass().getName().endsWith("FlightRuntimeException")) message = s.substring(s.indexOf(": ") + 2);
      }
      return List.of(message == null ? "ERROR " + e : message.lines().findFirst().orElse(""));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void golden(String file) throws IOException {
    Path path = DIR.resolve(file);
    List<Record> records = parse(Files.readAllLines(path, StandardCharsets.UTF_8));
    assertThat(records).as("records in " + file).isNotEmpty();
    boolean update = Boolean.getBoolean("quiver.sltUpdate");
    StringBuilder rewritten = new StringBuilder();
    List<String> failures = new ArrayList<>();
    for (Record r : records) {
      List<String> got = actual(r);
      boolean failed = got.size() == 1 && got.get(0).matches("^[A-Z_]+: .*");
      if (r.expected() == null) { // statement ok / statement error [regex]
        String regex = r.kind().replaceFirst("^statement (ok|error)\\s*", "");
        boolean ok = r.kind().startsWith("statement ok") ? !failed
            : failed && (regex.isEmpty() || java.util.regex.Pattern.compile(regex).matcher(got.get(0)).find());
        if (!ok) failures.add(r.sql() + "\n  " + r.kind() + ", got: " + String.join("\n            ", got));
        rewritten.append(r.kind()).append('\n').append(r.sql()).append("\n\n");
        continue;
      }
      if (r.kind().equals("error") && !failed) {
        got = List.of("expected an error, got rows");
      }
      if (r.rowsort()) got = got.stream().sorted().toList();
      List<String> expected = r.rowsort() ? r.expected().stream().sorted().toList() : r.expected();
      if (!got.equals(expected)) {
        failures.add(r.sql() + "\n  expected: " + String.join("\n            ", expected)
            + "\n  actual:   " + String.join("\n            ", got));
      }
      rewritten.append(r.kind()).append('\n').append(r.sql()).append("\n----\n");
      for (String g : got) rewritten.append(g).append('\n');
      rewritten.append('\n');
    }
    if (update) {
      Files.writeString(path, rewritten.toString().stripTrailing() + "\n", StandardCharsets.UTF_8);
      return;
    }
    assertThat(failures).as(file).isEmpty();
  }
}
