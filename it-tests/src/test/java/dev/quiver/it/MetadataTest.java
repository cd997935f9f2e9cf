package dev.quiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.sample.Events;
import dev.quiver.sample.Lineitem;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.DriverManager;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** DatabaseMetaData through the JDBC driver: what sqlline's !tables and !columns show. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetadataTest {
  @TempDir
  static Path dir;
  TestServer server;
  Connection jdbc;

  @BeforeAll
  void start() throws Exception {
    Lineitem.write(dir.resolve("lineitem.parquet"), 0.001, Lineitem.Order.NATURAL, 1000, b -> b);
    Events.write(dir.resolve("events.parquet"), 100, 1, 50);
    Path part = dir.resolve("sales/year=2023");
    Files.createDirectories(part);
    Events.write(part.resolve("part-0.parquet"), 30, 2, 50);
    Files.createDirectories(dir.resolve("sales/year=2024"));
    Events.write(dir.resolve("sales/year=2024/part-0.parquet"), 40, 3, 50);
    server = TestServer.start(dir);
    jdbc = server.jdbc();
  }

  @AfterAll
  void stop() throws Exception {
    jdbc.close();
    server.close();
  }

  private static List<String> column(ResultSet rs, String name) throws Exception {
    List<String> out = new ArrayList<>();
    try (rs) {
      while (rs.next()) out.add(rs.getString(name));
    }
    return out;
  }

  @Test
  void showTablesAndDescribeAnswerAsGetTablesAndGetColumnsDo() throws Exception {
    DatabaseMetaData md = jdbc.getMetaData();
    try (java.sql.Statement st = jdbc.createStatement()) {
      assertThat(column(st.executeQuery("SHOW TABLES"), "name"))
          .isEqualTo(column(md.getTables(null, null, "%", null), "TABLE_NAME"));
      assertThat(column(st.executeQuery("SHOW SCHEMAS"), "schema_name")).isEqualTo(column(md.getSchemas(), "TABLE_SCHEM"));
      assertThat(column(st.executeQuery("DESCRIBE lineitem"), "column_name"))
          .isEqualTo(column(md.getColumns(null, null, "lineitem", "%"), "COLUMN_NAME"));
      assertThat(column(st.executeQuery("SHOW COLUMNS FROM sales"), "column_name")).contains("year");
      assertThatThrownBy(() -> st.executeQuery("DESCRIBE nope")).hasMessageContaining("table nope does not exist at 1:10");
      assertThat(column(st.executeQuery("SELECT version() AS v"), "v").get(0)).startsWith("Quiver ");
    }
  }

  @Test
  void tablesCatalogsSchemasAndTypes() throws Exception {
    DatabaseMetaData md = jdbc.getMetaData();
    assertThat(column(md.getTables(null, null, "%", null), "TABLE_NAME")).containsExactly("events", "lineitem", "sales");
    assertThat(column(md.getTables(null, null, "line%", null), "TABLE_NAME")).containsExactly("lineitem");
    assertThat(column(md.getTables(null, null, "%", new String[] {"VIEW"}), "TABLE_NAME")).isEmpty();
    assertThat(column(md.getCatalogs(), "TABLE_CAT")).containsExactly("quiver");
    assertThat(column(md.getSchemas(), "TABLE_SCHEM")).containsExactly("main");
    assertThat(column(md.getTableTypes(), "TABLE_TYPE")).containsExactly("TABLE");
    assertThat(column(md.getPrimaryKeys(null, null, "lineitem"), "COLUMN_NAME")).isEmpty();
    assertThat(md.getDatabaseProductName()).isEqualTo("Quiver");
  }

  @Test
  void columnsWithTypesPrecisionAndNullability() throws Exception {
    List<String> described = new ArrayList<>();
    try (ResultSet rs = jdbc.getMetaData().getColumns(null, null, "lineitem", "%")) {
      while (rs.next()) {
        described.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " "
            + rs.getInt("COLUMN_SIZE") + " " + rs.getInt("NULLABLE"));
      }
    }
    assertThat(described).hasSize(16);
    assertThat(described.get(0)).startsWith("l_orderkey BIGINT");
    assertThat(described).anyMatch(s -> s.startsWith("l_quantity DECIMAL(12,2) 12"));
    assertThat(described).anyMatch(s -> s.startsWith("l_shipdate DATE"));
    assertThat(described.get(0)).endsWith(" 0"); // REQUIRED column: columnNoNulls
  }

  @Test
  void hivePartitionColumnsAreQueryable() throws Exception {
    List<String> cols = column(jdbc.getMetaData().getColumns(null, null, "sales", "%"), "COLUMN_NAME");
    assertThat(cols).endsWith("year");
    assertThat(TestServer.scalarLong(jdbc, "SELECT count(*) FROM sales")).isEqualTo(70);
    assertThat(TestServer.scalarLong(jdbc, "SELECT count(*) FROM sales WHERE year = 2024")).isEqualTo(40);
    var m = TestServer.scanMetrics(jdbc, "SELECT count(*) FROM sales WHERE year = 2024");
    assertThat(m.get("row_groups_pruned_partition")).isEqualTo(1); // 30 rows in one 50-row group
    assertThat(TestServer.scalarLong(jdbc, "SELECT sum(year) FROM sales WHERE year < 2024")).isEqualTo(30L * 2023);
  }

  @Test
  void typeInfoSqlInfoAndSessionOptions() throws Exception {
    try (org.apache.arrow.memory.BufferAllocator a = new org.apache.arrow.memory.RootAllocator();
        org.apache.arrow.flight.sql.FlightSqlClient c = server.flightSql(a)) {
      List<String> types = new ArrayList<>();
      try (org.apache.arrow.flight.FlightStream s = c.getStream(c.getXdbcTypeInfo().getEndpoints().get(0).getTicket())) {
        while (s.next()) {
          for (int i = 0; i < s.getRoot().getRowCount(); i++) types.add(s.getRoot().getVector("type_name").getObject(i).toString());
        }
      }
      assertThat(types).contains("BIGINT", "DECIMAL", "VARCHAR", "DATE", "TIMESTAMP");
      // an id the server does not know is ignored, not an error
      var info = c.getSqlInfo(new int[] {0, 999_999});
      try (org.apache.arrow.flight.FlightStream s = c.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(s.next()).isTrue();
        assertThat(s.getRoot().getRowCount()).isEqualTo(1);
      }
    }
    Connection withCatalog = DriverManager.getConnection(server.jdbcUrl() + "&catalog=quiver"); // SetSessionOptions
    assertThat(TestServer.scalarLong(withCatalog, "SELECT count(*) FROM lineitem")).isPositive();
    try {
      withCatalog.close();
    } catch (java.sql.SQLException driverBug) {
      // the 18.3.0 driver shuts its channel down before its CloseSession call ("Channel shutdown invoked")
      assertThat(driverBug.getMessage()).contains("Channel shutdown invoked");
    }
    assertThatThrownBy(() -> DriverManager.getConnection(server.jdbcUrl() + "&catalog=nope").close())
        .isInstanceOf(java.sql.SQLException.class);
  }
}
