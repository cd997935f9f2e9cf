package dev.quiver.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.profile.ColumnDescription;
import dev.quiver.planner.profile.ColumnStat;
import dev.quiver.planner.profile.FileDescription;
import dev.quiver.planner.profile.RowGroupDescription;
import dev.quiver.planner.profile.TableDescription;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The samples generated for data that is not the bundled sample data: names quoted, the smallest value a literal. */
class SamplesTest {
  @Test
  void namesAreQuotedWhenTheyAreNotPlainLowerCaseOrAreKeywords() {
    assertThat(Samples.quote("orders")).isEqualTo("orders");
    assertThat(Samples.quote("my.data")).isEqualTo("\"my.data\"");
    assertThat(Samples.quote("Sales")).isEqualTo("\"Sales\"");
    assertThat(Samples.quote("day")).isEqualTo("\"day\"");
    assertThat(Samples.quote("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
  }

  private static ColumnDescription column(String name, String type, boolean dictionary) {
    return new ColumnDescription(name, type, "x", true, "ZSTD", List.of(), dictionary, false, false, 1, 1);
  }

  private static RowGroupDescription group(int i, String dayMin, String amountMin) {
    return new RowGroupDescription(i, 100, 1000, List.of(new ColumnStat("day", dayMin, "2024-12-31", 0L, false, false),
        new ColumnStat("amount", amountMin, "99", 0L, false, false)));
  }

  @Test
  void theFilterTakesTheSmallestMinimumOfASortedColumnAndTheGroupingAStringWithADictionary() {
    TableDescription t = new TableDescription("my.data", 200, 2000,
        List.of(column("amount", "DECIMAL(10,2)", false), column("day", "DATE", false), column("note", "VARCHAR", false),
            column("kind", "VARCHAR", true)),
        List.of(), List.of("day"),
        List.of(new FileDescription("my.data.parquet", 2000, Map.of(),
            List.of(group(0, "2024-03-01", "10.50"), group(1, "2024-01-02", "9.25")))));
    List<String> sql = Samples.generated(t).stream().map(Samples.Sample::sql).toList();
    assertThat(sql).containsExactly(
        "SELECT * FROM \"my.data\" LIMIT 10",
        "SELECT count(*) FROM \"my.data\"",
        "SELECT count(*) FROM \"my.data\" WHERE \"day\" <= DATE '2024-01-02'",
        "SELECT kind, count(*) AS n FROM \"my.data\"\nGROUP BY kind\nORDER BY n DESC\nLIMIT 20");
  }

  @Test
  void withoutAColumnToFilterOrGroupOnlyTheFirstRowsAndTheCount() {
    TableDescription t = new TableDescription("blobs", 1, 1, List.of(column("b", "VARBINARY", false)), List.of(),
        List.of(), List.of());
    assertThat(Samples.generated(t)).hasSize(2);
  }
}
