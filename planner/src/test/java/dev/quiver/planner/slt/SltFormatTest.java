package dev.quiver.planner.slt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The .slt format itself: records, comparison rules, and that a wrong expectation is caught. */
class SltFormatTest {
  static final List<String> TEXT = List.of(
      "# a comment", "query IT rowsort", "SELECT 1,", "  'a'", "----", "1 | a", "", "error", "SELECT x", "----",
      "NOT_FOUND: no x", "", "statement ok", "SELECT 1", "", "statement error ^NOT_FOUND", "SELECT x");

  @Test
  void parsesRecordsWithTheirLinesAndExpectedSections() {
    List<SltFilesTest.Record> r = SltFilesTest.parse("f.slt", TEXT);
    assertThat(r).extracting(SltFilesTest.Record::kind)
        .containsExactly("query IT rowsort", "error", "statement ok", "statement error ^NOT_FOUND");
    assertThat(r).extracting(SltFilesTest.Record::line).containsExactly(2, 8, 13, 16);
    assertThat(r.get(0).sql()).isEqualTo("SELECT 1,\n  'a'");
    assertThat(r.get(0).expected()).containsExactly("1 | a");
    assertThat(r.get(0).expectedFrom()).isEqualTo(5);
    assertThat(r.get(0).expectedTo()).isEqualTo(6);
    assertThat(r.get(2).expected()).isNull();
    assertThat(SltFilesTest.declaredTypes(r.get(0))).isEqualTo("IT");
    assertThatThrownBy(() -> SltFilesTest.parse("f.slt", List.of("querry", "SELECT 1", "----")))
        .hasMessage("f.slt:1: unknown record 'querry'");
    assertThatThrownBy(() -> SltFilesTest.parse("f.slt", List.of("query I", "SELECT 1", "")))
        .hasMessage("f.slt:1: 'query I' needs a ---- section");
  }

  @Test
  void comparesRowsTypesAndErrors() {
    List<SltFilesTest.Record> r = SltFilesTest.parse("f.slt", TEXT);
    SltFilesTest.Record query = r.get(0);
    assertThat(SltFilesTest.mismatch(query, new SltFilesTest.Outcome(List.of("1 | a"), false, "IT"))).isNull();
    assertThat(SltFilesTest.mismatch(query, new SltFilesTest.Outcome(List.of("1 | b"), false, "IT"))).isEqualTo("mismatch");
    assertThat(SltFilesTest.mismatch(query, new SltFilesTest.Outcome(List.of("1 | a", "1 | a"), false, "IT")))
        .isEqualTo("mismatch");
    assertThat(SltFilesTest.mismatch(query, new SltFilesTest.Outcome(List.of("1 | a"), false, "RT")))
        .isEqualTo("column types: expected IT, got RT");
    assertThat(SltFilesTest.mismatch(query, new SltFilesTest.Outcome(List.of("NOT_FOUND: no x"), true, null)))
        .startsWith("expected rows, got");
    SltFilesTest.Record error = r.get(1);
    assertThat(SltFilesTest.mismatch(error, new SltFilesTest.Outcome(List.of("NOT_FOUND: no x"), true, null))).isNull();
    assertThat(SltFilesTest.mismatch(error, new SltFilesTest.Outcome(List.of("NOT_FOUND: no y"), true, null)))
        .isEqualTo("mismatch");
    assertThat(SltFilesTest.mismatch(error, new SltFilesTest.Outcome(List.of("NOT_FOUND: no x"), false, "T")))
        .startsWith("expected an error");
    assertThat(SltFilesTest.mismatch(r.get(2), new SltFilesTest.Outcome(List.of("7"), false, "I"))).isNull();
    assertThat(SltFilesTest.mismatch(r.get(2), new SltFilesTest.Outcome(List.of("DATA_ERROR: x"), true, null))).isNotNull();
    assertThat(SltFilesTest.mismatch(r.get(3), new SltFilesTest.Outcome(List.of("NOT_FOUND: no x"), true, null))).isNull();
    assertThat(SltFilesTest.mismatch(r.get(3), new SltFilesTest.Outcome(List.of("SYNTAX_ERROR: x"), true, null)))
        .startsWith("error does not match");
  }

  @Test
  void toleranceMatchesNumbersWithinTheRelativeDifferenceAndTheRestExactly() {
    List<SltFilesTest.Record> r = SltFilesTest.parse("f.slt", List.of("query RT rowsort tolerance=1e-9", "SELECT 1", "----",
        "0.30000000000000004 | a", "", "query tolerance=1e-9", "SELECT 1", "----", "1"));
    assertThat(SltFilesTest.declaredTypes(r.get(0))).isEqualTo("RT");
    assertThat(SltFilesTest.declaredTypes(r.get(1))).isNull();
    assertThat(r.get(0).tolerance()).isEqualTo(1e-9);
    assertThat(SltFilesTest.mismatch(r.get(0), new SltFilesTest.Outcome(List.of("0.3 | a"), false, "RT"))).isNull();
    assertThat(SltFilesTest.mismatch(r.get(0), new SltFilesTest.Outcome(List.of("0.3000001 | a"), false, "RT")))
        .isEqualTo("mismatch");
    assertThat(SltFilesTest.mismatch(r.get(0), new SltFilesTest.Outcome(List.of("0.3 | b"), false, "RT"))).isEqualTo("mismatch");
    assertThat(SltFilesTest.matches("NaN | Infinity | null | -0.0", "NaN | Infinity | null | 0.0", 1e-9)).isTrue();
    assertThat(SltFilesTest.matches("NaN", "1.0", 1e-9)).isFalse();
    assertThat(SltFilesTest.matches("Infinity", "-Infinity", 1e-9)).isFalse();
    assertThat(SltFilesTest.matches("1e-05", "1.0E-5", 1e-9)).isTrue();
    assertThat(SltFilesTest.matches("null", "0.0", 1e-9)).isFalse();
    assertThat(SltFilesTest.matches("1 | 2", "1", 1e-9)).isFalse();
  }

  @Test
  void ignoreMarkerMatchesAnyTextAndNothingElse() {
    assertThat(SltFilesTest.matches("a elapsed_ms=<slt:ignore> b=1", "a elapsed_ms=12.5 b=1")).isTrue();
    assertThat(SltFilesTest.matches("a elapsed_ms=<slt:ignore> b=1", "a elapsed_ms=12.5 b=2")).isFalse();
    assertThat(SltFilesTest.matches("x.y (1)", "x.y (1)")).isTrue();
    assertThat(SltFilesTest.matches("x.y (1) <slt:ignore>", "xzy (1) 5")).isFalse(); // the rest is literal
  }
}
