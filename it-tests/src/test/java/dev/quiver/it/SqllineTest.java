package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.Lineitem;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sqlline.SqlLine;

/** sqlline 1.12.0 with the Flight SQL JDBC driver: connect, !tables, !columns, a query. */
class SqllineTest {
  @TempDir
  Path dir;

  @Test
  void tablesColumnsAndAQuery() throws Exception {
    Lineitem.write(dir.resolve("lineitem.parquet"), 0.002, Lineitem.Order.SHIPDATE, 2_000, b -> b);
    long expected = Lineitem.generate(0.002).stream()
        .filter(li -> li.getShipDate() < LocalDate.parse("1993-01-01").toEpochDay()).count();
    Path script = dir.resolve("script.sql");
    Files.writeString(script, "!tables\n!columns lineitem\n"
        + "SELECT count(*) AS n FROM lineitem WHERE l_shipdate < DATE '1993-01-01';\n!quit\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (TestServer server = TestServer.start(dir)) {
      SqlLine sqlline = new SqlLine();
      sqlline.setOutputStream(new PrintStream(out, true, StandardCharsets.UTF_8));
      sqlline.setErrorStream(new PrintStream(out, true, StandardCharsets.UTF_8));
      SqlLine.Status status = sqlline.begin(new String[] {
          "-u", "jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=false",
          "-n", "", "-p", "", "--maxWidth=200", "--outputformat=csv", "--run=" + script}, null, false);
      String text = out.toString(StandardCharsets.UTF_8);
      assertThat(status).as(text).isEqualTo(SqlLine.Status.OK);
      assertThat(text).contains("'quiver','main','lineitem','TABLE'");
      assertThat(text).contains("'lineitem','l_shipdate','91','DATE'");
      assertThat(text).contains("'lineitem','l_extendedprice','3','DECIMAL(12,2)','12'");
      assertThat(text).contains("'n'\n'" + expected + "'");
    }
    assertThat(expected).isPositive();
  }
}
